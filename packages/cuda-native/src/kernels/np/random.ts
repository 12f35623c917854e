/**
 * np samplers that are a transform of uniform draws (`_npi_uniform`, `_npi_normal`,
 * `_npi_exponential`, `_npi_laplace`, `_npi_logistic`, `_npi_gumbel`, `_npi_weibull`,
 * `_npi_pareto`, `_npi_powerd`, `_npi_rayleigh`, `_npi_bernoulli`), written as cpu-wasm's table
 * (np/random/dists.ts) over a counter-based generator: element i runs Philox4x32-10 on counter
 * (i, 0, 0, 0) with the 64-bit key drawn from the op's kRandom resource (two `nextUint32()` per
 * call, as webgpu's init/random.ts), so GPU values are a different — equally valid — sequence than
 * cpu(0)'s, as MXNet's GPU samplers (curand Philox) are. Uniforms carry 24 bits for float32 and 53
 * for float64. Parameters are attrs (checked on the host with NumPy's ValueError text) or tensor
 * inputs broadcast to the output, checked on the device: a check kernel records the first value
 * out of its domain in scratch the runtime reads back after the op (`rt.check`), the op then fails
 * with cpu-wasm's message, and the sampler writes nothing once the check is set. Hidden noise
 * outputs (the pathwise-gradient factors) are written when present.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { OpContext, OpRegistry } from '@mx/ops';
import type { KernelArg } from '../../cuda-c.js';
import { loadC } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import { broadcastStrides } from './bitwise.js';
import {
  castFromDouble,
  checkRank,
  DEVICE,
  dims,
  f64,
  i32,
  i64,
  isAdd,
  launch1d,
  ptr,
  skip,
  source,
  st,
  storeC,
} from './common.js';

const SAMPLER_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'int8',
  'uint8',
  'int32',
  'int64',
  'bool',
];

/** A parameter's domain: [valid (host), NumPy's message, valid (C expression of the double `v`)]. */
type Domain = readonly [(v: number) => boolean, string, string];

interface Row {
  readonly names: readonly string[];
  /** Per parameter: its domain, or undefined when unchecked. */
  readonly checks: readonly (Domain | undefined)[];
  /** C setting `double x` (sample) and `double z` (noise) from `u` (uniform), `nz` (normal), p0, p1. */
  readonly body: string;
  /** Continuous samplers write float32/float64 only. */
  readonly floatOnly: boolean;
}

const nonNeg = (what: string): Domain => [(v) => v >= 0, `${what} < 0`, 'v >= 0.0'];
const positive = (what: string): Domain => [(v) => v > 0, `${what} <= 0`, 'v > 0.0'];
/** bernoulli's `prob` (its `logit` is unchecked). */
const PROB: Domain = [
  (v) => v >= 0 && v <= 1,
  'ValueError: expect probs >= 0 && probs <= 1',
  'v >= 0.0 && v <= 1.0',
];

const ROWS: Readonly<Record<string, Row>> = {
  _npi_uniform: { names: ['low', 'high'], checks: [], body: 'x = p0 + u * (p1 - p0);', floatOnly: true },
  _npi_normal: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    body: 'z = nz; x = p0 + z * p1;',
    floatOnly: true,
  },
  _npi_exponential: {
    names: ['scale'],
    checks: [nonNeg('scale')],
    body: 'z = -log(1.0 - u); x = p0 * z;',
    floatOnly: true,
  },
  _npi_laplace: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    body: 'double t = u < 0.5 ? log(2.0 * u > 0.0 ? 2.0 * u : 4.9406564584124654e-324) : -log(2.0 * (1.0 - u)); x = p0 + p1 * t;',
    floatOnly: true,
  },
  _npi_logistic: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    body: 'double v = u > 0.0 ? u : ulo; z = log(v) - log1p(-v); x = p0 + z * p1;',
    floatOnly: true,
  },
  _npi_gumbel: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    body: 'double v = u > 0.0 ? u : ulo; z = -log(-log(v)); x = p0 + z * p1;',
    floatOnly: true,
  },
  _npi_weibull: {
    names: ['a'],
    checks: [nonNeg('a')],
    body: 'double e = -log(1.0 - u); if (p0 == 0.0) { x = 0.0; z = 0.0; } else { x = pow(e, 1.0 / p0); z = -log(e) * x / (p0 * p0); }',
    floatOnly: true,
  },
  _npi_pareto: {
    names: ['a'],
    checks: [positive('a')],
    body: 'double e = -log(1.0 - u); x = expm1(e / p0); z = -e * (x + 1.0) / (p0 * p0);',
    floatOnly: true,
  },
  _npi_powerd: {
    names: ['a'],
    checks: [positive('a')],
    body: 'x = pow(1.0 - u, 1.0 / p0);',
    floatOnly: true,
  },
  _npi_rayleigh: {
    names: ['scale'],
    checks: [nonNeg('scale')],
    body: 'z = sqrt(-2.0 * log(1.0 - u)); x = p0 * z;',
    floatOnly: true,
  },
  // p0 = prob, or logit when the compile-time flag says so (see bernoulliName).
  _npi_bernoulli: {
    names: ['prob'],
    checks: [],
    body: 'double q = LOGIT ? 1.0 / (1.0 + exp(-p0)) : p0; x = u < q ? 1.0 : 0.0;',
    floatOnly: false,
  },
};

