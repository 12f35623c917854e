/**
 * The legacy samplers on cuda-native: `_random_uniform`, `_random_normal`, `_random_randint`.
 *
 * Why a counter-based generator: MXNet's GPU samplers do not replay the CPU's mt19937 streams; each
 * GPU has its own generator (curand's Philox4x32-10 in `RandGenerator<gpu>`), so gpu(i) values are
 * a different — equally valid — sequence than cpu(0)'s. As webgpu does, every thread runs
 * Philox4x32-10 on counter (block index b as two words, 0, 0) and turns its four 32-bit words into
 * S samples (elements b*S .. b*S+S-1), so generation is fully parallel and nothing is drawn on the
 * host per element. The 64-bit key is two 32-bit draws from the kRandom resource the op requests
 * (`ctx.requested[0]`, seeded by `mx.random.seed`), so a seed reproduces a sequence of calls and
 * successive calls differ.
 *
 * Distributions (S = samples per Philox block):
 * - uniform: float32 takes the top 24 bits of a word as u in [0, 1) (S=4), float64 53 bits of two
 *   words (S=2); `lo + d * u` with lo = float(low), d = float(high) - lo as cpu-wasm computes them.
 * - normal: Box-Muller, u1 in (0, 1] and u2 in [0, 1), `z * scale + loc` (float32: S=4, float64: S=2).
 * - randint: a 64-bit draw (two words, S=2) mapped to [0, range) by the high word of the 128-bit
 *   product draw * range (bias < range / 2^64), for int32 and int64.
 * float16 outputs sample in float32 and round on the store. Parameters are checked when the op
 * runs, as MXNet does (errors surface on the first read).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type OpContext, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { BLOCK, blocksFor, type CudaSource, ctype, hashText, type KernelArg } from '../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { checkDtype, computeC, storeC } from './generate.js';

/** Philox4x32-10 on counter c with key (k0, k1), in place (Random123's round and key schedule). */
export const PHILOX_C = `static __device__ __forceinline__ void mx_philox(unsigned c[4], unsigned k0, unsigned k1) {
  for (int r = 0; r < 10; r++) {
    const unsigned hi0 = __umulhi(0xD2511F53u, c[0]);
    const unsigned lo0 = 0xD2511F53u * c[0];
    const unsigned hi1 = __umulhi(0xCD9E8D57u, c[2]);
    const unsigned lo1 = 0xCD9E8D57u * c[2];
    const unsigned n0 = hi1 ^ c[1] ^ k0;
    const unsigned n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
}
static __device__ __forceinline__ float mx_unit24(unsigned x) { return (float)(x >> 8) * 5.9604644775390625e-8f; }
static __device__ __forceinline__ double mx_unit53(unsigned a, unsigned b) {
  return (double)((((unsigned long long)a) << 21) | (unsigned long long)(b >> 11)) * 1.1102230246251565e-16;
}
`;

type Dist = 'uniform' | 'normal' | 'randint';

export const FLOAT_OUT: readonly DTypeName[] = ['float32', 'float64', 'float16'];
export const INT_OUT: readonly DTypeName[] = ['int32', 'int64'];

