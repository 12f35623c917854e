/**
 * Creating metrics (MXNet `gluon.metric.create`) and CompositeEvalMetric, which creates its children.
 *
 * MXNet keeps one global registry; here it is an object (`createMetricRegistry()` returns a fresh
 * one with the built-ins under MXNet's names and aliases) so adding a metric touches nobody else.
 * Composite lives in this module because it resolves child specs through a registry. Options come
 * as our camelCase names or MXNet's snake_case keyword arguments (what `getConfig()` writes); an
 * unknown one is an error.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { EvalMetric, type MetricCommit, type MetricInput, type MetricOptions } from './base.js';
import { Accuracy, BinaryAccuracy, F1, Fbeta, MCC, TopKAccuracy } from './classification.js';
import { CustomMetric, type FEval, Loss, Torch } from './custom.js';
import { CrossEntropy, NegativeLogLikelihood, Perplexity } from './probability.js';
import {
  MAE,
  MeanCosineSimilarity,
  MeanPairwiseDistance,
  MSE,
  PCC,
  PearsonCorrelation,
  RMSE,
} from './regression.js';

/** Any metric (plain or composite). */
export type AnyMetric = EvalMetric<string | string[], number | number[]>;

/**
 * What `create` accepts: a metric (returned as is), a registered name, an evaluation function
 * (→ CustomMetric), a list of specs (→ CompositeEvalMetric), a `getConfig()` object
 * (`{ metric: 'Accuracy', ... }`) or its JSON, or a `'[name, {kwargs}]'` JSON string.
 */
export type MetricSpec =
  | AnyMetric
  | string
  | FEval
  | readonly MetricSpec[]
  | Readonly<Record<string, unknown>>;

/** Builds a metric from camelCase options; `registry` resolves nested specs (Composite). */
export type MetricFactory = (
  options: Readonly<Record<string, unknown>>,
  registry: MetricRegistry,
) => AnyMetric;

const COMMON = ['name', 'outputNames', 'labelNames'] as const;

type Opts = Readonly<Record<string, unknown>>;

function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return (
    x !== null && typeof x === 'object' && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype
  );
}

/** A set of named metric factories. */
export class MetricRegistry {
  readonly #entries = new Map<string, { factory: MetricFactory; keys: readonly string[] }>();

  /**
   * Register `factory` under `name` and `aliases` (case-insensitive); `keys` lists the options it
   * takes besides name/outputNames/labelNames (camelCase). Replaces an existing entry.
   */
  register(
    name: string,
    factory: MetricFactory,
    keys: readonly string[] = [],
    aliases: readonly string[] = [],
  ): this {
    for (const n of [name, ...aliases]) {
      if (typeof n !== 'string' || n === '') {
        throw new MXNetError('a metric name must be a non-empty string', { op: 'metric.register' });
      }
      this.#entries.set(n.toLowerCase(), { factory, keys: [...COMMON, ...keys] });
    }
    return this;
  }

  has(name: string): boolean {
    return this.#entries.has(name.toLowerCase());
  }

