/**
 * Fusion of a bound graph (forward + backward) with @mx/graph's `rewriteSoftmaxIdiom` (softmax
 * written from ops becomes the softmax op) and `fuseElementwise`, keeping everything the executor
 * knows about the graph valid on the result.
 *
 * The bound graph's op nodes are first copied without control dependencies: the gradient pass
 * gives each backward node a control dependency on its forward node (for inference) and orders
 * `_grad_add` chains with them, and a dependency on a node that fusion folds into another would
 * point nowhere. Shapes and dtypes are already inferred, so the dependencies are not needed any
 * more; dropping them also lets backward chains fuse. Each copy is named by the id of the node it
 * copies, so every node of the fused graph (copies, nodes fusion rebuilt, fused nodes named after
 * their root) can be traced back to the original; names are restored afterwards.
 *
 * The fused graph is then re-inferred with every variable seeded and every traced entry pinned, so
 * inference checks the fused ops' own shapes and dtypes against what they replace. Variables are
 * shared between the graphs (arguments, aux states and head gradients keep their nodes) and the
 * outputs keep their order, so output, gradient and head-gradient bookkeeping carries over; the
 * forward/backward split is recomputed: forward nodes are those reachable from the forward
 * outputs, which come first in the fused graph's DFS order.
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import {
  entry,
  fuseElementwise,
  GraphNode,
  IndexedGraph,
  inferShape,
  inferType,
  rewriteSoftmaxIdiom,
} from '@mx/graph';
import type { OpRegistry } from '@mx/ops';
import type { BoundGraph } from './graph.js';
import type { EntryTypes } from './infer.js';

/** A bound graph after fusion. */
export interface FusedBound {
  readonly bound: BoundGraph;
  readonly types: EntryTypes;
  /** Fused nodes made (0: the input graph is returned unchanged). */
  readonly fusedNodes: number;
  /** Original op nodes those replace. */
  readonly fusedOps: number;
}

/** Prefix of the temporary names; never a name a user gives (control character). */
const TAG = '\u0001';
const FUSED_SUFFIX = '_fused';

function internal(message: string, cause?: unknown): MXNetError {
  return new MXNetError(`internal error in elementwise fusion: ${message}`, {
    op: 'fuseElementwise',
    hint: 'bind with { fusion: false } (or set MXNET_USE_FUSION=0) to run without fusion, and report the graph',
    ...(cause !== undefined ? { cause } : {}),
  });
}

/**
 * Fuse `bound` (whose first `numOutputs` outputs are the forward outputs) given its inferred
 * `types`. Returns the input unchanged when nothing fuses.
 */
