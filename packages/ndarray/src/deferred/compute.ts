/**
 * Computing a deferred array (MXNet `DCInfo::Compute`): run, imperatively and in order, exactly the
 * recorded nodes its value needs — the same invoke path, params and kernels as the eager call, so
 * the values are the eager ones bit for bit.
 *
 * MXNet recurses through the inputs of the array's node and keeps every intermediate alive through
 * copies held by the nodes. Here the plan is an iterative post-order walk (a 10,000-node chain must
 * not overflow the stack) that stops at values that exist: variables' arrays, and outputs computed
 * earlier whose storage is still alive. Each computed output goes to its deferred array unless that
 * array was disposed (it gets the storage, as in MXNet; one the program merely dropped is freed by
 * the safety net); otherwise it is a temporary, disposed right after its last reader in the plan
 * was pushed. So reading one output of a traced forward whose intermediates a scope disposed
 * leaves only that output allocated; an intermediate disposed before a later read needs it again
 * is recomputed (the same values, except for random ops — MXNet would still hold it).
 */
import { MXNetError } from '@mx/base';
import type { GraphNode, NodeEntry } from '@mx/graph';
import { invokeOp } from '../invoke.js';
import { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import type { NodeInfo, OpInfo } from './info.js';

/** How compute looks up a node's info (the runtime's DeferredCompute). */
export type InfoLookup = (node: GraphNode) => NodeInfo | undefined;

function clearedError(node: GraphNode): MXNetError {
  return new MXNetError(
    `node ${node.name} (${node.op?.name ?? 'variable'}) was cleared (dc.clear), so its value can no longer be computed`,
    {
      op: 'deferred compute',
      hint: 'read (or dc.compute) deferred arrays before clearing their graph, or record them again',
    },
  );
}

/**
 * Values that exist already: variables' arrays (borrowed) and outputs computed into a chunk that
 * is still alive (viewed through a temporary array, disposed when the computation ends).
 */
class Existing {
  readonly #rt: Runtime;
  readonly #lookup: InfoLookup;
  readonly #views = new Map<GraphNode, (NDArray | undefined)[]>();

  constructor(rt: Runtime, lookup: InfoLookup) {
    this.#rt = rt;
    this.#lookup = lookup;
  }

  /** The value of `e` if it exists, else undefined (its node must run). */
  get(e: NodeEntry): NDArray | undefined {
    const info = this.#lookup(e.node);
    if (info === undefined) throw clearedError(e.node);
    if (info.kind === 'variable') {
      if (info.array.isDisposed) {
        throw new MXNetError(`variable '${e.node.name}' of the deferred graph is bound to a disposed array`, {
          op: 'deferred compute',
          shapes: [info.array.shape],
          hint: 'keep the arrays given to dc.setVariable alive until the deferred arrays depending on them are read',
        });
      }
      return info.array;
    }
    const held = info.outputs[e.index];
    if (held !== undefined && !held.isDisposed && !held.isDeferred) return held;
    let views = this.#views.get(e.node);
    const cached = views?.[e.index];
    if (cached !== undefined) return cached;
    const c = info.computed[e.index];
    if (c === undefined || !c.chunk.live) return undefined;
    c.chunk.retain();
    const view = new NDArray(this.#rt, c.chunk, c.shape, c.dtype, c.byteOffset);
    if (views === undefined) {
      views = [];
      this.#views.set(e.node, views);
    }
    views[e.index] = view;
    return view;
  }

  dispose(): void {
    for (const views of this.#views.values()) for (const v of views) v?.dispose();
  }
}

/** The nodes to run for `target`, inputs first, and how many planned readers each output has. */
function plan(
  lookup: InfoLookup,
  existing: Existing,
  target: GraphNode,
): { order: GraphNode[]; uses: Map<GraphNode, number[]> } {
  const order: GraphNode[] = [];
  const uses = new Map<GraphNode, number[]>();
  const stack: [GraphNode, number][] = [[target, 0]];
  uses.set(target, []);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as [GraphNode, number];
    const [node, i] = top;
    if (i === 0 && lookup(node) === undefined) throw clearedError(node);
    if (i < node.inputs.length) {
      top[1] = i + 1;
      const e = node.inputs[i] as NodeEntry;
      if (existing.get(e) !== undefined) continue;
      let counts = uses.get(e.node);
      if (counts === undefined) {
        counts = [];
        uses.set(e.node, counts);
        stack.push([e.node, 0]);
      }
      counts[e.index] = (counts[e.index] ?? 0) + 1;
    } else {
      stack.pop();
      order.push(node);
    }
  }
  return { order, uses };
}

/** Run one recorded node on its input values; returns every output (hidden ones included). */
function runNode(rt: Runtime, node: GraphNode, info: OpInfo, inputs: NDArray[]): NDArray[] {
  const x = inputs[0] as NDArray;
  if (info.view !== undefined) return [rt.view(x, info.view.shape, x.byteOffset + info.view.byteDelta)];
  if (info.op.def.crossDeviceCopy) return [rt.copy(x, info.ctx)];
  const isTrain = info.isTrain ?? rt.autograd.isTraining;
  try {
    return invokeOp(rt, info.op, inputs, info.params, { ctx: info.ctx, isTrain }, isTrain).outputs;
  } catch (e) {
    if (!(e instanceof MXNetError)) throw e;
    throw new MXNetError(`computing deferred node ${node.name}: ${e.reason}`, {
      op: e.op ?? info.op.name,
      params: e.params,
      shapes: e.shapes,
      dtypes: e.dtypes,
      device: e.device,
      hint: e.hint,
      cause: e,
    });
  }
}

/** Hand a computed output's storage to the deferred array waiting for it; remember the storage. */
function adopt(info: OpInfo, index: number, owner: NDArray, value: NDArray): void {
  const chunk = value.chunk;
  chunk.retain();
  owner.adoptChunk(chunk, value.byteOffset);
  info.computed[index] = { chunk, byteOffset: value.byteOffset, shape: value.shape, dtype: value.dtype };
  value.dispose();
}

/**
 * Compute the deferred array `target` (and every deferred array still held whose node the plan
 * runs). Deferred compute must be off while this runs (the caller switches it off).
 */
export function computeDeferred(rt: Runtime, lookup: InfoLookup, target: NDArray): void {
  const e = target.dcEntry;
  if (e === undefined)
    throw new MXNetError('a deferred array without a recorded node', { op: 'deferred compute' });
  const existing = new Existing(rt, lookup);
  const values = new Map<GraphNode, (NDArray | undefined)[]>();
  const temps = new Set<NDArray>();
  try {
    const { order, uses } = plan(lookup, existing, e.node);
    const inputValue = (x: NodeEntry) => values.get(x.node)?.[x.index] ?? (existing.get(x) as NDArray);
    for (const node of order) {
      const info = lookup(node) as OpInfo;
      const outs = runNode(rt, node, info, node.inputs.map(inputValue));
      // Inputs read for the last time in this plan: their temporaries go (the op is pushed already).
      for (const x of node.inputs) {
        const counts = uses.get(x.node);
        const left = counts?.[x.index];
        if (counts === undefined || left === undefined) continue;
        counts[x.index] = left - 1;
        const v = values.get(x.node)?.[x.index];
        if (left === 1 && v !== undefined && temps.delete(v)) v.dispose();
      }
      const slot: (NDArray | undefined)[] = [];
      const counts = uses.get(node) as number[];
      for (let i = 0; i < outs.length; i++) {
        const v = outs[i] as NDArray;
        const held = info.outputs[i];
        const aliases = info.aliases?.filter((a) => a.dcEntry?.index === i && !a.isDisposed) ?? [];
        const owner = held !== undefined && !held.isDisposed ? held : aliases.shift();
        if (owner !== undefined) {
          adopt(info, i, owner, v);
          for (const a of aliases) {
            owner.chunk.retain();
            a.adoptChunk(owner.chunk, owner.byteOffset);
          }
          slot[i] = owner;
        } else if ((counts[i] ?? 0) > 0) {
          temps.add(v);
          slot[i] = v;
        } else v.dispose();
      }
      // Computed (MXNet clears DCInfo's outputs here): the graph no longer holds the arrays.
      info.outputs.fill(undefined);
      info.aliases = undefined;
      values.set(node, slot);
    }
  } finally {
    for (const v of temps) v.dispose();
    existing.dispose();
  }
}