  /** Registered names (aliases included), sorted. */
  names(): string[] {
    return [...this.#entries.keys()].sort();
  }

  /** Make a metric from a spec (see MetricSpec) with options for a name or function. */
  create(
    spec: readonly MetricSpec[] | 'composite' | 'compositeevalmetric',
    options?: Opts,
  ): CompositeEvalMetric;
  create<M extends AnyMetric>(spec: M): M;
  create(spec: string | FEval | Opts, options?: Opts): EvalMetric;
  create(spec: MetricSpec, options?: Opts): AnyMetric;
  create(spec: MetricSpec, options: Opts = {}): AnyMetric {
    const extra = Object.keys(options).length > 0;
    if (typeof spec === 'function') return new CustomMetric(spec as FEval, options);
    if (Array.isArray(spec)) {
      const composite = new CompositeEvalMetric([], { registry: this });
      for (const child of spec as readonly MetricSpec[]) composite.add(this.create(child, options));
      return composite as AnyMetric;
    }
    if (spec instanceof EvalMetric) {
      if (extra)
        throw new MXNetError('metric is already an instance; extra options are invalid', {
          op: 'metric.create',
        });
      return spec as AnyMetric;
    }
    if (isPlainObject(spec)) {
      const { metric, ...rest } = spec;
      if (typeof metric !== 'string') {
        throw new MXNetError("a metric config needs a 'metric' name", { op: 'metric.create', params: spec });
      }
      return this.create(metric, { ...rest, ...options });
    }
    if (typeof spec !== 'string') {
      throw new MXNetError(`cannot make a metric from ${String(spec)}`, {
        op: 'metric.create',
        hint: 'pass a metric, a name, a function, a list or a config',
      });
    }
    const text = spec.trim();
    if (text.startsWith('{') || text.startsWith('[')) {
      if (extra) throw new MXNetError('a JSON metric takes no extra options', { op: 'metric.create' });
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new MXNetError(`invalid metric JSON: ${text}`, { op: 'metric.create', cause: e });
      }
      if (Array.isArray(parsed)) {
        const [name, kwargs] = parsed as unknown[];
        if (typeof name !== 'string' || (kwargs !== undefined && !isPlainObject(kwargs))) {
          throw new MXNetError('a metric pair must be [name, {kwargs}]', { op: 'metric.create' });
        }
        return this.create(name, kwargs ?? {});
      }
      return this.create(parsed as MetricSpec);
    }
    const entry = this.#entries.get(text.toLowerCase());
    if (entry === undefined) {
      throw new MXNetError(`metric '${text}' is not registered`, {
        op: 'metric.create',
        hint: `use one of ${this.names().join(', ')}, or register it first`,
      });
    }
    const read: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(options)) {
      const key = camel(k);
      if (!entry.keys.includes(key)) {
        throw new MXNetError(`metric '${text}' got an unexpected option '${k}'`, {
          op: 'metric.create',
          params: options,
          hint: `its options are: ${entry.keys.join(', ')}`,
        });
      }
      if (v !== undefined && v !== null) read[key] = v;
      else if (key === 'ignoreLabel') read[key] = null;
    }
    return entry.factory(read, this);
  }
}

/** Options of CompositeEvalMetric. */
export interface CompositeOptions extends MetricOptions {
  /** Where child names are looked up (default: the built-ins). */
  readonly registry?: MetricRegistry;
}

/** Several metrics updated together; `get()` returns `[names, values]`. */
export class CompositeEvalMetric extends EvalMetric<string[], number[]> {
  static override readonly mxnetName = 'CompositeEvalMetric';
  readonly metrics: AnyMetric[] = [];
  readonly #registry: MetricRegistry;

  constructor(metrics: readonly MetricSpec[] = [], options: CompositeOptions = {}) {
    const { name = 'composite', registry, ...rest } = options;
    super(name, rest);
    this.#registry = registry ?? createMetricRegistry();
    for (const m of metrics) this.add(m);
  }

  /** Add a child (a metric or anything `create` takes). */
  add(metric: MetricSpec): void {
    this.metrics.push(this.#registry.create(metric));
  }

  /** The child at `index`. */
  getMetric(index: number): AnyMetric {
    const m = this.metrics[index];
    if (!Number.isInteger(index) || m === undefined) {
      throw new MXNetError(`Metric index ${index} is out of range 0 and ${this.metrics.length}`, {
        op: 'metric.CompositeEvalMetric',
      });
    }
    return m;
  }

  /** Stage the batch in every child; the commit applies it to all of them. */
  override async stage(labels: MetricInput | null, preds: MetricInput | null): Promise<MetricCommit> {
    const commits = await Promise.all(this.metrics.map((m) => m.stage(labels, preds)));
    return async () => {
      for (const c of commits) await c();
    };
  }

  /** Keep only this metric's named labels/outputs, then let each child pick its own. */
  override async updateDict(
    labels: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
    preds: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
  ): Promise<void> {
    const keep = (
      d: Readonly<Record<string, NDArray>> | ReadonlyMap<string, NDArray>,
      names: readonly string[] | null,
    ) => {
      const entries = d instanceof Map ? [...d.entries()] : Object.entries(d);
      return new Map(names === null ? entries : entries.filter(([k]) => names.includes(k)));
    };
    const l = keep(labels, this.labelNames);
    const p = keep(preds, this.outputNames);
    const commits = await Promise.all(
      this.metrics.map((m) => {
        const [ml, mp] = m.namedInputs(l, p);
        return m.stage(ml, mp);
      }),
    );
    for (const c of commits) await c();
  }

  override reset(): void {
    super.reset();
    for (const m of this.metrics) m.reset();
  }

  override resetLocal(): void {
    super.resetLocal();
    for (const m of this.metrics) m.resetLocal();
  }

  override get(): [string[], number[]] {
    return this.#collect((m) => m.get());
  }

  override getGlobal(): [string[], number[]] {
    return this.#collect((m) => m.getGlobal());
  }

  #collect(read: (m: AnyMetric) => [string | string[], number | number[]]): [string[], number[]] {
    const names: string[] = [];
    const values: number[] = [];
    for (const m of this.metrics) {
      const [n, v] = read(m);
      names.push(...(Array.isArray(n) ? n : [n]));
      values.push(...(Array.isArray(v) ? v : [v]));
    }
    return [names, values];
  }

