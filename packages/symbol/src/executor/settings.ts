/**
 * MXNet's graph-execution environment settings, read once when an Executor binds or a CachedOp is
 * created (MXNet reads them with `dmlc::GetEnv` at the same points), with the caller's options
 * taking precedence. One place turns them into what the passes and the runner take, so executors
 * and CachedOps cannot drift apart.
 */
import { type Env, MXNetError } from '@mx/base';
import type { PlanMemoryOptions } from '@mx/graph';

/** Options that override the environment. */
export interface GraphSettingOverrides {
  /** Fuse elementwise chains; default `MXNET_USE_FUSION` (on). */
  readonly fusion?: boolean;
  /** Op nodes per engine op in training runs; default `MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN` (15). */
  readonly bulkSize?: number;
}

/** Everything the graph passes and the runner need from the environment. */
export interface GraphSettings {
  readonly fusion: boolean;
  /** Op nodes per engine op in training runs (1 when `MXNET_EXEC_BULK_EXEC_TRAIN` is off). */
  readonly bulkSize: number;
  /** Op nodes per engine op in inference runs (unbounded unless `MXNET_EXEC_BULK_EXEC_INFERENCE` is off). */
  readonly inferenceBulkSize: number;
  /** `MXNET_EXEC_INPLACE_GRAD_SUM_CAP`: the gradient pass's ElementWiseSum/_grad_add threshold. */
  readonly aggregateCap: number;
  /** `MXNET_EXEC_ENABLE_INPLACE` and `NNVM_EXEC_MATCH_RANGE` as planMemory options. */
  readonly plan: Pick<PlanMemoryOptions, 'inplace' | 'reuse' | 'matchRange'>;
}

/** A positive integer option, or an MXNetError naming it. */
export function checkCount(value: number | undefined, name: string, op: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new MXNetError(`${name} must be a positive integer, got ${value}`, { op });
  }
  return value;
}

/** Read the settings from `env`, `overrides` first. */
export function graphSettings(env: Env, overrides: GraphSettingOverrides = {}, op = 'bind'): GraphSettings {
  const bulk = checkCount(overrides.bulkSize, 'bulkSize', op);
  const range = env.get('NNVM_EXEC_MATCH_RANGE');
  return {
    fusion: overrides.fusion ?? env.get('MXNET_USE_FUSION'),
    bulkSize:
      bulk ?? (env.get('MXNET_EXEC_BULK_EXEC_TRAIN') ? env.get('MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN') : 1),
    inferenceBulkSize: env.get('MXNET_EXEC_BULK_EXEC_INFERENCE') ? Number.POSITIVE_INFINITY : 1,
    aggregateCap: env.get('MXNET_EXEC_INPLACE_GRAD_SUM_CAP'),
    plan: {
      inplace: env.get('MXNET_EXEC_ENABLE_INPLACE'),
      reuse: range > 0,
      matchRange: Math.max(1, range),
    },
  };
}
