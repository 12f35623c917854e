/**
 * The metric base class (MXNet `gluon.metric.EvalMetric`, = 1.x `mx.metric.EvalMetric`).
 *
 * A metric reads values, so `update` is async (`await acc.update([y], [out])`). Every built-in
 * works in two phases: `stage(labels, preds)` reads the arrays (`await x.data()`) and computes the
 * batch's contribution in float64 on the host without touching the metric, and the function it
 * returns applies it. So a bad batch (mismatched shapes, a failed array) changes nothing, and a
 * CompositeEvalMetric applies a batch to all its children or to none. The running state keeps the
 * 1.x local/global split (`resetLocal`, `getGlobal`) next to 2.0's fields (`sumMetric`, `numInst`).
 */
import { DType, fromBFloat16Bits, fromHalfBits, MXNetError, shapeToString } from '@mx/base';
import { NDArray } from '@mx/ndarray';

/** One array or a list of them (MXNet wraps a single NDArray in a list). */
export type MetricInput = NDArray | readonly NDArray[];

/** What `stage` returns: applies the staged batch to the metric. */
export type MetricCommit = () => void | Promise<void>;

/** Values of an array read back to the host, as float64, with its shape. */
export interface HostTensor {
  readonly data: Float64Array;
  readonly shape: readonly number[];
}

/** Options every metric takes. */
export interface MetricOptions {
  /** Display name (each metric has MXNet's default). */
  readonly name?: string;
  /** Predictions `updateDict` uses, in order (default: all). */
  readonly outputNames?: readonly string[] | null;
  /** Labels `updateDict` uses, in order (default: all). */
  readonly labelNames?: readonly string[] | null;
}

/** Read an array's values as float64 (after its pending writes; rejects with its failure). */
export async function readHost(a: NDArray): Promise<HostTensor> {
  if (!(a instanceof NDArray)) {
    throw new MXNetError('metrics take NDArrays', {
      op: 'metric.update',
      hint: 'pass labels and preds as NDArrays',
    });
  }
  const raw = await a.data();
  const data = new Float64Array(raw.length);
  if (a.dtype === 'float16') for (let i = 0; i < raw.length; i++) data[i] = fromHalfBits(raw[i] as number);
  else if (a.dtype === 'bfloat16')
    for (let i = 0; i < raw.length; i++) data[i] = fromBFloat16Bits(raw[i] as number);
  else if (DType[a.dtype].bigint) for (let i = 0; i < raw.length; i++) data[i] = Number(raw[i] as bigint);
  else for (let i = 0; i < raw.length; i++) data[i] = Number(raw[i]);
  return { data, shape: a.shape };
}

/** `input` as a list (null/undefined → empty, as Loss accepts `update(null, preds)`). */
export function toList(input: MetricInput | null | undefined, what = 'input'): readonly NDArray[] {
  if (input === null || input === undefined) return [];
  if (input instanceof NDArray) return [input];
  if (!Array.isArray(input) || !input.every((x) => x instanceof NDArray)) {
    throw new MXNetError(`${what} must be an NDArray or a list of NDArrays`, { op: 'metric.update' });
  }
  return input;
}

/**
 * MXNet `check_label_shapes`: as many labels as predictions (wrapping single arrays in lists).
 * The error names both counts and every shape.
 */
export function checkLabelShapes(
  labels: MetricInput | null | undefined,
  preds: MetricInput | null | undefined,
  op = 'metric.update',
): [readonly NDArray[], readonly NDArray[]] {
  const ls = toList(labels, 'labels');
  const ps = toList(preds, 'preds');
  if (ls.length !== ps.length) {
    const shapes = (xs: readonly NDArray[]) => `[${xs.map((x) => shapeToString(x.shape)).join(', ')}]`;
    throw new MXNetError(
      `Shape of labels ${ls.length} does not match shape of predictions ${ps.length} ` +
        `(labels ${shapes(ls)}, predictions ${shapes(ps)})`,
      {
        op,
        shapes: [...ls.map((x) => x.shape), ...ps.map((x) => x.shape)],
        hint: 'pass one prediction per label',
      },
    );
  }
  return [ls, ps];
}

