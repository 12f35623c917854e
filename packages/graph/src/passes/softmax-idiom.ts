/**
 * The softmax idiom as one op: `exp(x - max(x, axis, keepdims)) / sum(exp(...), axis, keepdims)`
 * written from elementwise and reduce ops becomes the `softmax` operator over that axis — one
 * kernel instead of a reduce, a fused elementwise kernel, a second reduce and a divide, i.e. one
 * pass over the data fewer than even the best fusion gives (the sum needs exp's values, so a chain
 * cannot swallow it). This is the "softmax fed by such a chain" case of fusion, done as compilers
 * do it: by recognising the pattern, which is exactly the operator's definition.
 *
 * Only applied when the intermediates have no other reader (in a training graph the gradient pass
 * reads them, so it keeps the ops it differentiated), the reductions are over one axis with
 * keepdims, and the dtype is floating point. The rewritten graph shares every other node.
 */
import type { DTypeName, Shape } from '@mx/base';
import type { OpRegistry } from '@mx/ops';
import type { IndexedEntry, IndexedGraph } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';

export interface SoftmaxIdiomOptions {
  readonly registry: OpRegistry;
  /** Per-entry shapes and dtypes of `idx` (inference results). */
  readonly shapes: readonly (Shape | undefined)[];
  readonly dtypes: readonly (DTypeName | undefined)[];
}

export interface SoftmaxIdiomResult {
  /** Outputs of the rewritten graph, in the order of `idx.outputs`. */
  readonly outputs: NodeEntry[];
  /** How many softmax ops replaced an idiom. */
  readonly rewritten: number;
}

const FLOAT: ReadonlySet<DTypeName> = new Set<DTypeName>(['float32', 'float64', 'float16']);

/** The single axis a reduce node reduces over with keepdims, or undefined. */
function keepdimsAxis(parsed: Readonly<Record<string, unknown>>, ndim: number): number | undefined {
  if (parsed.keepdims !== true || parsed.exclude === true) return undefined;
  const axis = parsed.axis;
  const a = Array.isArray(axis) ? (axis.length === 1 ? axis[0] : undefined) : axis;
  if (typeof a !== 'number' || a < -ndim || a >= ndim) return undefined;
  return a < 0 ? a + ndim : a;
}

/** Replace every softmax idiom of `idx` by a `softmax` node. */
export function rewriteSoftmaxIdiom(idx: IndexedGraph, opts: SoftmaxIdiomOptions): SoftmaxIdiomResult {
  const n = idx.nodes.length;
  const readers = new Int32Array(idx.numNodeEntries);
  const read = (eid: number): void => {
    readers[eid] = (readers[eid] as number) + 1;
  };
  for (const node of idx.nodes) for (const e of node.inputs) read(idx.entryId(e));
  for (const o of idx.outputs) read(idx.entryId(o));
  const opName = (nid: number): string | undefined => idx.nodes[nid]?.node.op?.name;
  const input = (nid: number, i: number): IndexedEntry => idx.nodes[nid]?.inputs[i] as IndexedEntry;
  const single = (e: IndexedEntry, count: number): boolean =>
    e.index === 0 && readers[idx.entryId(e)] === count && (idx.nodes[e.nodeId]?.node.numOutputs() ?? 0) === 1;

  /** For a broadcast_div node: [x entry, axis] when it closes a softmax idiom. */
  const match = (nid: number): [IndexedEntry, number] | undefined => {
    if (opName(nid) !== 'broadcast_div') return undefined;
    const [eIn, sIn] = [input(nid, 0), input(nid, 1)];
    if (opName(sIn.nodeId) !== 'sum' || opName(eIn.nodeId) !== 'exp') return undefined;
    if (input(sIn.nodeId, 0).nodeId !== eIn.nodeId || !single(sIn, 1) || !single(eIn, 2)) return undefined;
    const dIn = input(eIn.nodeId, 0);
    if (opName(dIn.nodeId) !== 'broadcast_sub' || !single(dIn, 1)) return undefined;
    const [xIn, mIn] = [input(dIn.nodeId, 0), input(dIn.nodeId, 1)];
    if (opName(mIn.nodeId) !== 'max' || !single(mIn, 1)) return undefined;
    if (input(mIn.nodeId, 0).nodeId !== xIn.nodeId || input(mIn.nodeId, 0).index !== xIn.index)
      return undefined;
    const xShape = opts.shapes[idx.entryId(xIn)];
    const dt = opts.dtypes[idx.entryId(nid, 0)];
    if (xShape === undefined || dt === undefined || !FLOAT.has(dt)) return undefined;
    const ndim = xShape.length;
    const a = keepdimsAxis(idx.nodes[mIn.nodeId]?.node.parsed ?? {}, ndim);
    const b = keepdimsAxis(idx.nodes[sIn.nodeId]?.node.parsed ?? {}, ndim);
    if (a === undefined || a !== b) return undefined;
    const outShape = opts.shapes[idx.entryId(nid, 0)];
    if (outShape === undefined || outShape.length !== ndim || outShape.some((d, i) => d !== xShape[i]))
      return undefined;
    return [xIn, a];
  };

  const softmax = opts.registry.get('softmax');
  const rebuilt = new Array<GraphNode | undefined>(n);
  const at = (e: IndexedEntry): NodeEntry => entry(rebuilt[e.nodeId] as GraphNode, e.index, e.version);
  let rewritten = 0;
  for (let nid = 0; nid < n; nid++) {
    const { node, inputs, controlDeps } = idx.nodes[nid] as IndexedGraph['nodes'][number];
    const m = match(nid);
    if (m !== undefined) {
      rebuilt[nid] = GraphNode.fromParams(softmax, node.name, { axis: m[1] }, [at(m[0])]);
      rewritten++;
      continue;
    }
    if (node.op === null) {
      rebuilt[nid] = node;
      continue;
    }
    const deps = controlDeps.map((c) => rebuilt[c] as GraphNode);
    const same =
      inputs.every((e, i) => rebuilt[e.nodeId] === (node.inputs[i] as NodeEntry).node) &&
      deps.every((d, i) => d === node.controlDeps[i]);
    rebuilt[nid] = same ? node : GraphNode.create(node.op, node.name, node.attrs, inputs.map(at), deps);
  }
  return { outputs: idx.outputs.map(at), rewritten };
}
