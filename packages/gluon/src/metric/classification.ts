/**
 * Classification metrics (MXNet 2.0 `gluon.metric`): Accuracy, TopKAccuracy, BinaryAccuracy, and
 * the confusion-count metrics F1, Fbeta and MCC.
 *
 * F1/Fbeta/MCC follow 2.0: true/false positive/negative counts accumulate over every batch and the
 * score is computed from the totals, so 'macro' averages over classes, not over batches (1.x's
 * 'macro' averaged per-batch F1 values; MCC's 1.x 'average' option is gone in 2.0, as here).
 * Binary predictions: an (n, 2) array uses its column 1 as the positive score, an array shaped like
 * the labels is the score itself; a score above `threshold` is positive (class 1).
 */
import { MXNetError, shapeToString } from '@mx/base';
import {
  checkLabelShapes,
  EvalMetric,
  evaluatePairs,
  type HostTensor,
  type MetricCommit,
  type MetricInput,
  type MetricOptions,
  SumMetric,
  throwShapeMismatch,
} from './base.js';
import { argmax, maxOf, toInt } from './host-math.js';

function sameShape(a: HostTensor, b: HostTensor): boolean {
  return a.shape.length === b.shape.length && a.shape.every((d, i) => d === b.shape[i]);
}

/** Fraction of predictions equal to the label; predictions of another shape are argmax'ed on `axis`. */
export class Accuracy extends SumMetric {
  static override readonly mxnetName = 'Accuracy';
  readonly axis: number;

  constructor(options: MetricOptions & { readonly axis?: number } = {}) {
    const { axis = 1, name = 'accuracy', ...rest } = options;
    super(name, rest, { axis });
    this.axis = axis;
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    const p = sameShape(pred, label) ? pred : argmax('metric.Accuracy', pred, this.axis);
    const predicted = toInt(p.data);
    const truth = toInt(label.data);
    if (predicted.length !== truth.length) throwShapeMismatch('metric.Accuracy', label.shape, pred.shape);
    let correct = 0;
    for (let i = 0; i < truth.length; i++) if (predicted[i] === truth[i]) correct++;
    return [correct, truth.length];
  }
}

/** Fraction of samples whose label is among the `topK` highest-scored classes (topK > 1). */
export class TopKAccuracy extends SumMetric {
  static override readonly mxnetName = 'TopKAccuracy';
  readonly topK: number;

  constructor(options: MetricOptions & { readonly topK?: number } = {}) {
    const { topK = 1, name = 'top_k_accuracy', ...rest } = options;
    if (!Number.isInteger(topK) || topK <= 1) {
      throw new MXNetError(`Please use Accuracy if top_k is no more than 1 (got ${topK})`, {
        op: 'metric.TopKAccuracy',
        params: { top_k: topK },
      });
    }
    super(`${name}_${topK}`, rest, { top_k: topK });
    this.topK = topK;
  }

  /** The config names the metric without the `_k` suffix the constructor adds (MXNet keeps it: a
   * round trip through MXNet's config appends a second suffix). */
  override getConfig(): Record<string, unknown> {
    const config = super.getConfig();
    const suffix = `_${this.topK}`;
    return this.name.endsWith(suffix) ? { ...config, name: this.name.slice(0, -suffix.length) } : config;
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    if (pred.shape.length !== 2) {
      throw new MXNetError(`predictions must be (batch, classes), got ${shapeToString(pred.shape)}`, {
        op: 'metric.TopKAccuracy',
        shapes: [label.shape, pred.shape],
        hint: 'pass class scores, one row per sample',
      });
    }
    const [rows, classes] = pred.shape as [number, number];
    const truth = toInt(label.data);
    if (truth.length !== rows) throwShapeMismatch('metric.TopKAccuracy', label.shape, pred.shape);
    let correct = 0;
    for (let r = 0; r < rows; r++) {
      const l = truth[r] as number;
      if (l < 0 || l >= classes) continue;
      const score = pred.data[r * classes + l] as number;
      let above = 0;
      for (let j = 0; j < classes; j++) if ((pred.data[r * classes + j] as number) > score) above++;
      if (above < this.topK) correct++;
    }
    return [correct, rows];
  }
}

/** Fraction of (multi-label) binary decisions `pred > threshold` equal to the 0/1 labels. */
export class BinaryAccuracy extends SumMetric {
  static override readonly mxnetName = 'BinaryAccuracy';
  /** A scalar, or one threshold per class (last axis). */
  readonly threshold: number | readonly number[];

