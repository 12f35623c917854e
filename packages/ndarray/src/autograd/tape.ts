/**
 * The autograd tape (MXNet `Imperative::RecordOp` / `AGInfo`): while recording, every op with a
 * tracked input becomes a node holding what its gradient declared it needs — the forward inputs
 * and outputs listed in the op's `GradientDef` and nothing else, kept alive as retained views —
 * plus links to the nodes that produced its inputs. Arrays point at the node output they hold
 * (`NDArray.agEntry`); leaves are variable nodes made by `attachGrad`.
 *
 * Nodes are plain objects reachable only from arrays' entries, so an unused graph is collected
 * with the arrays; `release` frees the saved views eagerly after a backward pass.
 */
import type { DTypeName, Shape } from '@mx/base';
import { type GradientSpec, type Op, resolveNeeds, type StorageType } from '@mx/ops';
import type { NDArray } from '../ndarray.js';

export type GradReq = 'write' | 'add' | 'null';

/** `attachGrad`'s options (MXNet `attach_grad(grad_req='write', stype=None)`). */
export interface AttachGradOptions {
  /** How backward passes treat the buffer (default 'write'). */
  readonly gradReq?: GradReq;
  /**
   * Storage type of the gradient buffer: 'row_sparse' or 'csr' make a sparse buffer (all zeros, no
   * stored rows); default the array's own storage type (MXNet's `zeros_like`).
   */
  readonly stype?: StorageType;
}

/** A user-defined differentiable function's backward (autograd.Function). */
export interface CustomBackward {
  readonly name: string;
  /**
   * Gradients of the inputs from those of the outputs. `dests[i]`, when given, is the `.grad`
   * buffer of input i (a variable with gradReq 'write' that nothing else sends a gradient to): the
   * backward may write input i's gradient there and return that array, which saves a copy.
   */
  backward(
    ograds: readonly NDArray[],
    dests?: readonly (NDArray | undefined)[],
  ): readonly (NDArray | null | undefined)[];
}

export interface AGNode {
  /** The op, or null for variables and custom functions. */
  readonly op: Op | null;
  readonly attrs: Readonly<Record<string, unknown>>;
  /** Producer of each input (null: the input is not tracked). */
  readonly inputs: readonly (AGEntry | null)[];
  /** Saved forward inputs/outputs (only those the gradient reads). */
  savedInputs: (NDArray | undefined)[];
  savedOutputs: (NDArray | undefined)[];
  readonly outShapes: readonly Shape[];
  readonly outDTypes: readonly DTypeName[];
  readonly inShapes: readonly Shape[];
  readonly isTrain: boolean;
  readonly gradient: GradientSpec | undefined;
  readonly custom?: CustomBackward;
  /**
   * For variables: where the gradient goes, and whether a backward pass wrote it since the flag was
   * last cleared (MXNet's `_fresh_grad`, which Gluon's Trainer checks for stale gradients).
   */
  readonly variable?: {
    readonly array: NDArray;
    grad: NDArray | undefined;
    gradReq: GradReq;
    fresh: boolean;
  };
  /** Set when a backward pass without retainGraph released the saved arrays. */
  freed: boolean;
}

export interface AGEntry {
  readonly node: AGNode;
  readonly index: number;
}

/** Retain `a` for the tape: a view on the same storage that scopes and the user cannot dispose. */
export type Retain = (a: NDArray) => NDArray;

export function variableNode(array: NDArray, grad: NDArray | undefined, gradReq: GradReq): AGNode {
  return {
    op: null,
    attrs: {},
    inputs: [],
    savedInputs: [],
    savedOutputs: [],
    outShapes: [array.shape],
    outDTypes: [array.dtype],
    inShapes: [],
    isTrain: false,
    gradient: undefined,
    variable: { array, grad, gradReq, fresh: false },
    freed: false,
  };
}

/** Record an op call whose inputs include tracked arrays; sets the outputs' entries. */
export function recordOp(
  op: Op,
  gradient: GradientSpec | undefined,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  outputs: readonly NDArray[],
  isTrain: boolean,
  retain: Retain,
): AGNode {
  const nIn = inputs.length;
  const nOut = outputs.length;
  const entries: (AGEntry | null)[] = new Array(nIn);
  const inShapes: Shape[] = new Array(nIn);
  for (let i = 0; i < nIn; i++) {
    const a = inputs[i] as NDArray;
    entries[i] = a.agEntry ?? null;
    inShapes[i] = a.shape;
  }
  const savedInputs: (NDArray | undefined)[] = new Array(nIn);
  const savedOutputs: (NDArray | undefined)[] = new Array(nOut);
  if (gradient !== undefined && gradient !== 'zero') {
    for (const i of resolveNeeds(gradient.inputs, attrs, nIn, 'all'))
      savedInputs[i] = retain(inputs[i] as NDArray);
    for (const i of resolveNeeds(gradient.outputs, attrs, nOut, 'none'))
      savedOutputs[i] = retain(outputs[i] as NDArray);
  }
  const node: AGNode = {
    op,
    attrs,
    inputs: entries,
    savedInputs,
    savedOutputs,
    outShapes: outputs.map((o) => o.shape),
    outDTypes: outputs.map((o) => o.dtype),
    inShapes,
    isTrain,
    gradient,
    freed: false,
  };
  for (let i = 0; i < nOut; i++) (outputs[i] as NDArray).agEntry = { node, index: i };
  return node;
}

/** Record a custom function call (autograd.Function). */
export function recordCustom(
  custom: CustomBackward,
  inputs: readonly NDArray[],
  outputs: readonly NDArray[],
  isTrain: boolean,
): AGNode {
  const node: AGNode = {
    op: null,
    attrs: {},
    inputs: inputs.map((a) => a.agEntry ?? null),
    savedInputs: [],
    savedOutputs: [],
    outShapes: outputs.map((o) => o.shape),
    outDTypes: outputs.map((o) => o.dtype),
    inShapes: inputs.map((a) => a.shape),
    isTrain,
    gradient: undefined,
    custom,
    freed: false,
  };
  outputs.forEach((o, i) => {
    o.agEntry = { node, index: i };
  });
  return node;
}

/** Dispose the saved views of a node (after a backward pass that does not retain the graph). */
export function release(node: AGNode): void {
  if (node.variable !== undefined) return;
  for (const a of node.savedInputs) a?.dispose();
  for (const a of node.savedOutputs) a?.dispose();
  node.savedInputs = [];
  node.savedOutputs = [];
  node.freed = true;
}
