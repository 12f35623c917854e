/**
 * Loss (a metric that averages what the network outputs), CustomMetric (a user function per batch)
 * and `np` (a CustomMetric whose function receives host copies).
 *
 * MXNet 2.0's CustomMetric hands the function device arrays and `np()` only renames it; in 1.x both
 * received NumPy arrays. Here `CustomMetric` passes NDArrays (the function may run ops and `await`
 * reads; it owns anything it creates) and `np()` passes `HostTensor`s (float64 values + shape).
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import {
  checkLabelShapes,
  EvalMetric,
  type HostTensor,
  type MetricCommit,
  type MetricInput,
  type MetricOptions,
  readHost,
  toList,
} from './base.js';

/** Mean of every value of the predictions (labels are ignored and may be null). */
export class Loss extends EvalMetric {
  static override readonly mxnetName: string = 'Loss';

  constructor(options: MetricOptions = {}, defaultName = 'loss') {
    const { name = defaultName, ...rest } = options;
    super(name, rest);
  }

  override async stage(_labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    const ps = toList(preds, 'preds');
    const parts = await Promise.all(
      ps.map(async (p) => {
        const { data } = await readHost(p);
        let s = 0;
        for (const v of data) s += v;
        return [s, data.length] as const;
      }),
    );
    return () => {
      for (const [s, n] of parts) this.accumulate(s, n);
    };
  }
}

/** MXNet's dummy metric for Torch criterions: a Loss named 'torch'. */
export class Torch extends Loss {
  static override readonly mxnetName = 'Torch';

  constructor(options: MetricOptions = {}) {
    super(options, 'torch');
  }
}

/** What a custom evaluation function returns: a value (counted once) or `[sum, count]`. */
export type CustomResult = number | readonly [number, number];

/** A custom evaluation function on one (label, pred) pair of device arrays. */
export type FEval = (label: NDArray, pred: NDArray) => CustomResult | Promise<CustomResult>;

export interface CustomMetricOptions extends MetricOptions {
  /** Allow more predictions than labels (RNN states in the outputs); extra ones are ignored. */
  readonly allowExtraOutputs?: boolean;
}

function checkResult(name: string, r: unknown): readonly [number, number] {
  if (typeof r === 'number') return [r, 1];
  if (Array.isArray(r) && r.length === 2 && typeof r[0] === 'number' && typeof r[1] === 'number') {
    return [r[0], r[1]];
  }
  throw new MXNetError(`custom metric ${name} returned ${String(r)}`, {
    op: 'metric.CustomMetric',
    hint: 'return a number, or [sum, count]',
  });
}

/** MXNet's default name of a custom metric: the function's name, `custom(...)` around anonymous ones. */
function defaultName(feval: { name: string }): string {
  const n = feval.name === '' ? '<lambda>' : feval.name;
  return n.includes('<') ? `custom(${n})` : n;
}

/** A metric computed by `feval(label, pred)` on each pair. */
export class CustomMetric extends EvalMetric {
  static override readonly mxnetName = 'CustomMetric';
  readonly feval: FEval;
  readonly allowExtraOutputs: boolean;

  constructor(feval: FEval, options: CustomMetricOptions = {}) {
    if (typeof feval !== 'function') {
      throw new MXNetError('CustomMetric needs an evaluation function', { op: 'metric.CustomMetric' });
    }
    const { name = defaultName(feval), allowExtraOutputs = false, ...rest } = options;
    super(name, rest, { allow_extra_outputs: allowExtraOutputs });
    this.feval = feval;
    this.allowExtraOutputs = allowExtraOutputs;
  }

  override async stage(labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    const [ls, ps] = this.allowExtraOutputs
      ? [toList(labels, 'labels'), toList(preds, 'preds')]
      : checkLabelShapes(labels, preds, 'metric.CustomMetric');
    const n = Math.min(ls.length, ps.length);
    const parts: (readonly [number, number])[] = [];
    for (let i = 0; i < n; i++)
      parts.push(checkResult(this.name, await this.feval(ls[i] as NDArray, ps[i] as NDArray)));
    return () => {
      for (const [s, c] of parts) this.accumulate(s, c);
    };
  }

  override getConfig(): Record<string, unknown> {
    throw new MXNetError('CustomMetric cannot be serialized', {
      op: 'metric.CustomMetric',
      hint: 'rebuild it from its function',
    });
  }
}

/** A custom evaluation function on host copies of one (label, pred) pair. */
export type HostFEval = (label: HostTensor, pred: HostTensor) => CustomResult;

/**
 * MXNet `metric.np`: a CustomMetric whose function receives host copies (float64 values + shape),
 * named after the function unless `name` is given.
 */
export function np(fn: HostFEval, options: CustomMetricOptions = {}): CustomMetric {
  const feval: FEval = async (label, pred) => fn(await readHost(label), await readHost(pred));
  Object.defineProperty(feval, 'name', { value: fn.name });
  return new CustomMetric(feval, options);
}
