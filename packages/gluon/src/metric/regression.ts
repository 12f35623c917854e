/**
 * Regression metrics (MXNet 2.0 `gluon.metric`): MAE, MSE, RMSE, MeanPairwiseDistance,
 * MeanCosineSimilarity, PearsonCorrelation and PCC.
 *
 * 2.0 semantics: MAE/MSE average per sample (the first axis) and count samples, RMSE is the root of
 * the running MSE (1.x averaged per-batch values instead). One deliberate difference: MXNet
 * subtracts labels and predictions with broadcasting, so a (n,) label against an (n, 1) prediction
 * silently becomes an (n, n) difference; here both must hold the same number of values per sample,
 * compared element by element, and anything else is a shape error.
 */
import { MXNetError, shapeToString } from '@mx/base';
import {
  checkLabelShapes,
  checkSameShape,
  EvalMetric,
  evaluatePairs,
  type HostTensor,
  type MetricCommit,
  type MetricInput,
  type MetricOptions,
  SumMetric,
  throwShapeMismatch,
} from './base.js';
import { argmax, maxOf, minOf, toInt } from './host-math.js';

/** Samples (first axis) of a pair with the same size; throws otherwise. */
function samples(op: string, label: HostTensor, pred: HostTensor): number {
  if (
    label.shape.length === 0 ||
    label.data.length !== pred.data.length ||
    label.shape[0] !== pred.shape[0]
  ) {
    throwShapeMismatch(
      op,
      label.shape,
      pred.shape,
      'labels and predictions must hold the same values per sample',
    );
  }
  return label.shape[0] as number;
}

/** Sum over samples of the per-sample mean of f(label - pred). */
function perSampleMean(
  op: string,
  label: HostTensor,
  pred: HostTensor,
  f: (d: number) => number,
): [number, number] {
  const n = samples(op, label, pred);
  if (n === 0) return [0, 0];
  const per = label.data.length / n;
  let total = 0;
  for (let s = 0; s < n; s++) {
    let acc = 0;
    for (let j = 0; j < per; j++)
      acc += f((label.data[s * per + j] as number) - (pred.data[s * per + j] as number));
    total += acc / per;
  }
  return [total, n];
}

/** Mean absolute error. */
export class MAE extends SumMetric {
  static override readonly mxnetName = 'MAE';

  constructor(options: MetricOptions = {}) {
    const { name = 'mae', ...rest } = options;
    super(name, rest);
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    return perSampleMean('metric.MAE', label, pred, Math.abs);
  }
}

/** Mean squared error. */
export class MSE extends SumMetric {
  static override readonly mxnetName: string = 'MSE';

  constructor(options: MetricOptions = {}, defaultName = 'mse') {
    const { name = defaultName, ...rest } = options;
    super(name, rest);
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    return perSampleMean(`metric.${this.name}`, label, pred, (d) => d * d);
  }
}

/** Root mean squared error: sqrt of the running MSE. */
export class RMSE extends MSE {
  static override readonly mxnetName = 'RMSE';

  constructor(options: MetricOptions = {}) {
    super(options, 'rmse');
  }

  override get(): [string, number] {
    const [name, mse] = super.get();
    return [name, Math.sqrt(mse)];
  }

  override getGlobal(): [string, number] {
    const [name, mse] = super.getGlobal();
    return [name, Math.sqrt(mse)];
  }
}

/** Mean over samples of the p-norm-like distance (sum((label - pred)^p))^(1/p) (no abs, as MXNet). */
export class MeanPairwiseDistance extends SumMetric {
  static override readonly mxnetName = 'MeanPairwiseDistance';
  readonly p: number;

  constructor(options: MetricOptions & { readonly p?: number } = {}) {
    const { p = 2, name = 'mpd', ...rest } = options;
    super(name, rest, { p });
    if (typeof p !== 'number' || p === 0 || !Number.isFinite(p)) {
      throw new MXNetError(`p must be a finite non-zero number, got ${String(p)}`, {
        op: 'metric.MeanPairwiseDistance',
      });
    }
    this.p = p;
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    const n = samples('metric.MeanPairwiseDistance', label, pred);
    const per = n === 0 ? 0 : label.data.length / n;
    let total = 0;
    for (let s = 0; s < n; s++) {
      let acc = 0;
      for (let j = 0; j < per; j++) {
        acc += ((label.data[s * per + j] as number) - (pred.data[s * per + j] as number)) ** this.p;
      }
      total += acc ** (1 / this.p);
    }
    return [total, n];
  }
}