/** MXNet `check_label_shapes(..., shape=True)` for host tensors: identical shapes, else an error. */
export function checkSameShape(op: string, label: HostTensor, pred: HostTensor): void {
  const same = label.shape.length === pred.shape.length && label.shape.every((d, i) => d === pred.shape[i]);
  if (!same) throwShapeMismatch(op, label.shape, pred.shape);
}

/** The mismatch error: "Shape of labels (a) does not match shape of predictions (b)". */
export function throwShapeMismatch(
  op: string,
  labelShape: readonly number[],
  predShape: readonly number[],
  hint = 'give labels and predictions matching shapes',
): never {
  throw new MXNetError(
    `Shape of labels ${shapeToString(labelShape)} does not match shape of predictions ${shapeToString(predShape)}`,
    { op, shapes: [labelShape, predShape], hint },
  );
}

/** Read every (label, pred) pair, then evaluate each on the host (nothing is applied yet). */
export async function evaluatePairs<T>(
  labels: readonly NDArray[],
  preds: readonly NDArray[],
  evaluate: (label: HostTensor, pred: HostTensor) => T,
): Promise<T[]> {
  const n = Math.min(labels.length, preds.length);
  const read = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      Promise.all([readHost(labels[i] as NDArray), readHost(preds[i] as NDArray)]),
    ),
  );
  return read.map(([l, p]) => evaluate(l, p));
}

/** Arrays from a dict (object or Map) by name, or all of them in order. */
function pick(
  dict: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
  names: readonly string[] | null,
  what: string,
): NDArray[] {
  const get = (k: string) => (dict instanceof Map ? dict.get(k) : (dict as Record<string, NDArray>)[k]);
  const all = dict instanceof Map ? [...dict.values()] : Object.values(dict);
  if (names === null) return all;
  return names.map((k) => {
    const v = get(k);
    if (v === undefined) {
      throw new MXNetError(`no ${what} named '${k}'`, {
        op: 'metric.updateDict',
        hint: `pass a ${what} for ${k}`,
      });
    }
    return v;
  });
}

/** A metric's name and value: `[name, value]`, or lists of both for a composite. */
export type NameValue<N extends string | string[], V extends number | number[]> = [N, V];

/**
 * Base of every metric. Subclasses implement `stage` (or, like MXNet subclasses, `update`
 * directly), and may override `get`. `N`/`V` are the types `get` returns (string/number, lists for
 * CompositeEvalMetric).
 */
export abstract class EvalMetric<N extends string | string[] = string, V extends number | number[] = number> {
  /** Registry name of the class in `getConfig()` (MXNet: the class name). */
  static readonly mxnetName: string | undefined = undefined;
  name: string;
  readonly outputNames: readonly string[] | null;
  readonly labelNames: readonly string[] | null;
  /** Running sum and count since the last reset/resetLocal (value = sumMetric / numInst). */
  sumMetric = 0;
  numInst = 0;
  /** Running sum and count since the last reset (1.x global statistics). */
  globalSumMetric = 0;
  globalNumInst = 0;
  /** Constructor arguments as MXNet names them (snake_case), for getConfig. */
  protected readonly kwargs: Readonly<Record<string, unknown>>;

  constructor(name: string, options: MetricOptions = {}, kwargs: Readonly<Record<string, unknown>> = {}) {
    this.name = String(name);
    this.outputNames = options.outputNames ? Object.freeze([...options.outputNames]) : null;
    this.labelNames = options.labelNames ? Object.freeze([...options.labelNames]) : null;
    this.kwargs = Object.freeze({ ...kwargs });
  }

  /**
   * Read a batch and compute its contribution without changing the metric; the returned function
   * applies it. The default runs `update` at apply time (for subclasses that only define update).
   */
  async stage(labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    if (this.update === EvalMetric.prototype.update) {
      throw new MXNetError(`${this.constructor.name} implements neither stage nor update`, {
        op: 'metric.update',
        hint: 'override stage(labels, preds) or update(labels, preds)',
      });
    }
    return () => this.update(labels, preds);
  }

