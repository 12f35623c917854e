/**
 * The vocabulary of optimizer states (MXNet's `create_state` results): a state is nothing, an
 * NDArray or a tuple of them, and a template says what `createState` allocates and `update`
 * checks: each array's role, dtype, shape (the weight's unless given) and storage type (dense, or
 * row_sparse for the states MXNet creates with a row_sparse weight's storage type).
 */
import type { DTypeName } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import type { StateStorage } from './sparse.js';

/** An optimizer state: none, an array, or a (nested) tuple of them, as MXNet's Python returns. */
export type OptimizerState = NDArray | null | readonly OptimizerState[];

/** One state array: its role, dtype, and (default: the weight's) shape; dense unless `stype` says. */
export interface StateSlot {
  readonly name: string;
  readonly dtype: DTypeName;
  /** The state's shape when it is not the weight's (GroupAdaGrad's history: one value per row). */
  readonly shape?: readonly number[];
  /** `row_sparse` for MXNet's states created with the weight's storage type (every row stored). */
  readonly stype?: StateStorage;
}

/** The layout `createState` allocates (zeros) and `update` checks. */
export type StateTemplate = StateSlot | null | readonly StateTemplate[];

/** What the optimizer reads of a Gluon parameter (MXNet `param_dict` values). */
export interface ParamAttrs {
  readonly lrMult: number;
  readonly wdMult: number;
}

/** The shape, dtype and storage type of a weight (templates depend on nothing else). */
export interface WeightInfo {
  readonly shape: readonly number[];
  readonly dtype: DTypeName;
  /** Default `default` (dense). */
  readonly stype?: string;
}

/** A state slot (for templates), optionally with its own shape or a row_sparse storage type. */
export function slot(
  name: string,
  dtype: DTypeName,
  extra: { readonly shape?: readonly number[]; readonly stype?: StateStorage } = {},
): StateSlot {
  return { name, dtype, ...extra };
}
