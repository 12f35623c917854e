/**
 * Random draws of the layer kernels (Dropout's mask, rrelu's slopes) from the parallel random
 * resource the ops request, split like MXNet's `LaunchRNG` (chunks of at least 64 samples, chunk t
 * from stream t) with the init family's samplers' helpers, so a seed reproduces a mask.
 */
import type { OpContext } from '@mx/ops';
import { generateCanonicalDouble, generateCanonicalFloat, type Uint32Generator } from '@mx/storage';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { forChunks, streamsOf } from '../../init/random.js';
import type { Blob } from './util.js';

/** A uniform canonical draw in [0, 1) in the blob's precision. */
function canonical(f32: boolean): (g: Uint32Generator) => number {
  return f32 ? generateCanonicalFloat : generateCanonicalDouble;
}

/** out[i] = U(lo, hi) (rrelu's slopes). */
export function fillUniform(
  rt: CpuWasmRuntime,
  op: string,
  ctx: OpContext,
  out: Blob,
  lo: number,
  hi: number,
): void {
  const bank = streamsOf(op, ctx);
  const view = rt.view(out) as Float32Array | Float64Array;
  const f32 = out.dtype === 'float32';
  const u = canonical(f32);
  const a = f32 ? Math.fround(lo) : lo;
  const d = f32 ? Math.fround(Math.fround(hi) - a) : hi - lo;
  forChunks(bank, out.size, (g, b, e) => {
    for (let i = b; i < e; i++) view[i] = a + d * u(g);
  });
}

/** out[i] = (U(0, 1) < pkeep) / pkeep: Dropout's mask, 0 or the keep scale. */
export function fillBernoulliScaled(
  rt: CpuWasmRuntime,
  op: string,
  ctx: OpContext,
  out: Blob,
  pkeep: number,
): void {
  const bank = streamsOf(op, ctx);
  const view = rt.view(out) as Float32Array | Float64Array;
  const f32 = out.dtype === 'float32';
  const u = canonical(f32);
  const keep = f32 ? Math.fround(pkeep) : pkeep;
  const scale = f32 ? Math.fround(1 / keep) : 1 / keep;
  forChunks(bank, out.size, (g, b, e) => {
    for (let i = b; i < e; i++) view[i] = u(g) < keep ? scale : 0;
  });
}
