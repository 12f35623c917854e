/**
 * The optimizer a worker sends to the servers (MXNet's `set_optimizer` on a dist store pickles the
 * Python optimizer into a kController command; the server unpickles it and installs
 * `get_updater(optimizer)`). Pickle has no TypeScript counterpart, so the optimizer travels as a
 * JSON spec: its registry name, the constructor options that @mx/optimizer's classes read back as
 * public fields, the multipliers, the learning-rate scheduler (by class and options) and the update
 * counters (`getProgress`). `optimizerFromSpec` rebuilds it with `createOptimizer`.
 *
 * What cannot travel is refused up front with an MXNetError (an optimizer class that is not one of
 * the thirteen built-ins, a custom scheduler), never silently dropped. `paramDict` is sent as a
 * snapshot of its multipliers (pickle copies it too). A stateful scheduler's internal step counter
 * starts over on the server; its current `baseLr` is carried.
 */
import { MXNetError } from '@mx/base';
import {
  CosineScheduler,
  createOptimizer,
  FactorScheduler,
  type LRScheduler,
  MultiFactorScheduler,
  Optimizer,
  type OptimizerProgress,
  type ParamIndex,
  PolyScheduler,
} from '@mx/optimizer';

/** The wire form (JSON) of an optimizer. */
export interface OptimizerSpec {
  readonly format: 'mx-optimizer';
  readonly version: 1;
  /** The registry name (lowercase, e.g. `sgd`). */
  readonly name: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly lrMult: readonly (readonly [ParamIndex, number])[];
  readonly wdMult: readonly (readonly [ParamIndex, number])[];
  readonly progress: OptimizerProgress;
}

/** Each built-in's own option keys, which it keeps as public fields of the same name. */
const OWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  sgd: ['momentum', 'lazyUpdate'],
  nag: ['momentum'],
  signum: ['momentum', 'wdLh'],
  lars: ['momentum', 'lazyUpdate', 'eta', 'eps', 'momentumCorrection'],
  adam: ['beta1', 'beta2', 'epsilon', 'lazyUpdate'],
  adamw: ['beta1', 'beta2', 'epsilon', 'correctBias'],
  adamax: ['beta1', 'beta2'],
  nadam: ['beta1', 'beta2', 'epsilon', 'scheduleDecay'],
  lamb: ['beta1', 'beta2', 'epsilon', 'lowerBound', 'upperBound', 'biasCorrection'],
  rmsprop: ['gamma1', 'gamma2', 'epsilon', 'centered', 'clipWeights'],
  adagrad: ['eps'],
  adadelta: ['rho', 'epsilon'],
  ftrl: ['lamda1', 'beta'],
  groupadagrad: ['eps'],
};

const OP = 'KVStore.setOptimizer';

function schedulerSpec(s: LRScheduler): Record<string, unknown> {
  const warmup = {
    baseLr: s.warmupFinalLr,
    warmupSteps: s.warmupSteps,
    warmupBeginLr: s.warmupBeginLr,
    warmupMode: s.warmupMode,
  };
  if (s instanceof FactorScheduler) {
    return {
      type: 'factor',
      currentBaseLr: s.baseLr,
      ...warmup,
      step: s.step,
      factor: s.factor,
      stopFactorLr: s.stopFactorLr,
    };
  }
  if (s instanceof MultiFactorScheduler) {
    return { type: 'multifactor', currentBaseLr: s.baseLr, ...warmup, step: [...s.step], factor: s.factor };
  }
  if (s instanceof PolyScheduler) {
    return {
      type: 'poly',
      currentBaseLr: s.baseLr,
      ...warmup,
      maxUpdate: s.maxUpdate,
      pwr: s.power,
      finalLr: s.finalLr,
    };
  }
  if (s instanceof CosineScheduler) {
    return { type: 'cosine', currentBaseLr: s.baseLr, ...warmup, maxUpdate: s.maxUpdate, finalLr: s.finalLr };
  }
  throw new MXNetError(`the learning-rate scheduler ${s.constructor.name} cannot be sent to the servers`, {
    op: OP,
    hint: 'use FactorScheduler, MultiFactorScheduler, PolyScheduler or CosineScheduler from @mx/optimizer',
  });
}