/** Mean cosine similarity along the last axis: label·pred / max(|label|·|pred|, eps). */
export class MeanCosineSimilarity extends SumMetric {
  static override readonly mxnetName = 'MeanCosineSimilarity';
  readonly eps: number;

  constructor(options: MetricOptions & { readonly eps?: number } = {}) {
    const { eps = 1e-8, name = 'cos_sim', ...rest } = options;
    super(name, rest, { eps });
    this.eps = eps;
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    checkSameShape('metric.MeanCosineSimilarity', label, pred);
    const last = label.shape.length === 0 ? 1 : (label.shape[label.shape.length - 1] as number);
    const rows = last === 0 ? 0 : label.data.length / last;
    let total = 0;
    for (let r = 0; r < rows; r++) {
      let dot = 0;
      let nl = 0;
      let np = 0;
      for (let j = 0; j < last; j++) {
        const a = label.data[r * last + j] as number;
        const b = pred.data[r * last + j] as number;
        dot += a * b;
        nl += a * a;
        np += b * b;
      }
      total += dot / Math.max(Math.sqrt(nl) * Math.sqrt(np), this.eps);
    }
    return [total, rows];
  }
}

/** Welford aggregates of labels and predictions and their co-moment. */
interface Moments {
  n: number;
  meanL: number;
  m2L: number;
  meanP: number;
  m2P: number;
  cov: number;
}

const noMoments = (): Moments => ({ n: 0, meanL: 0, m2L: 0, meanP: 0, m2P: 0, cov: 0 });

/** MXNet 2.0's batch update: label moments, then the co-moment (new label mean, old pred mean), then pred. */
function addBatch(m: Moments, l: Float64Array, p: Float64Array): void {
  const n = m.n + l.length;
  const oldMeanL = m.meanL;
  let dL = 0;
  for (const x of l) dL += (x - oldMeanL) / n;
  const meanL = oldMeanL + dL;
  for (const x of l) m.m2L += (x - oldMeanL) * (x - meanL);
  for (let i = 0; i < l.length; i++) m.cov += ((l[i] as number) - meanL) * ((p[i] as number) - m.meanP);
  const oldMeanP = m.meanP;
  let dP = 0;
  for (const x of p) dP += (x - oldMeanP) / n;
  const meanP = oldMeanP + dP;
  for (const x of p) m.m2P += (x - oldMeanP) * (x - meanP);
  m.n = n;
  m.meanL = meanL;
  m.meanP = meanP;
}

function pearsonOf(m: Moments): number {
  const d = m.n - 1;
  return m.cov / (d * Math.sqrt(m.m2P / d) * Math.sqrt(m.m2L / d));
}

/** Pearson correlation of all labels and predictions seen (streaming, MXNet 2.0's 'micro'). */
export class PearsonCorrelation extends EvalMetric {
  static override readonly mxnetName = 'PearsonCorrelation';
  #local = noMoments();
  #global = noMoments();

  constructor(options: MetricOptions = {}) {
    const { name = 'pearsonr', ...rest } = options;
    super(name, rest);
  }