  constructor(options: MetricOptions & { readonly threshold?: number | readonly number[] } = {}) {
    const { threshold = 0.5, name = 'binary_accuracy', ...rest } = options;
    super(name, rest, { threshold: typeof threshold === 'number' ? threshold : [...threshold] });
    if (
      typeof threshold !== 'number' &&
      !(Array.isArray(threshold) && threshold.every((t) => typeof t === 'number'))
    ) {
      throw new MXNetError(`${String(threshold)} is a wrong type for threshold`, {
        op: 'metric.BinaryAccuracy',
        hint: 'pass a number or one number per class',
      });
    }
    this.threshold = typeof threshold === 'number' ? threshold : Object.freeze([...threshold]);
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    const predicted = threshold('metric.BinaryAccuracy', pred, this.threshold);
    const truth = toInt(label.data);
    if (predicted.length !== truth.length)
      throwShapeMismatch('metric.BinaryAccuracy', label.shape, pred.shape);
    let correct = 0;
    for (let i = 0; i < truth.length; i++) if (predicted[i] === truth[i]) correct++;
    return [correct, truth.length];
  }
}

/** MXNet `predict_with_threshold`: 1 where pred > threshold (per class along the last axis). */
function threshold(op: string, pred: HostTensor, t: number | readonly number[]): Int32Array {
  const out = new Int32Array(pred.data.length);
  if (typeof t === 'number') {
    for (let i = 0; i < out.length; i++) out[i] = (pred.data[i] as number) > t ? 1 : 0;
    return out;
  }
  const classes = pred.shape[pred.shape.length - 1] ?? 1;
  if (t.length !== classes) {
    throw new MXNetError(`shape mismatch: ${classes} vs. ${t.length}`, {
      op,
      shapes: [pred.shape, [t.length]],
      hint: 'give one threshold per class (the last axis of the predictions)',
    });
  }
  for (let i = 0; i < out.length; i++) out[i] = (pred.data[i] as number) > (t[i % classes] as number) ? 1 : 0;
  return out;
}

export type ClassType = 'binary' | 'multiclass' | 'multilabel';

/** Per-class true/false positive/negative counts. */
export interface ConfusionCounts {
  readonly classes: number;
  readonly tp: Float64Array;
  readonly fp: Float64Array;
  readonly fn: Float64Array;
  readonly tn: Float64Array;
}

function emptyCounts(classes: number): ConfusionCounts {
  const z = () => new Float64Array(classes);
  return { classes, tp: z(), fp: z(), fn: z(), tn: z() };
}

function addCounts(into: ConfusionCounts, c: ConfusionCounts): void {
  for (let k = 0; k < c.classes; k++) {
    into.tp[k] = (into.tp[k] as number) + (c.tp[k] as number);
    into.fp[k] = (into.fp[k] as number) + (c.fp[k] as number);
    into.fn[k] = (into.fn[k] as number) + (c.fn[k] as number);
    into.tn[k] = (into.tn[k] as number) + (c.tn[k] as number);
  }
}

/** MXNet `_ClassificationMetrics.update_stats` for one (label, pred) pair. */
function batchCounts(
  op: string,
  classType: ClassType,
  t: number,
  label: HostTensor,
  pred: HostTensor,
): ConfusionCounts {
  const truthAll = toInt(label.data);
  let predicted: Int32Array;
  let truth: Int32Array;
  let classes: number;
  if (classType === 'binary') {
    classes = 1;
    if (maxOf(truthAll) > 1) {
      throw new MXNetError('Wrong label for binary classification.', {
        op,
        shapes: [label.shape],
        hint: 'binary labels are 0 and 1; use classType multiclass for more classes',
      });
    }
    let score = pred;
    const last = pred.shape[pred.shape.length - 1] ?? 1;
    if (!sameShape(pred, label)) {
      if (last > 2) {
        throw new MXNetError(
          `The shape of prediction ${shapeToString(pred.shape)} is wrong for binary classification.`,
          {
            op,
            shapes: [label.shape, pred.shape],
            hint: 'pass (n, 2) class scores or one positive score per label',
          },
        );
      }
      if (last === 2) {
        const positive = new Float64Array(pred.data.length / 2);
        for (let i = 0; i < positive.length; i++) positive[i] = pred.data[2 * i + 1] as number;
        score = { data: positive, shape: [positive.length] };
      }
    }
    predicted = threshold(op, score, t);
    truth = truthAll;
  } else if (classType === 'multiclass') {
    classes = pred.shape[pred.shape.length - 1] ?? 1;
    if (maxOf(truthAll) >= classes) {
      throw new MXNetError('pred contains fewer classes than label!', {
        op,
        shapes: [label.shape, pred.shape],
        hint: `labels must be < ${classes}, the size of the predictions' last axis`,
      });
    }
    const picked = toInt(argmax(op, pred, -1).data);
    predicted = oneHot(picked, classes);
    truth = oneHot(truthAll, classes);
  } else {
    classes = pred.shape[pred.shape.length - 1] ?? 1;
    if (!sameShape(pred, label)) {
      throwShapeMismatch(
        op,
        label.shape,
        pred.shape,
        'multilabel labels must have the shape of the predictions',
      );
    }
    predicted = threshold(op, pred, t);
    truth = truthAll;
  }
  if (predicted.length !== truth.length) throwShapeMismatch(op, label.shape, pred.shape);
  const c = emptyCounts(classes);
  for (let i = 0; i < truth.length; i++) {
    const k = i % classes;
    const p = predicted[i] as number;
    const l = truth[i] as number;
    if (p === 1 && l === 1) c.tp[k] = (c.tp[k] as number) + 1;
    else if (p === 1 && l === 0) c.fp[k] = (c.fp[k] as number) + 1;
    else if (p === 0 && l === 1) c.fn[k] = (c.fn[k] as number) + 1;
    else if (p === 0 && l === 0) c.tn[k] = (c.tn[k] as number) + 1;
  }
  return c;
}