const PHILOX_C = `static __device__ __forceinline__ void mx_philox(unsigned c[4], unsigned k0, unsigned k1) {
  for (int r = 0; r < 10; r++) {
    unsigned hi0 = __umulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
    unsigned hi1 = __umulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
    unsigned n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
}
`;

/** How each parameter reaches the kernel: an attr (scalar) or a broadcast tensor of a dtype. */
type ParamSrc = { readonly scalar: number } | { readonly tensor: CudaBlob };

function samplerSource(
  op: string,
  out: DTypeName,
  noise: DTypeName | null,
  p: readonly (DTypeName | null)[],
  add0: boolean,
  add1: boolean,
  logit: boolean,
) {
  const key = `${out}|${noise}|${p.join(',')}|${add0}|${add1}|${logit}`;
  return source(op, key, (entry) => {
    const row = ROWS[op] as Row;
    const wide = out === 'float64';
    const [c0, f0] = castFromDouble(out, op);
    const [c1, f1] = noise === null ? ['', ''] : castFromDouble(noise, op);
    const params = [0, 1]
      .map((k) => {
        const t = p[k];
        return t === undefined
          ? `double p${k} = 0.0;`
          : t === null
            ? `double p${k} = s${k};`
            : `double p${k} = (double)${loadC(`t${k}`, t, `mx_bidx(o, nd, oshape, st${k})`)};`;
      })
      .join('\n    ');
    const tensorArgs = [0, 1]
      .map((k) => `const ${st(p[k] ?? 'float32', op)}* t${k}, double s${k}, MxDims st${k}`)
      .join(', ');
    return `${PHILOX_C}${c0}${c1 === c0 ? '' : c1}static __device__ __forceinline__ long long mx_bidx(long long o, int nd, const MxDims& shape, const MxDims& stride) {
  long long p = 0;
  for (int d = nd - 1; d >= 0; d--) { p += (o % shape.v[d]) * stride.v[d]; o /= shape.v[d]; }
  return p;
}
extern "C" __global__ void ${entry}(${st(out, op)}* out, ${st(noise ?? 'float32', op)}* noise, long long n, unsigned k0, unsigned k1, int nd, MxDims oshape, ${tensorArgs}, const unsigned long long* bad) {
  if (bad != 0 && bad[0] != 0xffffffffffffffffull) return;
  const bool LOGIT = ${logit};
  (void)LOGIT;
  MX_GRID_LOOP(o, n) {
    unsigned c[4] = { (unsigned)o, (unsigned)(o >> 32), 0u, 0u };
    mx_philox(c, k0, k1);
    double u = ${wide ? '((double)(c[0] >> 5) * 67108864.0 + (double)(c[1] >> 6)) * 1.1102230246251565e-16' : '(double)(c[0] >> 8) * 5.9604644775390625e-8'};
    double ulo = ${wide ? '1.1102230246251565e-16' : '5.9604644775390625e-8'};
    double u2 = ${wide ? '((double)(c[2] >> 5) * 67108864.0 + (double)(c[3] >> 6)) * 1.1102230246251565e-16' : '(double)(c[2] >> 8) * 5.9604644775390625e-8'};
    double nz = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * u2);
    (void)nz; (void)ulo;
    ${params}
    double x = 0.0, z = 0.0;
    { ${row.body} }
    (void)z;
    ${storeC(out, 'out', 'o', `${f0}(x)`, add0)}
    ${noise === null ? '' : storeC(noise, 'noise', 'o', `${f1}(z)`, add1)}
  }
}
`;
  });
}

