/**
 * Typed access to MXNet's `MXNET_*` environment settings, with the defaults MXNet documents.
 *
 * MXNet reads these with `dmlc::GetEnv` when a component is created; so do we, through an `Env`
 * object passed to that component (engine, storage, resource manager). No module reads
 * `process.env` behind the user's back: `Env.fromProcess()` is the convenient default in Node, and
 * in a browser (no `process`) it is empty, so every setting takes its default unless the page
 * builds an `Env` from its own record. A malformed value is an MXNetError naming the variable and
 * the values it accepts, never a silent fallback.
 */
import { MXNetError } from './error.js';

interface SpecBase {
  readonly doc: string;
}
export interface IntSpec extends SpecBase {
  readonly kind: 'int';
  readonly default: number;
  readonly min?: number;
  readonly max?: number;
}
export interface BoolSpec extends SpecBase {
  readonly kind: 'bool';
  readonly default: boolean;
}
export interface EnumSpec<V extends string = string> extends SpecBase {
  readonly kind: 'enum';
  readonly default: V;
  readonly values: readonly V[];
}
export type SettingSpec = IntSpec | BoolSpec | EnumSpec;

/** Devices that have their own memory-pool settings, in MXNet's spelling. */
export type PoolDevice = 'CPU' | 'GPU' | 'CPU_PINNED';
export const POOL_DEVICES: readonly PoolDevice[] = ['CPU', 'GPU', 'CPU_PINNED'];

export type PoolType = 'Naive' | 'Round' | 'Unpooled';

type PoolSettings<D extends PoolDevice> = {
  readonly [K in `MXNET_${D}_MEM_POOL_TYPE`]: EnumSpec<PoolType>;
} & {
  readonly [K in
    | `MXNET_${D}_POOL_PAGE_SIZE`
    | `MXNET_${D}_MEM_LARGE_ALLOC_ROUND_SIZE`
    | `MXNET_${D}_MEM_POOL_ROUND_LINEAR_CUTOFF`
    | `MXNET_${D}_MEM_POOL_RESERVE`]: IntSpec;
};

function poolSettings<D extends PoolDevice>(dev: D): PoolSettings<D> {
  return {
    [`MXNET_${dev}_MEM_POOL_TYPE`]: {
      kind: 'enum',
      default: 'Naive',
      values: ['Naive', 'Round', 'Unpooled'],
      doc: `Memory pool for ${dev} storage: Naive (exact page-rounded buckets), Round (power-of-2 buckets with a linear cutoff) or Unpooled.`,
    },
    [`MXNET_${dev}_POOL_PAGE_SIZE`]: {
      kind: 'int',
      default: 4096,
      min: 32,
      doc: 'Bucket granularity in bytes: sizes are rounded up to a multiple of it (Naive) or it is the smallest bucket (Round, must be a power of 2).',
    },
    [`MXNET_${dev}_MEM_LARGE_ALLOC_ROUND_SIZE`]: {
      kind: 'int',
      default: 2097152,
      min: 1,
      doc: 'Naive pool: sizes above this are rounded up to a multiple of it instead of the page size.',
    },
    [`MXNET_${dev}_MEM_POOL_ROUND_LINEAR_CUTOFF`]: {
      kind: 'int',
      default: 24,
      min: 20,
      max: 34,
      doc: 'Round pool: log2 of the size above which buckets grow linearly in steps of 2^cutoff.',
    },
    [`MXNET_${dev}_MEM_POOL_RESERVE`]: {
      kind: 'int',
      default: 5,
      min: 0,
      max: 100,
      doc: 'Percentage of device memory the pool keeps free: it releases its cache before an allocation would cut into it.',
    },
  } as PoolSettings<D>;
}

const ENGINE_TYPES = [
  'ThreadedEnginePerDevice',
  'ThreadedEngine',
  'NaiveEngine',
  'ThreadedEnginePerDeviceAsync',
  'ThreadedEngineAsync',
] as const;
export type EngineTypeName = (typeof ENGINE_TYPES)[number];

