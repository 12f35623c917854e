/**
 * Random draws of the layer kernels (Dropout's mask, rrelu's slopes) on the device: counter-based
 * Philox4x32-10 as the init family's samplers (MXNet's GPU generator is curand's Philox too, so
 * gpu(0) draws are a different, equally valid sequence than cpu(0)'s mt19937 streams). Each thread
 * runs one Philox block on counter (block index, 0, 0, 0) and writes four samples; the 64-bit key
 * is two `nextUint32()` draws from the op's random resource, so a seed reproduces the mask and
 * successive calls differ. float32 (and 16-bit) samples use the top 24 bits, float64 ones 53 bits
 * from two words.
 */
import { MXNetError } from '@mx/base';
import type { OpContext } from '@mx/ops';
import { BLOCK, blocksFor, toStorage } from '../../../cuda-c.js';
import { addr, type CudaBlob, type CudaHost } from '../../../kernel.js';
import { cptr, SourceCache } from './util.js';

/** The Philox4x32-10 block function (counter c, key k). */
export const PHILOX_C = `static __device__ __forceinline__ void mx_philox(unsigned c[4], unsigned k0, unsigned k1) {
  for (int r = 0; r < 10; r++) {
    unsigned hi0 = __umulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
    unsigned hi1 = __umulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
    unsigned n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
}
static __device__ __forceinline__ float mx_unit_f(unsigned x) { return (float)(x >> 8) * 5.9604644775390625e-8f; }
static __device__ __forceinline__ double mx_unit_d(unsigned hi, unsigned lo) {
  return ((double)(hi >> 5) * 67108864.0 + (double)(lo >> 6)) * 1.1102230246251565e-16;
}
`;

interface Generator {
  nextUint32(): number;
}

/** The generator of the op's random resource (`ctx.requested[0]`). */
function generatorOf(op: string, ctx: OpContext): Generator {
  const r = ctx.requested[0] as
    | Partial<{ stream(j: number): Generator; generator: Generator; numStreams: number }>
    | undefined;
  if (r !== undefined && typeof r.stream === 'function') return r.stream(0);
  if (r?.generator !== undefined && typeof r.generator.nextUint32 === 'function') return r.generator;
  throw new MXNetError('no random generator was attached to the op', {
    op,
    device: 'gpu',
    hint: "run the op through the NDArray runtime, which attaches the 'parallelRandom' resource it requests",
  });
}

/** 'uniform': lo + (hi - lo)·u; 'bernoulli': (u < a) ? b : 0 (Dropout's keep mask with scale b). */
export type Draw = 'uniform' | 'bernoulli';

const cache = new SourceCache('layers_rand');

function source(kind: Draw, dst: CudaBlob, entry: string): string {
  const f64 = dst.dtype === 'float64';
  const T = f64 ? 'double' : 'float';
  const u = (j: number) =>
    f64 ? `mx_unit_d(c[${(2 * j) % 4}], c[${(2 * j + 1) % 4}])` : `mx_unit_f(c[${j}])`;
  const val = (j: number) => (kind === 'uniform' ? `a + b * ${u(j)}` : `(${u(j)} < a) ? b : (${T})0`);
  // float64 takes two words per sample: two Philox blocks per four samples.
  const body = f64
    ? `unsigned c[4] = {(unsigned)(2 * t), (unsigned)((2 * t) >> 32), 0u, 0u};
    mx_philox(c, k0, k1);
    ${T} s[4];
    s[0] = ${val(0)}; s[1] = ${val(1)};
    c[0] = (unsigned)(2 * t + 1); c[1] = (unsigned)((2 * t + 1) >> 32); c[2] = 0u; c[3] = 0u;
    mx_philox(c, k0, k1);
    s[2] = ${val(0)}; s[3] = ${val(1)};`
    : `unsigned c[4] = {(unsigned)t, (unsigned)(t >> 32), 0u, 0u};
    mx_philox(c, k0, k1);
    ${T} s[4] = {${[0, 1, 2, 3].map(val).join(', ')}};`;
  return `${PHILOX_C}extern "C" __global__ void ${entry}(${cptr(dst.dtype, 'o', false)}, long long n, unsigned k0, unsigned k1, ${T} a, ${T} b) {
  long long threads = (n + 3) / 4;
  MX_GRID_LOOP(t, threads) {
    ${body}
    for (int j = 0; j < 4; j++) {
      long long e = t * 4 + j;
      if (e < n) o[e] = ${toStorage(dst.dtype, 's[j]')};
    }
  }
}
`;
}

/** Fill `dst` (a float dtype) with draws of `kind` from the op's random resource. */
export function fillRandom(
  host: CudaHost,
  op: string,
  ctx: OpContext,
  dst: CudaBlob,
  kind: Draw,
  a: number,
  b: number,
): void {
  if (dst.size === 0) return;
  const g = generatorOf(op, ctx);
  const k0 = g.nextUint32() >>> 0;
  const k1 = g.nextUint32() >>> 0;
  const src = cache.get(`${kind}|${dst.dtype}`, (entry) => source(kind, dst, entry));
  const threads = Math.ceil(dst.size / 4);
  const t = dst.dtype === 'float64' ? 'f64' : 'f32';
  host.rt.launch(
    src,
    [blocksFor(threads)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(dst, op) },
      { t: 'i64', v: dst.size },
      { t: 'u32', v: k0 },
      { t: 'u32', v: k1 },
      { t, v: a },
      { t, v: b },
    ],
  );
}