/** Rows of one-hot vectors (MXNet `one_hot`: labels outside [0, classes) give a zero row). */
function oneHot(indices: Int32Array, classes: number): Int32Array {
  const out = new Int32Array(indices.length * classes);
  for (let i = 0; i < indices.length; i++) {
    const j = indices[i] as number;
    if (j >= 0 && j < classes) out[i * classes + j] = 1;
  }
  return out;
}

/** Samples counted (MXNet `total_examples`: the four counts of class 0). */
function totalOf(c: ConfusionCounts | undefined): number {
  if (c === undefined) return 0;
  return (c.tp[0] as number) + (c.fp[0] as number) + (c.fn[0] as number) + (c.tn[0] as number);
}

/** F-beta from counts: macro = mean over classes, micro = from the summed counts (MXNet 2.0). */
export function fscoreOf(c: ConfusionCounts, beta: number, average: 'micro' | 'macro'): number {
  const b2 = beta * beta;
  if (average === 'macro') {
    let sum = 0;
    for (let k = 0; k < c.classes; k++) {
      const tp = c.tp[k] as number;
      const p = tp / Math.max(tp + (c.fp[k] as number), 1e-12);
      const r = tp / Math.max(tp + (c.fn[k] as number), 1e-12);
      sum += ((1 + b2) * p * r) / Math.max(b2 * p + r, 1e-12);
    }
    return sum / c.classes;
  }
  const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
  const tp = sum(c.tp);
  const p = tp / Math.max(tp + sum(c.fp), 1e-12);
  const r = tp / Math.max(tp + sum(c.fn), 1e-12);
  return p + r > 0 ? ((1 + b2) * p * r) / (b2 * p + r) : 0;
}

/** Matthews correlation from binary counts; zero factors of the denominator count as 1 (MXNet). */
export function matthewsOf(c: ConfusionCounts): number {
  if (totalOf(c) === 0) return 0;
  const [tp, fp, fn, tn] = [c.tp[0], c.fp[0], c.fn[0], c.tn[0]] as [number, number, number, number];
  let denom = 1;
  for (const t of [tp + fp, tp + fn, tn + fp, tn + fn]) if (t !== 0) denom *= t;
  return (tp * tn - fp * fn) / Math.sqrt(denom);
}

/** Base of F1/Fbeta/MCC: accumulates confusion counts (local and global) and scores the totals. */
abstract class CountMetric extends EvalMetric {
  protected readonly classType: ClassType;
  protected readonly thresholdValue: number;
  #local: ConfusionCounts | undefined;
  #global: ConfusionCounts | undefined;

  constructor(
    name: string,
    options: MetricOptions,
    kwargs: Record<string, unknown>,
    classType: ClassType,
    t: number,
  ) {
    super(name, options, kwargs);
    if (!['binary', 'multiclass', 'multilabel'].includes(classType)) {
      throw new MXNetError(
        `Wrong class_type ${classType}! Only supports ['binary', 'multiclass', 'multilabel']`,
        {
          op: `metric.${name}`,
          params: { class_type: classType },
        },
      );
    }
    if (typeof t !== 'number') {
      throw new MXNetError(`${String(t)} is a wrong type for threshold`, { op: `metric.${name}` });
    }
    this.classType = classType;
    this.thresholdValue = t;
  }