/** Every setting `@mx` reads, with its kind, default and meaning. */
export const ENV_SETTINGS = {
  MXNET_ENGINE_TYPE: {
    kind: 'enum',
    default: 'ThreadedEnginePerDevice',
    values: ENGINE_TYPES,
    doc: 'Engine kind: NaiveEngine runs every op synchronously inside push (for debugging); the threaded kinds run ops asynchronously by dependency.',
  } as EnumSpec<EngineTypeName>,
  MXNET_ENGINE_MAX_PENDING_OPS: {
    kind: 'int',
    default: 1024,
    min: 1,
    doc: '@mx only: queued engine ops beyond which a push runs the ready ones itself, so a loop that never awaits or reads cannot queue work (and its memory) without bound.',
  } as IntSpec,
  MXNET_ENGINE_INFO: {
    kind: 'bool',
    default: false,
    doc: 'Log engine decisions (pushes, waits) to the console.',
  } as BoolSpec,
  MXNET_CPU_WORKER_NTHREADS: {
    kind: 'int',
    default: 1,
    min: 1,
    doc: 'Asynchronous ops that may be in flight at once per CPU context (MXNet: CPU worker threads).',
  } as IntSpec,
  MXNET_CPU_PRIORITY_NTHREADS: {
    kind: 'int',
    default: 4,
    min: 1,
    doc: 'Asynchronous cpuPrioritized ops in flight at once per CPU context (MXNet: CPU priority threads).',
  } as IntSpec,
  MXNET_GPU_WORKER_NTHREADS: {
    kind: 'int',
    default: 2,
    min: 1,
    doc: 'Asynchronous ops in flight at once per GPU context (MXNet: GPU worker threads).',
  } as IntSpec,
  MXNET_GPU_COPY_NTHREADS: {
    kind: 'int',
    default: 2,
    min: 1,
    doc: 'Asynchronous copy ops (copyToGPU/copyFromGPU) in flight at once per GPU context.',
  } as IntSpec,
  MXNET_USE_NAIVE_STORAGE_MANAGER: {
    kind: 'bool',
    default: false,
    doc: 'Disable memory pools on every device.',
  } as BoolSpec,
  ...poolSettings('CPU'),
  ...poolSettings('GPU'),
  ...poolSettings('CPU_PINNED'),
  MXNET_CPU_TEMP_COPY: {
    kind: 'int',
    default: 4,
    min: 1,
    doc: 'Temp-space resources per CPU device, handed out round-robin.',
  } as IntSpec,
  MXNET_GPU_TEMP_COPY: {
    kind: 'int',
    default: 1,
    min: 1,
    doc: 'Temp-space resources per GPU device, handed out round-robin.',
  } as IntSpec,
  MXNET_CPU_PARALLEL_RAND_COPY: {
    kind: 'int',
    default: 1,
    min: 1,
    doc: 'Parallel random generator resources per CPU device.',
  } as IntSpec,
  MXNET_GPU_PARALLEL_RAND_COPY: {
    kind: 'int',
    default: 1,
    min: 1,
    doc: 'Parallel random generator resources per GPU device.',
  } as IntSpec,
  MXNET_PROFILER_AUTOSTART: {
    kind: 'bool',
    default: false,
    doc: 'Start the profiler when the engine is created.',
  } as BoolSpec,
  MXNET_EXEC_BULK_EXEC_TRAIN: {
    kind: 'bool',
    default: true,
    doc: 'Executors and CachedOps push consecutive graph nodes as one engine op in training runs (bulk execution).',
  } as BoolSpec,
  MXNET_EXEC_BULK_EXEC_INFERENCE: {
    kind: 'bool',
    default: true,
    doc: 'Bulk execution in inference runs: a whole forward pass becomes as few engine ops as its kernels allow.',
  } as BoolSpec,
  MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN: {
    kind: 'int',
    default: 15,
    min: 1,
    doc: 'Graph nodes per bulked engine op in training runs.',
  } as IntSpec,
  MXNET_UPDATE_ON_KVSTORE: {
    kind: 'bool',
    default: true,
    doc: "Gluon's Trainer runs the optimizer on the kvstore (when it has one that can) unless told otherwise; 0 updates on the workers.",
  } as BoolSpec,
  MXNET_EXEC_ENABLE_INPLACE: {
    kind: 'bool',
    default: true,
    doc: "Memory planning lets an op write its output over an input it is the last reader of (the op's in-place options).",
  } as BoolSpec,
  MXNET_EXEC_INPLACE_GRAD_SUM_CAP: {
    kind: 'int',
    default: 8,
    min: 1,
    doc: 'Gradients summed with one add_n (ElementWiseSum) node when fewer parts than this; a _grad_add chain otherwise.',
  } as IntSpec,
  NNVM_EXEC_MATCH_RANGE: {
    kind: 'int',
    default: 16,
    min: 0,
    doc: 'Memory planning reuses a free block of size in [size / range, size * range]; 0 turns reuse off.',
  } as IntSpec,
  MXNET_STORAGE_FALLBACK_LOG_VERBOSE: {
    kind: 'bool',
    default: true,
    doc: 'Log "Storage type fallback detected" (once per operator, storage types, params and device) when an op on sparse arrays runs its dense kernel on temporary dense copies; 0 silences it.',
  } as BoolSpec,
  MXNET_USE_FUSION: {
    kind: 'bool',
    default: true,
    doc: 'Executors and CachedOps fuse chains of elementwise ops into one kernel on every backend (MXNet: CUDA only); 0 turns fusion off for debugging.',
  } as BoolSpec,
} as const;

