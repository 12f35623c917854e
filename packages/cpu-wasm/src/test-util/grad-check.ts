/**
 * Numerical gradient check of an op's declared gradient (`registry.gradient(op)`), without the
 * autograd tape: the gradient's `build` runs through a GradBuilder whose values are host arrays and
 * whose ops run on cpu-wasm through the op harness, and its result is compared with central
 * differences of L = Σ_k <ograd_k, output_k> over the visible outputs, in float64.
 *
 * The builder also enforces the gradient's declarations: reading an input or output it did not
 * declare (the tape would not have kept it) fails the check. Test-only; not exported.
 */
import { DType, type DTypeName, type Shape, shapeSize } from '@mx/base';
import { type GradBuilder, resolveNeeds } from '@mx/ops';
import type { HostArray, OpHarness } from './run-op.js';

export interface GradCheckOptions {
  readonly params?: Record<string, unknown>;
  /** Inputs not differentiated (integer indices): their gradient must be null. */
  readonly noGrad?: readonly number[];
  /** Central-difference step (default 1e-6). */
  readonly eps?: number;
  readonly rtol?: number;
  readonly atol?: number;
  readonly seed?: number;
  readonly isTrain?: boolean;
}

export interface GradCheckResult {
  /** The gradient per input as the builder returned it (null: none). */
  readonly analytic: (number[] | null)[];
  /** Central differences per checked input (null for `noGrad` and non-float inputs). */
  readonly numeric: (number[] | null)[];
  /** Ops the builder ran, in order. */
  readonly ops: readonly string[];
}

const isFloat = (d: DTypeName) => d === 'float32' || d === 'float64';

/** A small deterministic generator (mulberry32) for head gradients and test inputs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A float64 host array of `shape` with values uniform in [lo, hi). */
export function randArray(
  shape: Shape,
  next: () => number,
  lo = -1,
  hi = 1,
  dtype: DTypeName = 'float64',
): HostArray {
  const n = shapeSize(shape);
  const data = Array.from({ length: n }, () => lo + (hi - lo) * next());
  return { shape: [...shape], dtype, data };
}

const values = (a: HostArray): number[] => Array.from(a.data as ArrayLike<number | bigint>, Number);

const zerosLike = (shape: Shape, dtype: DTypeName): HostArray => ({
  shape: [...shape],
  dtype,
  data: DType[dtype].bigint ? new Array(shapeSize(shape)).fill(0n) : new Array(shapeSize(shape)).fill(0),
});

/**
 * Evaluate `op`'s gradient at `inputs` and its central differences; throws (with the input, the
 * element and both values) where they differ by more than atol + rtol·|numeric|.
 */