/** Bits of the parameter number in a check's first word (the rest: the element's flat index). */
const PARAM_SHIFT = 40n;

/**
 * The device check of tensor parameter `k` against `domain`: the first bad element (parameter
 * number in the high bits, so the first parameter's failure wins as on cpu-wasm), then its value.
 */
function domainSources(op: string, dtype: DTypeName, domain: Domain) {
  const key = `${dtype}|${domain[2]}`;
  const find = source(`${op}_check`, `find|${key}`, (entry) => {
    return `extern "C" __global__ void ${entry}(unsigned long long* bad, const ${st(dtype, op)}* p, long long n, long long k) {
  MX_GRID_LOOP(i, n) {
    double v = (double)${loadC('p', dtype, 'i')};
    if (!(${domain[2]})) atomicMin(bad, ((unsigned long long)k << ${PARAM_SHIFT}) | (unsigned long long)i);
  }
}
`;
  });
  const value = source(`${op}_check`, `value|${key}`, (entry) => {
    return `extern "C" __global__ void ${entry}(unsigned long long* bad, const ${st(dtype, op)}* p, long long n, long long k) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && bad[0] != 0xffffffffffffffffull && (bad[0] >> ${PARAM_SHIFT}) == (unsigned long long)k)
    ((double*)bad)[1] = (double)${loadC('p', dtype, `(long long)(bad[0] & ((1ull << ${String(PARAM_SHIFT)}) - 1ull))`)};
}
`;
  });
  return [find, value] as const;
}

/**
 * Queue the domain checks of the tensor parameters; returns the verdict's address for the sampler
 * (0 when nothing is checked). The op fails with cpu-wasm's ValueError text.
 */
function checkTensors(
  rt: CudaHost['rt'],
  op: string,
  attrs: Readonly<Record<string, unknown>>,
  ps: readonly ParamSrc[],
  domains: readonly (Domain | undefined)[],
): number {
  const checked = ps.flatMap((p, k) => {
    const d = domains[k];
    return 'tensor' in p && d !== undefined && p.tensor.size > 0 ? [{ k, t: p.tensor, d }] : [];
  });
  if (checked.length === 0) return 0;
  const bad = rt.check(16, (bytes) => {
    const w = new BigUint64Array(bytes.buffer, bytes.byteOffset, 1)[0] as bigint;
    if (w === 0xffffffffffffffffn) return undefined;
    const k = Number(w >> PARAM_SHIFT);
    const v = new Float64Array(bytes.buffer, bytes.byteOffset + 8, 1)[0];
    return new MXNetError((domains[k] as Domain)[1], {
      op,
      params: attrs,
      device: DEVICE,
      hint: `a parameter of ${op} is out of its domain (got ${v})`,
    });
  });
  rt.memset(bad, 0xff, 16);
  const args = (c: (typeof checked)[number]): KernelArg[] => [
    { t: 'ptr', v: bad },
    ptr(c.t, op),
    i64(c.t.size),
    i64(c.k),
  ];
  const srcs = checked.map((c) => domainSources(op, c.t.dtype, c.d));
  checked.forEach((c, j) => {
    launch1d(rt, (srcs[j] as (typeof srcs)[number])[0], c.t.size, args(c));
  });
  checked.forEach((c, j) => {
    rt.launch((srcs[j] as (typeof srcs)[number])[1], [1], [32], args(c));
  });
  return bad;
}

