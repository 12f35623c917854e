/**
 * What deferred compute keeps (MXNet's `DCInfo` and `deferredcompute_entry_`), and its error texts.
 *
 * The recorded graph is @mx/graph's IR itself: every recorded call is a `GraphNode` whose inputs are
 * the entries of the arrays it read, so `getSymbol` only copies nodes. What the IR cannot hold —
 * how to run a node imperatively later — sits beside it in a per-node `NodeInfo`, looked up in a
 * WeakMap owned by the runtime's `DeferredCompute`: a cleared or unreachable graph takes its infos
 * with it. An info holds its node's deferred outputs only until the node is computed (MXNet
 * clears `DCInfo::outputs_` then too); afterwards it keeps the computed chunk objects, not the
 * arrays — a chunk released by its arrays (dispose, or the safety net) is simply not found again.
 * No WeakRef: V8 keeps a WeakRef's target alive until the current job ends, which would pin every
 * array of a synchronous trace-and-read loop.
 */
import { type Context, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { GraphNode } from '@mx/graph';
import type { Op } from '@mx/ops';
import type { Chunk } from '../chunk.js';
import type { NDArray, OpParams } from '../ndarray.js';

/** Where an array sits in a recorded graph: a variable, or output `index` of a recorded op. */
export interface DCEntry {
  readonly node: GraphNode;
  readonly index: number;
}

/** A variable (`dc.setVariable`): the array whose values it stands for. */
export interface VariableInfo {
  readonly kind: 'variable';
  readonly array: NDArray;
}

/** A recorded op call: enough to run it imperatively, with the arrays waiting for its outputs. */
export interface OpInfo {
  readonly kind: 'op';
  readonly op: Op;
  /** The call's params as given (invoke parses them again, exactly as the eager call would). */
  readonly params: OpParams | undefined;
  readonly ctx: Context;
  /** Training mode given to the call; undefined: autograd's flag when the node is computed (MXNet). */
  readonly isTrain: boolean | undefined;
  /**
   * The deferred array of each visible output (hidden outputs have none), until the node is
   * computed; then cleared, so the graph never keeps a computed array alive.
   */
  readonly outputs: (NDArray | undefined)[];
  /** Conversions of deferred outputs (`asNpArray` on a deferred array): computed with their output. */
  aliases?: NDArray[];
  /** Each output's storage once computed into a held array (found again while that storage lives). */
  readonly computed: (ComputedValue | undefined)[];
  /** Set for views (`reshape`, `slice`, `at`): computed as a view of input 0, sharing its storage. */
  readonly view?: { readonly shape: Shape; readonly byteDelta: number };
}

/** Where a computed output's values are: a chunk (reference-counted by its arrays) and a window. */
export interface ComputedValue {
  readonly chunk: Chunk;
  readonly byteOffset: number;
  readonly shape: Shape;
  readonly dtype: DTypeName;
}

export type NodeInfo = VariableInfo | OpInfo;

// ---- MXNet's messages (src/imperative/imperative.cc) -------------------------------------------

/** `RecordDeferredCompute`, an output that already has a deferred compute entry. */
export const INPLACE_MESSAGE =
  'Inplace operations (+=, -=, x[:]=, etc) are not supported when recording in deferred compute mode.';

/** `RecordDeferredCompute` while autograd records. */
export const AUTOGRAD_MESSAGE = 'Autograd recording is not supported during deferred compute mode.';

/** `RecordDeferredCompute`, an input without a deferred compute entry. */
export const INPUT_MESSAGE =
  'All inputs to deferred compute recording must be associated with a symbolic variable or be the output of a deferred compute operator.';

/** `GetDeferredComputeSymbol`, an output without a deferred compute entry. */
export const OUTPUT_MESSAGE =
  'output_arrays for GetDeferredComputeSymbol must have a deferred compute history associated with them.';

/** The in-place error for `what` (an op name or an NDArray method) writing into `target`. */
export function inplaceError(what: string, target: NDArray | undefined): MXNetError {
  return new MXNetError(INPLACE_MESSAGE, {
    op: what,
    ...(target === undefined ? {} : { shapes: [target.shape], dtypes: [target.dtype] }),
    device: target?.ctx.toString(),
    hint: 'inside dc.context() every result is a new array: write x = x.add(y) instead of an in-place update or out=',
  });
}