function schedulerFromSpec(spec: Record<string, unknown>): LRScheduler {
  const { type, currentBaseLr, ...options } = spec;
  const o = options as never;
  const s =
    type === 'factor'
      ? new FactorScheduler(o)
      : type === 'multifactor'
        ? new MultiFactorScheduler(o)
        : type === 'poly'
          ? new PolyScheduler(o)
          : type === 'cosine'
            ? new CosineScheduler(o)
            : undefined;
  if (s === undefined) {
    throw new MXNetError(`unknown scheduler type ${String(type)} in an optimizer spec`, {
      op: 'optimizerFromSpec',
    });
  }
  s.baseLr = currentBaseLr as number;
  return s;
}

/** The spec of `optimizer` (what `setOptimizer` sends); an MXNetError for what cannot be sent. */
export function optimizerToSpec(optimizer: Optimizer): OptimizerSpec {
  if (!(optimizer instanceof Optimizer)) {
    throw new MXNetError('setOptimizer needs an Optimizer', {
      op: OP,
      hint: "e.g. createOptimizer('sgd', { learningRate: 0.1 }) from @mx/optimizer",
    });
  }
  const name = optimizer.name.toLowerCase();
  const own = OWN_KEYS[name];
  if (own === undefined || optimizer.constructor.name.toLowerCase() !== name) {
    throw new MXNetError(
      `the optimizer ${optimizer.constructor.name} cannot be sent to the servers: only @mx/optimizer's built-ins can be rebuilt there`,
      { op: OP, hint: `use one of ${Object.keys(OWN_KEYS).join(', ')}` },
    );
  }
  const fields = optimizer as unknown as Record<string, unknown>;
  const options: Record<string, unknown> = {
    rescaleGrad: optimizer.rescaleGrad,
    wd: optimizer.wd,
    multiPrecision: optimizer.multiPrecision,
    beginNumUpdate: optimizer.beginNumUpdate,
  };
  if (optimizer.clipGradient !== undefined) options.clipGradient = optimizer.clipGradient;
  const progress = optimizer.getProgress();
  if (optimizer.lrScheduler !== undefined) {
    options.lrScheduler = schedulerSpec(optimizer.lrScheduler);
    // Given with the scheduler, the rate overwrites its baseLr: give the one it has.
    options.learningRate = optimizer.lrScheduler.baseLr;
  } else {
    options.learningRate = progress.learningRate;
  }
  if (optimizer.idx2name.size > 0) options.paramIdx2Name = [...optimizer.idx2name];
  if (optimizer.paramDict.size > 0) {
    options.paramDict = [...optimizer.paramDict].map(([k, v]) => [k, { lrMult: v.lrMult, wdMult: v.wdMult }]);
  }
  for (const k of own) if (fields[k] !== undefined) options[k] = fields[k];
  return {
    format: 'mx-optimizer',
    version: 1,
    name,
    options,
    lrMult: [...optimizer.lrMult],
    wdMult: [...optimizer.wdMult],
    progress,
  };
}

/** The JSON text of `optimizerToSpec(optimizer)`. */
export function serializeOptimizer(optimizer: Optimizer): string {
  return JSON.stringify(optimizerToSpec(optimizer));
}

/** Rebuild an optimizer from its spec (JSON text or object); an MXNetError when malformed. */
export function optimizerFromSpec(spec: string | OptimizerSpec): Optimizer {
  const op = 'optimizerFromSpec';
  let s: OptimizerSpec;
  try {
    s = typeof spec === 'string' ? (JSON.parse(spec) as OptimizerSpec) : spec;
  } catch (e) {
    throw new MXNetError('the optimizer spec is not JSON', {
      op,
      cause: e,
      hint: 'send serializeOptimizer(optimizer)',
    });
  }
  if (s === null || typeof s !== 'object' || s.format !== 'mx-optimizer' || s.version !== 1) {
    throw new MXNetError('not an optimizer spec (format mx-optimizer, version 1)', {
      op,
      hint: 'send serializeOptimizer(optimizer)',
    });
  }
  const { paramIdx2Name, paramDict, lrScheduler, ...rest } = s.options as Record<string, unknown>;
  const options: Record<string, unknown> = { ...rest };
  if (paramIdx2Name !== undefined) options.paramIdx2Name = new Map(paramIdx2Name as [ParamIndex, string][]);
  if (paramDict !== undefined) options.paramDict = new Map(paramDict as [ParamIndex, never][]);
  if (lrScheduler !== undefined)
    options.lrScheduler = schedulerFromSpec(lrScheduler as Record<string, unknown>);
  const optimizer = createOptimizer(s.name, options);
  optimizer.setLrMult(new Map(s.lrMult));
  optimizer.setWdMult(new Map(s.wdMult));
  optimizer.setProgress(s.progress);
  return optimizer;
}
