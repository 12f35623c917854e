/**
 * The graph an executor binds (MXNet GraphExecutor's `InitFullGraph`): the symbol's outputs, then —
 * when any argument wants a gradient — the gradient pass's nodes, with one head-gradient variable
 * per output and one gradient entry per differentiated argument. Node ids are DFS post-order from
 * the forward outputs first, so the forward nodes are exactly ids [0, numForward) and forward and
 * backward are two node ranges of one runner.
 *
 * A gradient entry is written straight into the caller's gradient array when only that argument
 * takes it; otherwise (a variable such as a head gradient, a forward output, an entry another node
 * reads) a `_copy` node gives the argument its own entry, so accumulating (`gradReq 'add'`) never
 * changes a value someone else reads.
 *
 * Arguments and aux states are listed as MXNet lists them: variables in node order, aux states
 * being those some op mutates (`FMutateInputs`).
 */
import { MXNetError } from '@mx/base';
import { entry, GraphNode, gradient, IndexedGraph, type NodeEntry } from '@mx/graph';
import type { OpRegistry } from '@mx/ops';

/** What an executor needs of a symbol: its output entries. */
export interface SymbolLike {
  readonly outputs: readonly NodeEntry[];
}

/** Gradient request per argument (MXNet `grad_req`). */
export type GradReq = 'write' | 'add' | 'null';

/** Names and nodes of a symbol's arguments, aux states and outputs. */
export interface SymbolLayout {
  readonly symbol: SymbolLike;
  /** The forward graph. */
  readonly forward: IndexedGraph;
  readonly argNodes: readonly GraphNode[];
  readonly argNames: readonly string[];
  readonly auxNodes: readonly GraphNode[];
  readonly auxNames: readonly string[];
  /** MXNet's `list_outputs()`: `<node>_<output>`, or the variable's name. */
  readonly outputNames: readonly string[];
}

export function symbolLayout(symbol: SymbolLike): SymbolLayout {
  if (
    symbol === null ||
    typeof symbol !== 'object' ||
    !Array.isArray(symbol.outputs) ||
    symbol.outputs.length === 0
  ) {
    throw new MXNetError('expected a symbol with at least one output', {
      op: 'bind',
      hint: 'pass a Symbol (or any object with `outputs: NodeEntry[]`)',
    });
  }
  const forward = new IndexedGraph(symbol.outputs);
  const argNodes: GraphNode[] = [];
  const auxNodes: GraphNode[] = [];
  for (const nid of forward.inputNodes) {
    const node = (forward.nodes[nid] as IndexedGraph['nodes'][number]).node;
    (forward.mutableInputNodes.has(nid) ? auxNodes : argNodes).push(node);
  }
  const outputNames = symbol.outputs.map((e) =>
    e.node.op === null
      ? e.node.name
      : `${e.node.name}_${e.node.listOutputNames()[e.index] ?? `output${e.index}`}`,
  );
  const names = new Set<string>();
  for (const n of [...argNodes, ...auxNodes]) {
    if (names.has(n.name)) {
      throw new MXNetError(`two variables of the symbol are named ${n.name}`, {
        op: 'bind',
        hint: 'give every variable a unique name: arguments are bound by name',
      });
    }
    names.add(n.name);
  }
  return {
    symbol,
    forward,
    argNodes,
    argNames: argNodes.map((n) => n.name),
    auxNodes,
    auxNames: auxNodes.map((n) => n.name),
    outputNames,
  };
}

/** The bound graph: forward + backward, and where its parts are. */
export interface BoundGraph {
  readonly idx: IndexedGraph;
  /** Forward nodes are ids [0, numForward). */
  readonly numForward: number;
  /** Entry id of each forward output. */
  readonly outputEntries: readonly number[];
  /** Per argument: the entry id its gradient is written from, or -1 (gradReq null). */
  readonly gradEntries: readonly number[];
  /** Per output: the node id of its head-gradient variable, or -1 when nothing reads it. */
  readonly headGradNodes: readonly number[];
}

/**
 * Build the forward (+ backward) graph for these gradient requests; `aggregateCap` is the gradient
 * pass's ElementWiseSum/_grad_add threshold (MXNET_EXEC_INPLACE_GRAD_SUM_CAP, default 8).
 */
export function buildBoundGraph(
  registry: OpRegistry,
  layout: SymbolLayout,
  reqs: readonly GradReq[],
  aggregateCap?: number,
): BoundGraph {
  const ys = layout.symbol.outputs;
  const xsIdx = reqs.flatMap((r, i) => (r === 'null' ? [] : [i]));
  if (xsIdx.length === 0) {
    const idx = layout.forward;
    return {
      idx,
      numForward: idx.nodes.length,
      outputEntries: ys.map((e) => idx.entryOf(e)),
      gradEntries: reqs.map(() => -1),
      headGradNodes: ys.map(() => -1),
    };
  }
  const headVars = layout.outputNames.map((name) => GraphNode.variable(`${name}_head_grad`));
  const xs = xsIdx.map((i) => entry(layout.argNodes[i] as GraphNode));
  let grads = gradient({
    registry,
    ys,
    yGrads: headVars.map((v) => entry(v)),
    xs,
    isTrain: true,
    ...(aggregateCap !== undefined ? { aggregateCap } : {}),
  });

  // Give an argument its own entry wherever writing (or adding) into its array in place of the
  // entry would be seen by someone else.
  const probe = new IndexedGraph([...ys, ...grads]);
  const readers = new Uint32Array(probe.numNodeEntries);
  const read = (eid: number) => {
    readers[eid] = (readers[eid] as number) + 1;
  };
  for (const n of probe.nodes) for (const e of n.inputs) read(probe.entryId(e));
  for (const e of ys) read(probe.entryOf(e));
  const seen = new Set<number>();
  const copy = registry.get('_copy');
  grads = grads.map((g, k) => {
    const eid = probe.entryOf(g);
    const own = g.node.op !== null && readers[eid] === 0 && !seen.has(eid);
    seen.add(eid);
    if (own) return g;
    const x = layout.argNodes[xsIdx[k] as number] as GraphNode;
    return entry(GraphNode.create(copy, `${x.name}_grad_copy`, {}, [g]));
  });

  const idx = new IndexedGraph([...ys, ...grads]);
  const numForward = layout.forward.nodes.length;
  for (let nid = 0; nid < numForward; nid++) {
    if (idx.nodes[nid]?.node !== layout.forward.nodes[nid]?.node) {
      throw new MXNetError('internal error: the bound graph does not start with the forward graph', {
        op: 'bind',
      });
    }
  }
  const gradEntries: number[] = reqs.map(() => -1);
  xsIdx.forEach((i, k) => {
    gradEntries[i] = idx.entryOf(grads[k] as NodeEntry);
  });
  return {
    idx,
    numForward,
    outputEntries: ys.map((e) => idx.entryOf(e)),
    gradEntries,
    headGradNodes: headVars.map((v) => (idx.has(v) ? idx.nodeId(v) : -1)),
  };
}