/** Samples per Philox block and the C computing `s[0..S-1]` from the words `r[4]`. */
function samples(dist: Dist, f64: boolean, C: string): { S: number; body: string } {
  if (dist === 'uniform') {
    if (f64)
      return {
        S: 2,
        body: '    s[0] = __dadd_rn(p0, __dmul_rn(p1, mx_unit53(r[0], r[1])));\n    s[1] = __dadd_rn(p0, __dmul_rn(p1, mx_unit53(r[2], r[3])));\n',
      };
    return {
      S: 4,
      body: '    for (int j = 0; j < 4; j++) s[j] = __fadd_rn(p0, __fmul_rn(p1, mx_unit24(r[j])));\n',
    };
  }
  if (dist === 'normal') {
    if (f64) {
      return {
        S: 2,
        body: `    const double u1 = __dadd_rn(mx_unit53(r[0], r[1]), 1.1102230246251565e-16);
    const double rad = sqrt(-2.0 * log(u1));
    double sn, cs;
    sincospi(2.0 * mx_unit53(r[2], r[3]), &sn, &cs);
    s[0] = __dadd_rn(__dmul_rn(rad * cs, p1), p0);
    s[1] = __dadd_rn(__dmul_rn(rad * sn, p1), p0);
`,
      };
    }
    return {
      S: 4,
      body: `    for (int j = 0; j < 2; j++) {
      const float u1 = (float)((r[2 * j] >> 8) + 1u) * 5.9604644775390625e-8f;
      const float rad = sqrtf(-2.0f * logf(u1));
      float sn, cs;
      sincospif(2.0f * mx_unit24(r[2 * j + 1]), &sn, &cs);
      s[2 * j] = __fadd_rn(__fmul_rn(rad * cs, p1), p0);
      s[2 * j + 1] = __fadd_rn(__fmul_rn(rad * sn, p1), p0);
    }
`,
    };
  }
  return {
    S: 2,
    body: `    for (int j = 0; j < 2; j++) {
      const unsigned long long draw = (((unsigned long long)r[2 * j]) << 32) | (unsigned long long)r[2 * j + 1];
      s[j] = (${C})(long long)((unsigned long long)p0 + __umul64hi(draw, (unsigned long long)p1));
    }
`,
  };
}

const SOURCES = new Map<string, { src: CudaSource; S: number }>();

function source(dist: Dist, dtype: DTypeName, add: boolean): { src: CudaSource; S: number } {
  const key = `random|${dist}|${dtype}|${add ? 'add' : 'write'}`;
  let hit = SOURCES.get(key);
  if (hit === undefined) {
    const st = ctype(dtype);
    const f64 = st.kind === 'f64';
    const C = computeC(dtype, `_random_${dist}`);
    const { S, body } = samples(dist, f64, C);
    const entry = `mx_random_${dist}_${hashText(key)}`;
    const P = dist === 'randint' ? 'long long' : f64 ? 'double' : 'float';
    const code = `${PHILOX_C}extern "C" __global__ void ${entry}(${st.storage}* o, long long n, unsigned k0, unsigned k1, ${P} p0, ${P} p1) {
  const long long nb = (n + ${S - 1}) / ${S};
  MX_GRID_LOOP(b, nb) {
    unsigned r[4] = {(unsigned)b, (unsigned)((unsigned long long)b >> 32), 0u, 0u};
    mx_philox(r, k0, k1);
    ${C} s[${S}];
${body}    for (int j = 0; j < ${S}; j++) {
      const long long e = b * ${S} + j;
      if (e < n) { ${storeC(dtype, add, 's[j]')} }
    }
  }
}
`;
    hit = { src: { entry, code }, S };
    SOURCES.set(key, hit);
  }
  return hit;
}

interface Generator {
  nextUint32(): number;
}

/** A 32-bit generator from the op's requested random resource (parallel bank: stream 0). */
function generatorOf(op: string, ctx: OpContext, device: number): Generator {
  const r = ctx.requested[0] as
    | Partial<{ stream(j: number): Generator; generator: Generator; numStreams: number }>
    | undefined;
  if (r !== undefined && typeof r.stream === 'function') return r.stream(0);
  if (r?.generator !== undefined && typeof r.generator.nextUint32 === 'function') return r.generator;
  throw new MXNetError('no random generator was attached to the op', {
    op,
    device: `gpu(${device})`,
    hint: "run the op through the NDArray runtime, which attaches the 'parallelRandom' resource it requests",
  });
}

function sample(
  rt: CudaRuntime,
  op: string,
  dist: Dist,
  ctx: OpContext,
  out: CudaBlob,
  req: OpReqType,
  p: readonly [KernelArg, KernelArg],
): void {
  if (req === OpReq.null || out.size === 0) return;
  const g = generatorOf(op, ctx, rt.device);
  const k0 = g.nextUint32() >>> 0;
  const k1 = g.nextUint32() >>> 0;
  const { src, S } = source(dist, out.dtype, req === OpReq.add);
  const n = out.size;
  rt.launch(
    src,
    [blocksFor(Math.ceil(n / S))],
    [BLOCK],
    [{ t: 'ptr', v: addr(out, op) }, { t: 'i64', v: n }, { t: 'u32', v: k0 }, { t: 'u32', v: k1 }, ...p],
  );
}