  /** The score of a set of counts. */
  protected abstract score(c: ConfusionCounts): number;

  override async stage(labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    const op = `metric.${this.name}`;
    const [ls, ps] = checkLabelShapes(labels, preds, op);
    const parts = await evaluatePairs(ls, ps, (l, p) =>
      batchCounts(op, this.classType, this.thresholdValue, l, p),
    );
    let known = this.#global?.classes ?? this.#local?.classes;
    for (const c of parts) {
      if (known !== undefined && known !== c.classes) {
        throw new MXNetError(`Input number of classes has changed from ${known} to ${c.classes}`, { op });
      }
      known = c.classes;
    }
    return () => {
      for (const c of parts) {
        this.#local ??= emptyCounts(c.classes);
        this.#global ??= emptyCounts(c.classes);
        addCounts(this.#local, c);
        addCounts(this.#global, c);
      }
      this.#refresh();
    };
  }

  /** Keep MXNet's fields in step: sum = score · total, count = total. */
  #refresh(): void {
    const local = totalOf(this.#local);
    const global = totalOf(this.#global);
    this.numInst = local;
    this.sumMetric = local === 0 ? 0 : this.score(this.#local as ConfusionCounts) * local;
    this.globalNumInst = global;
    this.globalSumMetric = global === 0 ? 0 : this.score(this.#global as ConfusionCounts) * global;
  }

  override get(): [string, number] {
    return [this.name, this.numInst === 0 ? Number.NaN : this.score(this.#local as ConfusionCounts)];
  }

  override getGlobal(): [string, number] {
    return [this.name, this.globalNumInst === 0 ? Number.NaN : this.score(this.#global as ConfusionCounts)];
  }

  override reset(): void {
    super.reset();
    this.#local = undefined;
    this.#global = undefined;
  }

  override resetLocal(): void {
    super.resetLocal();
    this.#local = undefined;
  }
}

export interface F1Options extends MetricOptions {
  /** 'binary' (default), 'multiclass' (argmax of the last axis) or 'multilabel' (thresholded). */
  readonly classType?: ClassType;
  /** Score above which a prediction is positive (binary, multilabel); default 0.5. */
  readonly threshold?: number;
  /** 'micro' (default): from the summed counts; 'macro': mean of the per-class scores. */
  readonly average?: 'micro' | 'macro';
}

/** F1 score (harmonic mean of precision and recall); class 1 is the positive class in binary mode. */
export class F1 extends CountMetric {
  static override readonly mxnetName: string = 'F1';
  readonly average: 'micro' | 'macro';
  readonly beta: number;

  constructor(options: F1Options = {}, beta = 1, defaultName = 'f1') {
    const {
      classType = 'binary',
      threshold: t = 0.5,
      average = 'micro',
      name = defaultName,
      ...rest
    } = options;
    const kwargs: Record<string, unknown> = { class_type: classType, threshold: t, average };
    if (defaultName === 'fbeta') kwargs.beta = beta;
    super(name, rest, kwargs, classType, t);
    if (average !== 'micro' && average !== 'macro') {
      throw new MXNetError(`average must be 'micro' or 'macro', got ${String(average)}`, {
        op: `metric.${name}`,
        params: { average },
      });
    }
    if (typeof beta !== 'number' || !(beta > 0)) {
      throw new MXNetError(`beta must be a number > 0, got ${String(beta)}`, { op: `metric.${name}` });
    }
    this.average = average;
    this.beta = beta;
  }

  protected score(c: ConfusionCounts): number {
    return fscoreOf(c, this.beta, this.average);
  }
}

/** F-beta score: (1 + β²)·P·R / (β²·P + R). */
export class Fbeta extends F1 {
  static override readonly mxnetName = 'Fbeta';

  constructor(options: F1Options & { readonly beta?: number } = {}) {
    const { beta = 1, ...rest } = options;
    super(rest, beta, 'fbeta');
  }
}

/** Matthews correlation coefficient of a binary problem (class 1 positive). */
export class MCC extends CountMetric {
  static override readonly mxnetName = 'MCC';

  constructor(options: MetricOptions = {}) {
    const { name = 'mcc', ...rest } = options;
    super(name, rest, {}, 'binary', 0.5);
  }

  protected score(c: ConfusionCounts): number {
    return matthewsOf(c);
  }
}