export function fuseBound(
  registry: OpRegistry,
  bound: BoundGraph,
  types: EntryTypes,
  numOutputs: number,
  reducePrologue = false,
): FusedBound {
  const idx = bound.idx;
  const n = idx.nodes.length;
  const copies: GraphNode[] = new Array(n);
  for (let nid = 0; nid < n; nid++) {
    const { node, inputs } = idx.nodes[nid] as IndexedGraph['nodes'][number];
    copies[nid] =
      node.op === null
        ? node
        : GraphNode.create(
            node.op,
            `${TAG}${nid}`,
            node.attrs,
            inputs.map((e) => entry(copies[e.nodeId] as GraphNode, e.index, e.version)),
          );
  }
  let work = new IndexedGraph(
    idx.outputs.map((o) => entry(copies[o.nodeId] as GraphNode, o.index, o.version)),
  );

  /** Original node id of each node of `g` (a copy, a rebuilt copy, a fused node or a shared variable). */
  const origins = (g: IndexedGraph): Int32Array =>
    Int32Array.from(g.nodes, ({ node }) => {
      if (node.op === null) return idx.nodeId(node);
      const id = node.name.startsWith(TAG) ? Number.parseInt(node.name.slice(TAG.length), 10) : Number.NaN;
      if (!(id >= 0 && id < n)) throw internal(`node ${node.name} does not come from the bound graph`);
      return id;
    });
  const transfer = (g: IndexedGraph, from: Int32Array) => {
    const shapes: (Shape | undefined)[] = new Array(g.numNodeEntries);
    const dtypes: (DTypeName | undefined)[] = new Array(g.numNodeEntries);
    g.nodes.forEach(({ node }, nid) => {
      for (let k = 0; k < node.numOutputs(); k++) {
        const src = idx.entryId(from[nid] as number, k);
        shapes[g.entryId(nid, k)] = types.shapes[src];
        dtypes[g.entryId(nid, k)] = types.dtypes[src];
      }
    });
    return { shapes, dtypes };
  };

  let wt = transfer(work, origins(work));
  // Softmax idioms first (one op for five), then elementwise chains. A softmax keeps the copy's
  // name of the divide it replaces, so it traces back to that node like any rebuilt copy.
  const sm = rewriteSoftmaxIdiom(work, { registry, shapes: wt.shapes, dtypes: wt.dtypes });
  if (sm.rewritten > 0) {
    work = new IndexedGraph(sm.outputs);
    wt = transfer(work, origins(work));
  }
  const res = fuseElementwise(work, { shapes: wt.shapes, dtypes: wt.dtypes, reducePrologue });
  if (res.fusedNodes === 0 && sm.rewritten === 0) return { bound, types, fusedNodes: 0, fusedOps: 0 };

  const fused = new IndexedGraph(res.outputs);
  const from = origins(fused);
  for (const { node } of fused.nodes) {
    if (node.op === null) continue;
    const original = (idx.nodes[from[fused.nodeId(node)] as number] as IndexedGraph['nodes'][number]).node;
    node.name = node.name.endsWith(FUSED_SUFFIX) ? `${original.name}${FUSED_SUFFIX}` : original.name;
  }
  const pinned = transfer(fused, from);
  const varShapes = new Map<number, Shape>();
  const varTypes = new Map<number, DTypeName>();
  const entShapes = new Map<number, Shape>();
  const entTypes = new Map<number, DTypeName>();
  fused.nodes.forEach(({ node }, nid) => {
    for (let k = 0; k < node.numOutputs(); k++) {
      const eid = fused.entryId(nid, k);
      const s = pinned.shapes[eid];
      const t = pinned.dtypes[eid];
      if (s !== undefined) node.op === null ? varShapes.set(nid, s) : entShapes.set(eid, s);
      if (t !== undefined) node.op === null ? varTypes.set(nid, t) : entTypes.set(eid, t);
    }
  });
  let out: EntryTypes;
  try {
    out = {
      shapes: [...inferShape(fused, { nodes: varShapes, entries: entShapes }).values],
      dtypes: [...inferType(fused, { nodes: varTypes, entries: entTypes }).values],
    };
  } catch (e) {
    throw internal('the fused graph does not infer to the shapes and dtypes of the original', e);
  }
  for (let eid = 0; eid < fused.numNodeEntries; eid++) {
    const s = out.shapes[eid];
    if (s === undefined || s.some((d) => d < 0) || out.dtypes[eid] === undefined) {
      throw internal(`entry ${eid} of the fused graph has no shape or dtype`);
    }
  }

  const forwardOutputs = res.outputs.slice(0, numOutputs);
  const forwardIdx = new IndexedGraph(forwardOutputs);
  const numForward = forwardIdx.nodes.length;
  for (let nid = 0; nid < numForward; nid++) {
    if (fused.nodes[nid]?.node !== forwardIdx.nodes[nid]?.node) {
      throw internal('the fused graph does not start with its forward nodes');
    }
  }
  // Gradient entries are the outputs after the forward ones, in argument order.
  const position = new Map<number, number>();
  for (let p = numOutputs; p < idx.outputs.length; p++) {
    position.set(idx.entryId(idx.outputs[p] as IndexedGraph['outputs'][number]), p);
  }
  const gradEntries = bound.gradEntries.map((eid) => {
    if (eid < 0) return -1;
    const p = position.get(eid);
    if (p === undefined) throw internal('a gradient entry is not an output of the bound graph');
    return fused.entryOf(res.outputs[p] as (typeof res.outputs)[number]);
  });
  const headGradNodes = bound.headGradNodes.map((nid) => {
    if (nid < 0) return -1;
    const v = (idx.nodes[nid] as IndexedGraph['nodes'][number]).node;
    return fused.has(v) ? fused.nodeId(v) : -1;
  });
  return {
    bound: {
      idx: fused,
      numForward,
      outputEntries: forwardOutputs.map((e) => fused.entryOf(e)),
      gradEntries,
      headGradNodes,
    },
    types: out,
    fusedNodes: res.fusedNodes + sm.rewritten,
    fusedOps: res.fusedOps + 5 * sm.rewritten,
  };
}
