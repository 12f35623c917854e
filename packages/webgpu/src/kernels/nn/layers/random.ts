/**
 * Random draws of the layer kernels (Dropout's mask, rrelu's slopes). They come from the op's
 * parallel random resource (`ctx.requested[0]`, host mt19937 streams), split exactly like cpu-wasm
 * and MXNet's `LaunchRNG` (chunks of at least 64 samples, chunk t from stream t), drawn on the host
 * and uploaded: a seed then gives the same mask on gpu(0) as on cpu(0), and the resource's streams
 * advance identically. The upload is one queue write ordered after the work encoded so far.
 */
import { MXNetError } from '@mx/base';
import type { OpContext } from '@mx/ops';
import { generateCanonicalFloat, type Uint32Generator } from '@mx/storage';
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { runMap } from './map.js';

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
    device: 'gpu(0)',
    hint: "run the op through the NDArray runtime, which attaches the 'parallelRandom' resource it requests",
  });
}

/** Fill `n` samples with `draw(gen)` over MXNet's LaunchRNG chunks. */
function draw(bank: StreamBank, n: number, sample: (g: Uint32Generator) => number): Float32Array {
  const out = new Float32Array(n);
  if (n === 0) return out;
  const nthread = Math.min(Math.ceil(n / MIN_PER_STREAM), bank.numStreams);
  const step = Math.ceil(n / nthread);
  for (let t = 0; t < nthread; t++) {
    const begin = t * step;
    if (begin >= n) break;
    const g = bank.stream(t);
    const end = Math.min(n, begin + step);
    for (let i = begin; i < end; i++) out[i] = sample(g);
  }
  return out;
}

function upload(gpu: GpuHost, dst: GpuBlob, data: Float32Array): void {
  if (dst.ptr === null || data.length === 0) return;
  gpu.rt.writeBuffer(dst.ptr, dst.byteOffset, data);
}

/** dst[i] = U(lo, hi) (rrelu's slopes), as cpu-wasm's float32 draws. */
export function uploadUniform(
  gpu: GpuHost,
  op: string,
  ctx: OpContext,
  dst: GpuBlob,
  lo: number,
  hi: number,
): void {
  const a = Math.fround(lo);
  const d = Math.fround(Math.fround(hi) - a);
  upload(
    gpu,
    dst,
    draw(streamsOf(op, ctx), dst.size, (g) => a + d * generateCanonicalFloat(g)),
  );
}

/** dst[i] = (U(0,1) < keep) / keep: Dropout's mask, as cpu-wasm's float32 draws. */
export function uploadBernoulliScaled(
  gpu: GpuHost,
  op: string,
  ctx: OpContext,
  dst: GpuBlob,
  pkeep: number,
): void {
  const keep = Math.fround(pkeep);
  const scale = Math.fround(1 / keep);
  upload(
    gpu,
    dst,
    draw(streamsOf(op, ctx), dst.size, (g) => (generateCanonicalFloat(g) < keep ? scale : 0)),
  );
}

/** dst[i] = v (float32). */
export function fillConst(gpu: GpuHost, dst: GpuBlob, v: number): void {
  runMap(gpu, { op: 'fill', name: 'const', expr: 'p0', inputs: [], params: [v], out: dst, mode: 'w' });
}