function generatorOf(op: string, ctx: OpContext): { nextUint32(): number } {
  const r = ctx.requested[0] as
    | Partial<{ stream(j: number): { nextUint32(): number }; generator: { nextUint32(): number } }>
    | undefined;
  if (r !== undefined && typeof r.stream === 'function') return r.stream(0);
  if (r?.generator !== undefined && typeof r.generator.nextUint32 === 'function') return r.generator;
  throw new MXNetError('no random generator was attached to the op', {
    op,
    device: DEVICE,
    hint: "run the op through the NDArray runtime, which attaches the 'parallelRandom' resource it requests",
  });
}

/** bernoulli reads `prob` or `logit` (MXNet's attrs), whichever was given. */
function bernoulliParam(a: Readonly<Record<string, unknown>>): { name: string; logit: boolean } {
  const name = a.prob !== null || (a.logit === null && !a.is_logit) ? 'prob' : 'logit';
  return { name, logit: a.logit !== null || (a.prob === null && a.is_logit === true) };
}

export function installNpRandom(registry: OpRegistry, host: CudaHost): void {
  for (const [op, row] of Object.entries(ROWS)) {
    if (!registry.has(op)) continue;
    const dtypes = row.floatOnly ? (['float32', 'float64'] as const) : SAMPLER_DTYPES;
    registry.registerKernel(
      op,
      CUDA,
      cudaKernel(
        host,
        op,
        (a, inputs, req, outputs, ctx) => {
          const out = outputs[0];
          if (out === undefined) return;
          const want0 = !skip(req[0]);
          const noise = outputs.length > 1 && !skip(req[1]) ? outputs[1] : undefined;
          if (!want0 && noise === undefined) return;
          if (row.floatOnly && out.dtype !== 'float32' && out.dtype !== 'float64') {
            throw new MXNetError(`dtype ${out.dtype} is not supported`, {
              op,
              dtypes: [out.dtype],
              device: DEVICE,
              hint: 'use float32 or float64',
            });
          }
          const bern = op === '_npi_bernoulli' ? bernoulliParam(a) : undefined;
          const names = bern !== undefined ? [bern.name] : row.names;
          const domains = bern !== undefined ? [bern.logit ? undefined : PROB] : row.checks;
          let k = 0;
          const ps: ParamSrc[] = names.map((name, j) => {
            const v = a[name];
            if (typeof v !== 'number') return { tensor: inputs[k++] as CudaBlob };
            const c = domains[j];
            if (c !== undefined && !c[0](v)) {
              throw new MXNetError(c[1], {
                op,
                params: a,
                device: DEVICE,
                hint: `a parameter of ${op} is out of its domain (got ${v})`,
              });
            }
            return { scalar: v };
          });
          const bad = checkTensors(host.rt, op, a, ps, domains);
          if (out.size === 0) return;
          checkRank(op, [out.shape], out.shape.length);
          const g = generatorOf(op, ctx);
          const k0 = g.nextUint32() >>> 0;
          const k1 = g.nextUint32() >>> 0;
          const rt = host.rt;
          // An unwanted sample output is written to scratch (one kernel writes both).
          const target = want0 ? out : { ...out, ptr: rt.temp(out.size * 8), byteOffset: 0 };
          const pargs: KernelArg[] = [];
          for (let j = 0; j < 2; j++) {
            const p = ps[j];
            if (p !== undefined && 'tensor' in p) {
              pargs.push(ptr(p.tensor, op), f64(0), dims(broadcastStrides(p.tensor.shape, out.shape)));
            } else pargs.push({ t: 'ptr', v: 0 }, f64(p?.scalar ?? 0), dims([]));
          }
          const pt = ps.map((p) => ('tensor' in p ? p.tensor.dtype : null));
          const src = samplerSource(
            op,
            out.dtype,
            noise?.dtype ?? null,
            pt,
            isAdd(req[0]),
            isAdd(req[1]),
            bern?.logit ?? false,
          );
          launch1d(rt, src, out.size, [
            ptr(target, op),
            noise === undefined ? { t: 'ptr', v: 0 } : ptr(noise, op),
            i64(out.size),
            { t: 'u32', v: k0 },
            { t: 'u32', v: k1 },
            i32(out.shape.length),
            dims(out.shape),
            ...pargs,
            { t: 'ptr', v: bad },
          ]);
        },
        dtypes,
      ),
    );
  }
}
