/**
 * Random draws of the layer kernels (Dropout's mask, rrelu's slopes) from the parallel random
 * resource the ops request, split like MXNet's `LaunchRNG` (chunks of at least 64 samples, chunk t
 * from stream t), as the init family's samplers do, so a seed reproduces a mask.
 */
import { MXNetError } from '@mx/base';
import type { OpContext } from '@mx/ops';
import { generateCanonicalDouble, generateCanonicalFloat, type Uint32Generator } from '@mx/storage';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { BACKEND, type Blob } from './util.js';

/** MXNet `RandGenerator<cpu>::kMinNumRandomPerThread`. */
const MIN_PER_STREAM = 64;

interface StreamBank {
  readonly numStreams: number;
  stream(j: number): Uint32Generator;
}

function streamsOf(op: string, ctx: OpContext): StreamBank {
  const r = ctx.requested[0] as Partial<StreamBank & { generator: Uint32Generator }> | undefined;
  if (r && typeof r.stream === 'function' && typeof r.numStreams === 'number') return r as StreamBank;
  if (r?.generator && typeof r.generator.nextUint32 === 'function') {
    const g = r.generator;
    return { numStreams: 1, stream: () => g };
  }
  throw new MXNetError('no random generator was attached to the op', {
    op,
    device: BACKEND,
    hint: "run the op through the NDArray runtime, which attaches the 'parallelRandom' resource it requests",
  });
}

/** Call `fill(gen, begin, end)` over MXNet's LaunchRNG chunks of [0, n). */
function forChunks(
  bank: StreamBank,
  n: number,
  fill: (g: Uint32Generator, b: number, e: number) => void,
): void {
  if (n <= 0) return;
  const nthread = Math.min(Math.ceil(n / MIN_PER_STREAM), bank.numStreams);
  const step = Math.ceil(n / nthread);
  for (let t = 0; t < nthread; t++) {
    const begin = t * step;
    if (begin >= n) break;
    fill(bank.stream(t), begin, Math.min(n, begin + step));
  }
}

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
