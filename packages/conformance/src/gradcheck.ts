/**
 * Numerical gradient checks (MXNet `check_numeric_gradient`) for every differentiable op, driven
 * by the golden cases: each case's floating inputs become float64 variables, the op runs under
 * autograd with a random head gradient per visible output, and the analytic input gradients are
 * compared with central differences of `f(x) = Σ head · op(x)` in float64.
 *
 * Points where the function is not differentiable (relu at 0, max ties, clip bounds, rounding)
 * appear in golden data on purpose; an element whose left and right difference quotients disagree
 * is skipped as a kink rather than reported. Large inputs are sampled (a fixed number of elements
 * per input), so the whole registry runs in seconds.
 *
 * Output layers whose declared gradient is not the derivative of their forward (SoftmaxOutput,
 * the *RegressionOutput ops, BlockGrad) are excluded by design and listed in `NOT_DERIVATIVES`;
 * the np samplers (`RANDOM_SAMPLERS`) are checked elsewhere with a reseeded generator.
 */
import { type DTypeName, isMXNetError } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { CaseArray, ConformanceCase } from './types.js';

/** Ops whose gradient is, by MXNet's definition, not the derivative of their forward output. */
export const NOT_DERIVATIVES: ReadonlySet<string> = new Set([
  'SoftmaxOutput',
  'Softmax',
  'LinearRegressionOutput',
  'LogisticRegressionOutput',
  'MAERegressionOutput',
  'BlockGrad',
  'stop_gradient',
  'make_loss',
  'MakeLoss',
  'CTCLoss',
]);

export interface GradCheckOptions {
  /** Elements checked per input (sampled when larger). Default 8. */
  readonly samplesPerInput?: number;
  readonly rtol?: number;
  readonly atol?: number;
  readonly seed?: number;
}

export interface GradCheckResult {
  readonly op: string;
  readonly name: string;
  readonly status: 'pass' | 'fail' | 'skip';
  readonly reason?: string;
  /** Elements compared (kinks excluded). */
  readonly checked: number;
}

const FLOAT = new Set<DTypeName>(['float32', 'float64', 'float16', 'bfloat16']);

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/**
 * Differentiable ops that take sparse inputs only, so no dense golden case can check them
 * numerically; their gradients are checked against NumPy by the sparse tests
 * (tools/golden/sparse/reduce.py, @mx/cpu-wasm and @mx/ndarray `sparse/reduce.test.ts`).
 */
export const SPARSE_INPUT_ONLY: ReadonlySet<string> = new Set(['_sparse_retain', '_square_sum']);

/**
 * MXNet 2.0's np samplers. Central differences cannot check them on golden cases: every call
 * redraws its noise, and gamma's implicit gradient is not the derivative of one sampler call. Their
 * gradients are checked with a reseeded generator (each sample then a function of its parameters)
 * in packages/ndarray/src/np/fns/random.test.ts, and `_backward_gamma_sample` against mpmath by
 * its np_random golden cases.
 */
export const RANDOM_SAMPLERS: ReadonlySet<string> = new Set([
  '_npi_uniform',
  '_npi_normal',
  '_npi_gamma',
  '_npi_exponential',
  '_npi_laplace',
  '_npi_logistic',
  '_npi_gumbel',
  '_npi_weibull',
  '_npi_pareto',
  '_npi_powerd',
  '_npi_rayleigh',
  '_npi_bernoulli',
  '_npi_choice',
  '_npi_multinomial',
]);

/** Why a case cannot be gradient-checked, or undefined. */
export function gradCheckSkip(runtime: Runtime, c: ConformanceCase): string | undefined {
  if (c.error !== undefined || c.outputs === undefined) return 'error case';
  if (c.skip !== undefined) return c.skip;
  const op = runtime.registry.find(c.op);
  if (op === undefined) return 'unknown op';
  if (NOT_DERIVATIVES.has(op.name)) return 'gradient is not the derivative of the forward by definition';
  if (RANDOM_SAMPLERS.has(op.name)) return 'random sampler (noise redrawn per call)';
  const spec = runtime.registry.gradient(op);
  if (spec === undefined) return 'not differentiable';
  if (spec === 'zero') return 'zero gradient';
  const attrs = op.parseParams(c.params);
  const random = op.resourceRequest(attrs).some((r) => r !== 'tempSpace');
  if (random && c.isTrain === true) return 'random in training mode';
  if (!c.inputs.some((a) => FLOAT.has(a.dtype))) return 'no floating-point input';
  if (!c.outputs.some((a) => FLOAT.has(a.dtype))) return 'no floating-point output';
  // Degenerate points are outside the derivative's domain: NaN/Inf inputs, division by zero.
  if (/by-zero|\bnan\b|\binf\b/i.test(c.name)) return 'degenerate point (NaN, Inf or division by zero)';
  if (
    c.inputs.some(
      (a) => FLOAT.has(a.dtype) && Array.from(a.data as Float64Array).some((v) => !Number.isFinite(v)),
    )
  )
    return 'non-finite input';
  const half = (a: CaseArray) => a.dtype === 'float16' || a.dtype === 'bfloat16';
  if (c.inputs.some(half) || c.outputs.some(half)) return 'half precision';
  return undefined;
}

