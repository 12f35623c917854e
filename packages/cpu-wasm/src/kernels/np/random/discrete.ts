/**
 * cpu-wasm kernels of `_npi_bernoulli`, `_npi_choice`, `_npi_multinomial` and `_shuffle`.
 *
 * choice: with replacement, unweighted draws are floor(u · n) and weighted ones invert the
 * cumulative p by binary search; without replacement, unweighted is a partial Fisher–Yates over
 * range(n) and weighted draws one index at a time from the remaining mass (NumPy's definition).
 * multinomial: n categorical draws per sample, the last category taking 1 - Σ pvals[:-1] as NumPy
 * does. shuffle: Fisher–Yates over the rows of axis 0, reading the input before writing, so the
 * in-place call (output = input, MXNet's `FInplaceOption`) and the copying one give the same rows.
 * Every check runs before the first write.
 */
import { DType, MXNetError } from '@mx/base';
import { type OpContext, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { generateCanonicalDouble, type Uint32Generator } from '@mx/storage';
import type { CpuWasmRuntime } from '../../../runtime.js';
import {
  checkAll,
  checkOut,
  DEVICE,
  generatorOf,
  params,
  readF64,
  SAMPLER_DTYPES,
  store,
  uniformSource,
} from './io.js';

type Attrs = Readonly<Record<string, unknown>>;

function fail(op: string, message: string, hint: string): MXNetError {
  return new MXNetError(message, { op, device: DEVICE, hint });
}

function bernoulli(
  rt: CpuWasmRuntime,
  a: Attrs,
  ctx: OpContext,
  inputs: readonly TBlob<number>[],
  req: readonly OpReqType[],
  out: TBlob<number>,
): void {
  const op = '_npi_bernoulli';
  checkOut(op, out.dtype, SAMPLER_DTYPES);
  const name = a.prob !== null || (a.logit === null && !a.is_logit) ? 'prob' : 'logit';
  const logit = a.logit !== null || (a.prob === null && a.is_logit === true);
  const { get, values } = params(op, rt, a, [name], inputs, out.shape);
  if (!logit)
    checkAll(
      op,
      values[0] as number[],
      (v) => v >= 0 && v <= 1,
      'ValueError: expect probs >= 0 && probs <= 1',
    );
  const n = out.size;
  if (n === 0) return;
  const u = uniformSource(generatorOf(op, ctx), out.dtype === 'float64' ? 'float64' : 'float32');
  const p = get[0] as (i: number) => number;
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const q = logit ? 1 / (1 + Math.exp(-p(i))) : p(i);
    s[i] = u() < q ? 1 : 0;
  }
  store(rt, out, req[0], s);
}

/** Index of the first cumulative value > r (cum ascending, last = total). */
function search(cum: Float64Array, r: number): number {
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cum[mid] as number) > r) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function choice(
  rt: CpuWasmRuntime,
  a: Attrs,
  ctx: OpContext,
  inputs: readonly TBlob<number>[],
  req: readonly OpReqType[],
  out: TBlob<number>,
): void {
  const op = '_npi_choice';
  let k = 0;
  const pop = typeof a.a === 'number' ? (a.a as number) : (inputs[k++] as TBlob<number>).size;
  const p = a.weighted === true ? readF64(op, rt, inputs[k] as TBlob<number>) : undefined;
  const m = out.size;
  if (pop <= 0 && m > 0)
    throw fail(op, 'a must be greater than 0 unless no samples are taken', 'pass a positive population');
  if (p !== undefined) {
    if (p.length !== pop)
      throw fail(op, "'a' and 'p' must have same size", 'give one probability per element of a');
    if (p.some((v) => !(v >= 0))) throw fail(op, 'probabilities are not non-negative', 'p must be >= 0');
    const total = p.reduce((x, y) => x + y, 0);
    if (Math.abs(total - 1) > Math.sqrt(Number.EPSILON) * 16)
      throw fail(op, 'probabilities do not sum to 1', 'normalise p first');
  }
  if (a.replace === false) {
    if (m > pop)
      throw fail(
        op,
        "Cannot take a larger sample than population when 'replace=False'",
        'pass replace=true or a smaller size',
      );
    if (p !== undefined && p.filter((v) => v > 0).length < m)
      throw fail(op, 'Fewer non-zero entries in p than size', 'give more indices a positive probability');
  }
  if (m === 0) return;
  const g: Uint32Generator = generatorOf(op, ctx);
  const u = () => generateCanonicalDouble(g);
  const res = new Float64Array(m);
  if (a.replace !== false) {
    if (p === undefined) for (let i = 0; i < m; i++) res[i] = Math.min(pop - 1, Math.floor(u() * pop));
    else {
      const cum = new Float64Array(pop);
      let s = 0;
      for (let j = 0; j < pop; j++) cum[j] = s += p[j] as number;
      for (let i = 0; i < m; i++) res[i] = Math.min(search(cum, u() * s), pop - 1);
    }
  } else if (p === undefined) {
    const perm = new Float64Array(pop);
    for (let j = 0; j < pop; j++) perm[j] = j;
    for (let i = 0; i < m; i++) {
      const j = i + Math.min(pop - i - 1, Math.floor(u() * (pop - i)));
      const t = perm[i] as number;
      perm[i] = perm[j] as number;
      perm[j] = t;
      res[i] = perm[i] as number;
    }
  } else {
    const w = Float64Array.from(p);
    for (let i = 0; i < m; i++) {
      let total = 0;
      for (let j = 0; j < pop; j++) total += w[j] as number;
      let r = u() * total;
      let pick = -1;
      for (let j = 0; j < pop; j++) {
        const wj = w[j] as number;
        if (wj <= 0) continue;
        pick = j;
        if (r < wj) break;
        r -= wj;
      }
      res[i] = pick;
      w[pick] = 0;
    }
  }
  store(rt, out, req[0], res);
}