export function gradCheck(
  h: OpHarness,
  op: string,
  inputs: readonly HostArray[],
  options: GradCheckOptions = {},
): GradCheckResult {
  const params = options.params ?? {};
  const o = h.registry.get(op);
  const attrs = o.parseParams(params);
  const spec = h.registry.gradient(o);
  if (spec === undefined) throw new Error(`${op} declares no gradient`);
  const nIn = inputs.length;
  const nVis = o.numVisibleOutputs(attrs);
  const run = (ins: readonly HostArray[]) => h.run(op, ins, params, { isTrain: options.isTrain ?? false });
  const outs = run(inputs);
  const next = rng(options.seed ?? 7);
  const ograds: HostArray[] = outs.map((y, i) =>
    i < nVis && isFloat(y.dtype) ? randArray(y.shape, next, -1, 1, y.dtype) : zerosLike(y.shape, y.dtype),
  );

  const ran: string[] = [];
  let analytic: (HostArray | null)[];
  if (spec === 'zero') {
    analytic = inputs.map(() => null);
  } else {
    const inNeeds = new Set(resolveNeeds(spec.inputs, attrs, nIn, 'all'));
    const outNeeds = new Set(resolveNeeds(spec.outputs, attrs, outs.length, 'none'));
    const g: GradBuilder<HostArray> = {
      isTrain: options.isTrain ?? false,
      input: (i) => {
        if (!inNeeds.has(i)) throw new Error(`${op}'s gradient reads input ${i}, which it did not declare`);
        return inputs[i] as HostArray;
      },
      output: (i) => {
        if (!outNeeds.has(i)) throw new Error(`${op}'s gradient reads output ${i}, which it did not declare`);
        return outs[i] as HostArray;
      },
      ograd: (i) => ograds[i] as HostArray,
      hasOgrad: (i) => i < nVis,
      op: (name, ins, p) => {
        ran.push(name);
        const b = h.registry.get(name);
        const res = h.run(name, ins, p as Record<string, unknown>, { isTrain: options.isTrain ?? false });
        return res.slice(0, b.numVisibleOutputs(b.parseParams(p as Record<string, unknown>)));
      },
      op1: (name, ins, p) => g.op(name, ins, p)[0] as HostArray,
    };
    const built = spec.build(g, attrs);
    if (built.length !== nIn)
      throw new Error(`${op}'s gradient returned ${built.length} entries for ${nIn} inputs`);
    analytic = [...built];
  }
  analytic.forEach((a, i) => {
    const x = inputs[i] as HostArray;
    if (a === null) return;
    if (a.shape.join() !== x.shape.join() || a.dtype !== x.dtype)
      throw new Error(
        `${op}: gradient of input ${i} is ${a.dtype} (${a.shape}) but the input is ${x.dtype} (${x.shape})`,
      );
  });

  const loss = (ys: readonly HostArray[]) => {
    let s = 0;
    for (let k = 0; k < nVis; k++) {
      const y = ys[k] as HostArray;
      if (!isFloat(y.dtype)) continue;
      const yv = values(y);
      const gv = values(ograds[k] as HostArray);
      for (let e = 0; e < yv.length; e++) {
        const v = yv[e] as number;
        // NaN outputs (nanprod of all-NaN, ...) do not move; count them as 0.
        if (!Number.isNaN(v)) s += (gv[e] as number) * v;
      }
    }
    return s;
  };
  const eps = options.eps ?? 1e-6;
  const rtol = options.rtol ?? 1e-5;
  const atol = options.atol ?? 1e-6;
  const noGrad = new Set(options.noGrad ?? []);
  const numeric: (number[] | null)[] = inputs.map((x, i) => {
    if (noGrad.has(i) || !isFloat(x.dtype)) return null;
    const base = values(x);
    return base.map((v, j) => {
      const at = (d: number) => {
        const data = [...base];
        data[j] = v + d;
        const ins = inputs.map((y, k) => (k === i ? { ...x, data } : y));
        return loss(run(ins));
      };
      return (at(eps) - at(-eps)) / (2 * eps);
    });
  });

  const analyticValues = analytic.map((a) => (a === null ? null : values(a)));
  inputs.forEach((x, i) => {
    const a = analyticValues[i];
    if (noGrad.has(i)) {
      if (a?.some((v) => v !== 0))
        throw new Error(`${op}: input ${i} should get no gradient, got [${a.join(', ')}]`);
      return;
    }
    const num = numeric[i];
    if (num === null || num === undefined) return;
    num.forEach((n, j) => {
      const got = a == null ? 0 : (a[j] as number);
      if (!(Math.abs(got - n) <= atol + rtol * Math.abs(n)))
        throw new Error(
          `${op} ${JSON.stringify(params)}: d/d input ${i} (${x.shape}) element ${j}: gradient ${got}, ` +
            `central difference ${n}\n  gradient: [${(a ?? []).map((v) => v.toFixed(6)).join(', ')}]\n` +
            `  numeric:  [${num.map((v) => v.toFixed(6)).join(', ')}]`,
        );
    });
  });
  return { analytic: analyticValues, numeric, ops: ran };
}