/** Check one case; throws nothing (failures and skips are results). */
export async function gradCheckCase(
  runtime: Runtime,
  c: ConformanceCase,
  options: GradCheckOptions = {},
): Promise<GradCheckResult> {
  const base = { op: c.op, name: c.name };
  const why = gradCheckSkip(runtime, c);
  if (why !== undefined) return { ...base, status: 'skip', reason: why, checked: 0 };
  const { nd, autograd } = runtime;
  const isTrain = c.isTrain ?? false;
  const rand = rng((options.seed ?? 7) + c.name.length * 7919);
  const rtol = options.rtol ?? 1e-4;
  const atol = options.atol ?? 1e-6;
  const samples = options.samplesPerInput ?? 8;
  const host: CaseArray[] = c.inputs.map((a) =>
    a.dtype === 'float32'
      ? { shape: a.shape, dtype: 'float64', data: Float64Array.from(a.data as Float32Array) }
      : a,
  );
  const make = (a: CaseArray): NDArray => nd.array(a.data, { shape: a.shape, dtype: a.dtype });

  const run = (inputs: readonly NDArray[]): NDArray[] => runtime.invoke(c.op, inputs, c.params, { isTrain });
  let heads: Float64Array[] = [];
  // Outputs kept in float32 (a dtype param) make f noisy at 1e-7: wider steps, looser tolerance.
  let lowPrecision = false;
  let analytic: (Float64Array | undefined)[] = [];
  try {
    await nd.scope(async () => {
      const xs = host.map(make);
      xs.forEach((x, i) => {
        if (FLOAT.has((host[i] as CaseArray).dtype)) x.attachGrad();
      });
      const outs = autograd.record(() => run(xs), { trainMode: isTrain });
      lowPrecision = outs.some((o) => o.dtype === 'float32');
      // Outputs that are hidden by default (BatchNorm's mean/var shown by output_mean_var) carry
      // no gradient in MXNet: they get zero head gradients.
      const op = runtime.registry.get(c.op);
      const hidesExtras = op.def.numVisibleOutputs !== undefined;
      heads = outs.map((o, k) =>
        Float64Array.from({ length: o.size }, () => (k > 0 && hidesExtras ? 0 : rand() * 2 - 1)),
      );
      const floatOuts = outs.filter((o) => FLOAT.has(o.dtype));
      if (floatOuts.length === 0) throw new Error('no floating-point output');
      autograd.backward(floatOuts, {
        headGrads: floatOuts.map((o) =>
          nd
            .array(heads[outs.indexOf(o)] as Float64Array, { shape: o.shape, dtype: 'float64' })
            .astype(o.dtype),
        ),
      });
      analytic = [];
      for (const x of xs) {
        const g = x.grad;
        analytic.push(g === undefined ? undefined : Float64Array.from((await g.data()) as Float64Array));
      }
    });
  } catch (e) {
    if (isMXNetError(e) && /not supported|no kernel/.test(e.message))
      return { ...base, status: 'skip', reason: `float64: ${e.message.split('\n')[0]}`, checked: 0 };
    return {
      ...base,
      status: 'fail',
      reason: `analytic: ${e instanceof Error ? e.message.split('\n')[0] : e}`,
      checked: 0,
    };
  }

  // f(inputs) = Σ head · outputs, evaluated in float64 on the host.
  const f = async (inputs: CaseArray[]): Promise<number> =>
    nd.scope(async () => {
      const outs = autograd.pause(() => run(inputs.map(make)), { trainMode: isTrain });
      let acc = 0;
      for (let k = 0; k < outs.length; k++) {
        const o = outs[k] as NDArray;
        if (!FLOAT.has(o.dtype)) continue;
        const d = (await o.data()) as Float32Array | Float64Array;
        const h = heads[k] as Float64Array;
        for (let j = 0; j < d.length; j++) acc += (h[j] as number) * (d[j] as number);
      }
      return acc;
    });

  let checked = 0;
  const problems: string[] = [];
  const op = runtime.registry.get(c.op);
  // Inputs the op writes in place (BatchNorm's moving statistics) get no gradient in MXNet.
  const mutated = new Set(op.mutateInputs(op.parseParams(c.params)));
  for (let i = 0; i < host.length; i++) {
    const a = host[i] as CaseArray;
    if (!FLOAT.has(a.dtype) || a.data.length === 0 || mutated.has(i)) continue;
    const g = analytic[i];
    const n = a.data.length;
    const picks =
      n <= samples
        ? Array.from({ length: n }, (_, j) => j)
        : Array.from({ length: samples }, () => Math.floor(rand() * n));
    for (const j of picks) {
      const x0 = a.data[j] as number;
      const eps = (lowPrecision ? 1e-3 : 1e-5) * Math.max(1, Math.abs(x0));
      const at = async (v: number): Promise<number> => {
        const data = Float64Array.from(a.data as Float64Array);
        data[j] = v;
        const inputs = host.slice();
        inputs[i] = { shape: a.shape, dtype: 'float64', data };
        return f(inputs);
      };
      const fp = await at(x0 + eps);
      const fm = await at(x0 - eps);
      const f0 = await at(x0);
      const right = (fp - f0) / eps;
      const left = (f0 - fm) / eps;
      const scale = Math.max(1, Math.abs(right), Math.abs(left));
      const kink = (lowPrecision ? 1e-2 : 1e-3) * scale;
      if (!Number.isFinite(fp) || !Number.isFinite(fm) || Math.abs(right - left) > kink) continue;
      const numeric = (fp - fm) / (2 * eps);
      const got = g === undefined ? 0 : (g[j] as number);
      checked++;
      const tol = lowPrecision ? Math.max(rtol, 2e-3) : rtol;
      if (Math.abs(got - numeric) > atol + tol * Math.max(Math.abs(numeric), Math.abs(got)) + 1e-6 * scale) {
        if (problems.length < 3) problems.push(`input ${i}[${j}]: analytic ${got}, numeric ${numeric}`);
      }
    }
  }
  if (problems.length > 0) return { ...base, status: 'fail', reason: problems.join('; '), checked };
  return { ...base, status: 'pass', checked };
}