export type SettingName = keyof typeof ENV_SETTINGS;
export type SettingValue<K extends SettingName> =
  (typeof ENV_SETTINGS)[K] extends EnumSpec<infer V>
    ? V
    : (typeof ENV_SETTINGS)[K] extends BoolSpec
      ? boolean
      : number;

const TRUE_STRINGS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_STRINGS = new Set(['0', 'false', 'no', 'off', '']);

type Source = Readonly<Record<string, string | undefined>>;

function processEnv(): Source {
  const p = (globalThis as { process?: { env?: Source } }).process;
  return p?.env ?? {};
}

/** A view of environment settings. Construct from a record, or use {@link Env.fromProcess}. */
export class Env {
  readonly #source: Source;

  constructor(source: Source = {}) {
    this.#source = source;
  }

  /** Settings from `process.env` (live); empty where there is no `process` (browsers). */
  static fromProcess(): Env {
    return new Env(processEnv());
  }

  /** The raw string, or undefined when unset. */
  raw(name: string): string | undefined {
    return this.#source[name];
  }

  /** True when the variable is set (to anything, including empty). */
  isSet(name: string): boolean {
    return this.#source[name] !== undefined;
  }

  /** The typed value of a known setting; its default when unset. Throws MXNetError when malformed. */
  get<K extends SettingName>(name: K): SettingValue<K> {
    const spec: SettingSpec = ENV_SETTINGS[name];
    const text = this.#source[name];
    if (text === undefined) return spec.default as SettingValue<K>;
    return parseSetting(name, spec, text) as SettingValue<K>;
  }

  /** A new Env that sees `overrides` on top of this one. */
  with(overrides: Readonly<Record<string, string | number | boolean | undefined>>): Env {
    const merged: Record<string, string | undefined> = { ...this.#source };
    for (const [k, v] of Object.entries(overrides)) merged[k] = v === undefined ? undefined : String(v);
    return new Env(merged);
  }
}

function parseSetting(name: string, spec: SettingSpec, text: string): number | boolean | string {
  const t = text.trim();
  switch (spec.kind) {
    case 'bool': {
      const lower = t.toLowerCase();
      if (TRUE_STRINGS.has(lower)) return true;
      if (FALSE_STRINGS.has(lower)) return false;
      throw new MXNetError(`environment variable ${name}="${text}" is not a boolean`, {
        op: 'Env',
        hint: `set ${name} to 1 or 0 (or true/false)`,
      });
    }
    case 'int': {
      const v = /^[+-]?\d+$/.test(t) ? Number(t) : Number.NaN;
      if (!Number.isSafeInteger(v)) {
        throw new MXNetError(`environment variable ${name}="${text}" is not an integer`, {
          op: 'Env',
          hint: `set ${name} to an integer (default ${spec.default})`,
        });
      }
      if ((spec.min !== undefined && v < spec.min) || (spec.max !== undefined && v > spec.max)) {
        throw new MXNetError(`environment variable ${name}=${v} is out of range`, {
          op: 'Env',
          hint: `set ${name} to a value in [${spec.min ?? '-inf'}, ${spec.max ?? 'inf'}] (default ${spec.default})`,
        });
      }
      return v;
    }
    case 'enum': {
      if (spec.values.includes(t)) return t;
      throw new MXNetError(`environment variable ${name}="${text}" is not a valid value`, {
        op: 'Env',
        hint: `set ${name} to one of ${spec.values.join(', ')} (default ${spec.default})`,
      });
    }
    default:
      return spec satisfies never;
  }
}