  override getConfig(): Record<string, unknown> {
    return { ...super.getConfig(), metrics: this.metrics.map((m) => m.getConfig()) };
  }
}

/** A new registry with MXNet's metrics under their names and aliases (2.0, plus 1.x's nll_loss). */
export function createMetricRegistry(): MetricRegistry {
  const r = new MetricRegistry();
  const ce = ['eps', 'ignoreLabel', 'axis', 'fromLogits'];
  const f1 = ['classType', 'threshold', 'average'];
  r.register(
    'compositeevalmetric',
    (o, reg) => {
      const { metrics = [], ...rest } = o as Opts & { metrics?: MetricSpec[] };
      return new CompositeEvalMetric(metrics, { ...rest, registry: reg }) as AnyMetric;
    },
    ['metrics'],
    ['composite'],
  );
  r.register('accuracy', (o) => new Accuracy(o), ['axis'], ['acc']);
  r.register('topkaccuracy', (o) => new TopKAccuracy(o), ['topK'], ['top_k_accuracy', 'top_k_acc']);
  r.register('f1', (o) => new F1(o), f1);
  r.register('fbeta', (o) => new Fbeta(o), [...f1, 'beta']);
  r.register('binaryaccuracy', (o) => new BinaryAccuracy(o), ['threshold']);
  r.register('mcc', (o) => new MCC(o));
  r.register('mae', (o) => new MAE(o));
  r.register('mse', (o) => new MSE(o));
  r.register('rmse', (o) => new RMSE(o));
  r.register('meanpairwisedistance', (o) => new MeanPairwiseDistance(o), ['p']);
  r.register('meancosinesimilarity', (o) => new MeanCosineSimilarity(o), ['eps']);
  r.register('crossentropy', (o) => new CrossEntropy(o), ce, ['ce']);
  r.register('negativeloglikelihood', (o) => new NegativeLogLikelihood(o), ['eps'], ['nll_loss']);
  r.register('perplexity', (o) => new Perplexity(o), ce);
  r.register('pearsoncorrelation', (o) => new PearsonCorrelation(o), [], ['pearsonr']);
  r.register('pcc', (o) => new PCC(o));
  r.register('loss', (o) => new Loss(o));
  r.register('torch', (o) => new Torch(o));
  r.register(
    'custommetric',
    (o) => {
      const { feval, ...rest } = o as Opts & { feval?: FEval };
      return new CustomMetric(feval as FEval, rest);
    },
    ['feval', 'allowExtraOutputs'],
  );
  return r;
}

/**
 * `gluon.metric.create`: a metric from a spec, looked up in `registry` (default: the built-ins).
 * Typed as a plain `EvalMetric` (`get()` → `[string, number]`) except for lists and the composite
 * names; a config object naming 'CompositeEvalMetric' is a composite at run time.
 */
export function create(
  spec: readonly MetricSpec[] | 'composite' | 'compositeevalmetric',
  options?: Opts,
  registry?: MetricRegistry,
): CompositeEvalMetric;
export function create<M extends AnyMetric>(spec: M): M;
export function create(spec: string | FEval | Opts, options?: Opts, registry?: MetricRegistry): EvalMetric;
export function create(spec: MetricSpec, options?: Opts, registry?: MetricRegistry): AnyMetric;
export function create(
  spec: MetricSpec,
  options: Opts = {},
  registry: MetricRegistry = createMetricRegistry(),
): AnyMetric {
  return registry.create(spec, options);
}