function multinomial(
  rt: CpuWasmRuntime,
  a: Attrs,
  ctx: OpContext,
  inputs: readonly TBlob<number>[],
  req: readonly OpReqType[],
  out: TBlob<number>,
): void {
  const op = '_npi_multinomial';
  const pv =
    a.pvals !== null ? Float64Array.from(a.pvals as number[]) : readF64(op, rt, inputs[0] as TBlob<number>);
  const n = a.n as number;
  if (n < 0) throw fail(op, 'n < 0', 'the number of experiments must be >= 0');
  const k = pv.length;
  if (pv.some((v) => !(v >= 0 && v <= 1)))
    throw fail(op, 'pvals < 0, pvals > 1 or pvals contains NaNs', 'each probability must be in [0, 1]');
  let head = 0;
  for (let j = 0; j < k - 1; j++) head += pv[j] as number;
  if (head > 1 + 1e-12) throw fail(op, 'sum(pvals[:-1]) > 1.0', 'the probabilities must sum to at most 1');
  const cum = new Float64Array(k);
  let s = 0;
  for (let j = 0; j < k - 1; j++) cum[j] = s += pv[j] as number;
  if (k > 0) cum[k - 1] = 1;
  const samples = k === 0 ? 0 : out.size / k;
  const res = new Float64Array(out.size);
  if (out.size > 0 && n > 0) {
    const g = generatorOf(op, ctx);
    for (let i = 0; i < samples; i++) {
      for (let t = 0; t < n; t++) {
        const c = search(cum, generateCanonicalDouble(g));
        res[i * k + Math.min(c, k - 1)] = (res[i * k + Math.min(c, k - 1)] as number) + 1;
      }
    }
  }
  store(rt, out, req[0], res);
}

function shuffle(
  rt: CpuWasmRuntime,
  ctx: OpContext,
  input: TBlob<number>,
  req: OpReqType,
  out: TBlob<number>,
): void {
  const op = '_shuffle';
  if (req === OpReq.null || out.size === 0) return;
  if (req === OpReq.add) throw fail(op, 'Shuffle does not support AddTo', "call shuffle with req 'write'");
  const rows = input.shape.length === 0 ? 1 : (input.shape[0] as number);
  const src = rt.view(input) as unknown as { slice(): { [i: number]: unknown }; length: number };
  const copy = src.slice();
  const dst = rt.view(out) as unknown as { [i: number]: unknown };
  const stride = rows === 0 ? 0 : input.size / rows;
  const perm = new Int32Array(rows);
  for (let i = 0; i < rows; i++) perm[i] = i;
  const g = generatorOf(op, ctx);
  for (let i = rows - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(generateCanonicalDouble(g) * (i + 1)));
    const t = perm[i] as number;
    perm[i] = perm[j] as number;
    perm[j] = t;
  }
  for (let i = 0; i < rows; i++) {
    const from = (perm[i] as number) * stride;
    for (let e = 0; e < stride; e++) dst[i * stride + e] = copy[from + e];
  }
}

export function installDiscrete(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel('_npi_bernoulli', 'cpu-wasm', {
    dtypes: SAMPLER_DTYPES,
    compute: (a, ctx, i, req, o) => bernoulli(rt, a, ctx, i as TBlob<number>[], req, o[0] as TBlob<number>),
  });
  registry.registerKernel('_npi_choice', 'cpu-wasm', {
    dtypes: SAMPLER_DTYPES,
    compute: (a, ctx, i, req, o) => choice(rt, a, ctx, i as TBlob<number>[], req, o[0] as TBlob<number>),
  });
  registry.registerKernel('_npi_multinomial', 'cpu-wasm', {
    dtypes: SAMPLER_DTYPES,
    compute: (a, ctx, i, req, o) => multinomial(rt, a, ctx, i as TBlob<number>[], req, o[0] as TBlob<number>),
  });
  registry.registerKernel('_shuffle', 'cpu-wasm', {
    dtypes: Object.keys(DType) as (keyof typeof DType)[],
    compute: (_a, ctx, i, req, o) =>
      shuffle(rt, ctx, i[0] as TBlob<number>, req[0] as OpReqType, o[0] as TBlob<number>),
  });
}