  /** Add a batch: `labels[i]` against `preds[i]` (single arrays are wrapped). */
  async update(labels: MetricInput | null, preds: MetricInput | null): Promise<void> {
    const commit = await this.stage(labels, preds);
    await commit();
  }

  /** The label and prediction lists `updateDict` would use. */
  namedInputs(
    labels: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
    preds: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
  ): [NDArray[], NDArray[]] {
    return [pick(labels, this.labelNames, 'label'), pick(preds, this.outputNames, 'output')];
  }

  /** Update with named labels and outputs, picked by `labelNames` / `outputNames` (all by default). */
  async updateDict(
    labels: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
    preds: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
  ): Promise<void> {
    const [l, p] = this.namedInputs(labels, preds);
    await this.update(l, p);
  }

  /** Add to both the local and the global running sums. */
  protected accumulate(sum: number, count: number): void {
    this.sumMetric += sum;
    this.numInst += count;
    this.globalSumMetric += sum;
    this.globalNumInst += count;
  }

  /** Clear everything. */
  reset(): void {
    this.sumMetric = 0;
    this.numInst = 0;
    this.globalSumMetric = 0;
    this.globalNumInst = 0;
  }

  /** Clear the local statistics only (1.x `reset_local`). */
  resetLocal(): void {
    this.sumMetric = 0;
    this.numInst = 0;
  }

  /** `[name, value]` since the last reset/resetLocal; NaN when nothing was seen (MXNet). */
  get(): NameValue<N, V> {
    return [this.name, this.numInst === 0 ? Number.NaN : this.sumMetric / this.numInst] as NameValue<N, V>;
  }

  /** `[name, value]` since the last reset (1.x `get_global`). */
  getGlobal(): NameValue<N, V> {
    return [
      this.name,
      this.globalNumInst === 0 ? Number.NaN : this.globalSumMetric / this.globalNumInst,
    ] as NameValue<N, V>;
  }

  /** `[[name, value], ...]` (MXNet `get_name_value`). */
  getNameValue(): [string, number][] {
    return zipNameValue(this.get());
  }

  /** `[[name, value], ...]` of the global statistics (1.x `get_global_name_value`). */
  getGlobalNameValue(): [string, number][] {
    return zipNameValue(this.getGlobal());
  }

  /** MXNet `get_config`: what `create(config)` needs to rebuild this metric (JSON-safe). */
  getConfig(): Record<string, unknown> {
    const cls = (this.constructor as typeof EvalMetric).mxnetName ?? this.constructor.name;
    return {
      ...this.kwargs,
      metric: cls,
      name: this.name,
      output_names: this.outputNames === null ? null : [...this.outputNames],
      label_names: this.labelNames === null ? null : [...this.labelNames],
    };
  }

  toString(): string {
    const pairs = this.getNameValue().map(([k, v]) => `'${k}': ${v}`);
    return `EvalMetric: {${pairs.join(', ')}}`;
  }
}

function zipNameValue([name, value]: [string | string[], number | number[]]): [string, number][] {
  const names = Array.isArray(name) ? name : [name];
  const values = Array.isArray(value) ? value : [value];
  return names.map((n, i) => [n, values[i] as number]);
}

/**
 * A metric whose state is a running (sum, count): a batch contributes `evaluate(label, pred)` per
 * (label, pred) pair. Most metrics are this.
 */
export abstract class SumMetric extends EvalMetric {
  /** The batch's [sum, count] for one pair (throws on bad input). */
  protected abstract evaluate(label: HostTensor, pred: HostTensor): readonly [number, number];

  override async stage(labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    const [ls, ps] = checkLabelShapes(labels, preds);
    const parts = await evaluatePairs(ls, ps, (l, p) => this.evaluate(l, p));
    return () => {
      for (const [s, n] of parts) this.accumulate(s, n);
    };
  }
}