/** The two distribution arguments as the kernel's float or double parameters. */
function realArgs(dtype: DTypeName, a: number, b: number): [KernelArg, KernelArg] {
  if (ctype(dtype).kind === 'f64')
    return [
      { t: 'f64', v: a },
      { t: 'f64', v: b },
    ];
  return [
    { t: 'f32', v: a },
    { t: 'f32', v: b },
  ];
}

type UniformAttrs = { readonly low: number; readonly high: number };
type NormalAttrs = { readonly loc: number; readonly scale: number };

function uniform(rt: CudaRuntime, a: UniformAttrs, ctx: OpContext, out: CudaBlob, req: OpReqType): void {
  const op = '_random_uniform';
  checkDtype(op, out.dtype, FLOAT_OUT, rt.device);
  if (!(a.high >= a.low)) {
    throw new MXNetError('low must be less or equal to high in uniform distribution', {
      op,
      params: { low: a.low, high: a.high },
      device: `gpu(${rt.device})`,
      hint: 'pass low <= high',
    });
  }
  const lo = Math.fround(a.low);
  const f64 = out.dtype === 'float64';
  const d = f64 ? Math.fround(a.high) - lo : Math.fround(Math.fround(a.high) - lo);
  sample(rt, op, 'uniform', ctx, out, req, realArgs(out.dtype, lo, d));
}

function normal(rt: CudaRuntime, a: NormalAttrs, ctx: OpContext, out: CudaBlob, req: OpReqType): void {
  const op = '_random_normal';
  checkDtype(op, out.dtype, FLOAT_OUT, rt.device);
  if (!(a.scale > 0)) {
    throw new MXNetError('scale parameter in gaussian has to be positive', {
      op,
      params: { loc: a.loc, scale: a.scale },
      device: `gpu(${rt.device})`,
      hint: 'pass scale > 0 (the standard deviation)',
    });
  }
  sample(rt, op, 'normal', ctx, out, req, realArgs(out.dtype, Math.fround(a.loc), Math.fround(a.scale)));
}

function randint(rt: CudaRuntime, a: UniformAttrs, ctx: OpContext, out: CudaBlob, req: OpReqType): void {
  const op = '_random_randint';
  checkDtype(op, out.dtype, INT_OUT, rt.device);
  if (!(a.high > a.low)) {
    throw new MXNetError(`low must be less than high in randint, got low=${a.low}, high=${a.high}`, {
      op,
      params: { low: a.low, high: a.high },
      device: `gpu(${rt.device})`,
      hint: 'samples come from [low, high): pass high > low',
    });
  }
  if (out.dtype === 'int32' && (a.low < -(2 ** 31) || a.high > 2 ** 31)) {
    throw new MXNetError(`randint bounds [${a.low}, ${a.high}) do not fit int32`, {
      op,
      params: { low: a.low, high: a.high },
      device: `gpu(${rt.device})`,
      hint: "pass dtype='int64' for wider bounds",
    });
  }
  // The range travels as the bits of an unsigned 64-bit value (packArgs wraps past 2^63).
  const range = Math.trunc(a.high) - Math.trunc(a.low);
  sample(rt, op, 'randint', ctx, out, req, [
    { t: 'i64', v: Math.trunc(a.low) },
    { t: 'i64', v: range },
  ]);
}

export function installRandom(registry: OpRegistry, host: CudaHost): void {
  const reg = <A extends UniformAttrs | NormalAttrs>(
    name: string,
    run: (rt: CudaRuntime, a: A, ctx: OpContext, out: CudaBlob, req: OpReqType) => void,
    dtypes: readonly DTypeName[],
  ) => {
    if (!registry.has(name)) return;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<A>(
        host,
        name,
        (a, _i, req, out, ctx) => run(host.rt, a, ctx, out[0] as CudaBlob, req[0] as OpReqType),
        dtypes,
      ),
    );
  };
  reg<UniformAttrs>('_random_uniform', uniform, FLOAT_OUT);
  reg<NormalAttrs>('_random_normal', normal, FLOAT_OUT);
  reg<UniformAttrs>('_random_randint', randint, INT_OUT);
}