  override async stage(labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    const [ls, ps] = checkLabelShapes(labels, preds, 'metric.PearsonCorrelation');
    const parts = await evaluatePairs(ls, ps, (l, p) => {
      checkSameShape('metric.PearsonCorrelation', l, p);
      return [l.data, p.data] as const;
    });
    return () => {
      for (const [l, p] of parts) {
        addBatch(this.#local, l, p);
        addBatch(this.#global, l, p);
        this.numInst += 1;
        this.globalNumInst += 1;
      }
    };
  }

  override get(): [string, number] {
    return [this.name, this.numInst === 0 ? Number.NaN : pearsonOf(this.#local)];
  }

  override getGlobal(): [string, number] {
    return [this.name, this.globalNumInst === 0 ? Number.NaN : pearsonOf(this.#global)];
  }

  override reset(): void {
    super.reset();
    this.#local = noMoments();
    this.#global = noMoments();
  }

  override resetLocal(): void {
    super.resetLocal();
    this.#local = noMoments();
  }
}

/** A square confusion matrix (rows: prediction, columns: label) that grows with the classes seen. */
class Confusion {
  k = 2;
  m = new Float64Array(4);

  grow(k: number): void {
    if (k <= this.k) return;
    const next = new Float64Array(k * k);
    for (let i = 0; i < this.k; i++)
      for (let j = 0; j < this.k; j++) next[i * k + j] = this.m[i * this.k + j] as number;
    this.k = k;
    this.m = next;
  }

  add(pred: Int32Array, label: Int32Array): void {
    this.grow(Math.max(maxOf(pred), maxOf(label)) + 1);
    for (let i = 0; i < pred.length; i++) {
      const at = (pred[i] as number) * this.k + (label[i] as number);
      this.m[at] = (this.m[at] as number) + 1;
    }
  }

  /** MXNet's `_calc_mcc`: the multiclass Matthews correlation (NaN when a marginal is constant). */
  pcc(): number {
    const { k, m } = this;
    let n = 0;
    const x = new Float64Array(k);
    const y = new Float64Array(k);
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) {
        const v = m[i * k + j] as number;
        n += v;
        x[i] = (x[i] as number) + v;
        y[j] = (y[j] as number) + v;
      }
    }
    let covXX = 0;
    let covYY = 0;
    let covXY = 0;
    for (let i = 0; i < k; i++) {
      covXX += (x[i] as number) * (n - (x[i] as number));
      covYY += (y[i] as number) * (n - (y[i] as number));
      covXY += (m[i * k + i] as number) * n - (x[i] as number) * (y[i] as number);
    }
    if (covXX === 0 || covYY === 0) return Number.NaN;
    return covXY / Math.sqrt(covXX * covYY);
  }
}

/** PCC: the multiclass generalisation of MCC over a running confusion matrix. */
export class PCC extends EvalMetric {
  static override readonly mxnetName = 'PCC';
  #local = new Confusion();
  #global = new Confusion();

  constructor(options: MetricOptions = {}) {
    const { name = 'pcc', ...rest } = options;
    super(name, rest);
  }

  override async stage(labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    const op = 'metric.PCC';
    const [ls, ps] = checkLabelShapes(labels, preds, op);
    const parts = await evaluatePairs(ls, ps, (l, p) => {
      const same = l.shape.length === p.shape.length && l.shape.every((d, i) => d === p.shape[i]);
      const predicted = toInt(same ? p.data : argmax(op, p, 1).data);
      const truth = toInt(l.data);
      if (predicted.length !== truth.length) throwShapeMismatch(op, l.shape, p.shape);
      if (minOf(predicted) < 0 || minOf(truth) < 0) {
        throw new MXNetError(`class indices must be >= 0 (labels ${shapeToString(l.shape)})`, { op });
      }
      return [predicted, truth] as const;
    });
    return () => {
      for (const [p, l] of parts) {
        this.#local.add(p, l);
        this.#global.add(p, l);
      }
      // MXNet counts one instance per update call, whatever the number of pairs.
      this.numInst += 1;
      this.globalNumInst += 1;
      this.sumMetric = this.#local.pcc() * this.numInst;
      this.globalSumMetric = this.#global.pcc() * this.globalNumInst;
    };
  }

  override get(): [string, number] {
    return [this.name, this.numInst === 0 ? Number.NaN : this.#local.pcc()];
  }

  override getGlobal(): [string, number] {
    return [this.name, this.globalNumInst === 0 ? Number.NaN : this.#global.pcc()];
  }

  override reset(): void {
    super.reset();
    this.#local = new Confusion();
    this.#global = new Confusion();
  }

  override resetLocal(): void {
    super.resetLocal();
    this.#local = new Confusion();
  }
}
