/**
 * `Graph` and its indexed view (nnvm `Graph` / `IndexedGraph`): passes work on integer ids, not on
 * node objects. Nodes are numbered in nnvm's DFS post-order from the outputs (inputs first, then
 * control deps, each in order) — the order MXNet writes JSON nodes in, so an indexed graph and a
 * saved file agree on every id. Each node's outputs get consecutive *entry ids* (`rowPtr`), which
 * is how per-entry attributes (shapes, dtypes, storage ids) are stored: flat arrays.
 *
 * The traversal is iterative: a 10,000-node chain must not overflow the JavaScript stack.
 */
import { MXNetError } from '@mx/base';
import type { GraphNode, NodeEntry } from './node.js';

/** An entry by ids. */
export interface IndexedEntry {
  readonly nodeId: number;
  readonly index: number;
  readonly version: number;
}

export interface IndexedNode {
  readonly node: GraphNode;
  readonly inputs: readonly IndexedEntry[];
  readonly controlDeps: readonly number[];
}

/**
 * Visit every node reachable from `heads` once, in DFS post-order (inputs in order, then control
 * deps). A cycle is an MXNetError naming a node on it.
 */
export function dfsPostOrder(heads: readonly GraphNode[], visit: (node: GraphNode) => void): void {
  const done = new Set<GraphNode>();
  const onStack = new Set<GraphNode>();
  const stack: [GraphNode, number][] = [];
  for (const head of heads) {
    if (done.has(head)) continue;
    stack.push([head, 0]);
    onStack.add(head);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [GraphNode, number];
      const [node, i] = top;
      const nIn = node.inputs.length;
      if (i < nIn + node.controlDeps.length) {
        top[1] = i + 1;
        const next = i < nIn ? (node.inputs[i] as NodeEntry).node : (node.controlDeps[i - nIn] as GraphNode);
        if (done.has(next)) continue;
        if (onStack.has(next)) {
          throw new MXNetError(`the graph has a cycle through node ${next.name}`, {
            op: next.op?.name ?? 'null',
            hint: 'a node cannot (indirectly) take its own output as input',
          });
        }
        stack.push([next, 0]);
        onStack.add(next);
      } else {
        stack.pop();
        onStack.delete(node);
        done.add(node);
        visit(node);
      }
    }
  }
}

/** The indexed view of a graph (nnvm `IndexedGraph`). */
export class IndexedGraph {
  /** Nodes in DFS post-order: producers before consumers. */
  readonly nodes: readonly IndexedNode[];
  /** Ids of every variable node, in order (JSON `arg_nodes`: arguments and aux states). */
  readonly inputNodes: readonly number[];
  /** Ids of variables some op writes (aux states: FMutateInputs). */
  readonly mutableInputNodes: ReadonlySet<number>;
  /** The graph outputs. */
  readonly outputs: readonly IndexedEntry[];
  /** Entry id of `(nodeId, 0)`; length `nodes.length + 1` (JSON `node_row_ptr`). */
  readonly rowPtr: readonly number[];
  readonly #ids: Map<GraphNode, number>;

  constructor(outputs: readonly NodeEntry[]) {
    const ids = new Map<GraphNode, number>();
    const order: GraphNode[] = [];
    dfsPostOrder(
      outputs.map((e) => e.node),
      (n) => {
        ids.set(n, order.length);
        order.push(n);
      },
    );
    this.#ids = ids;
    const toIndexed = (e: NodeEntry): IndexedEntry => ({
      nodeId: ids.get(e.node) as number,
      index: e.index,
      version: e.version,
    });
    const inputNodes: number[] = [];
    const mutable = new Set<number>();
    const rowPtr: number[] = [0];
    this.nodes = order.map((node, nid) => {
      if (node.op === null) inputNodes.push(nid);
      rowPtr.push((rowPtr[nid] as number) + node.numOutputs());
      const inputs = node.inputs.map(toIndexed);
      for (const i of node.mutateInputs()) {
        const e = inputs[i];
        if (e !== undefined && (order[e.nodeId] as GraphNode).op === null) mutable.add(e.nodeId);
      }
      return { node, inputs, controlDeps: node.controlDeps.map((c) => ids.get(c) as number) };
    });
    for (const e of outputs) {
      if (e.index < 0 || e.index >= e.node.numOutputs()) {
        throw new MXNetError(`output ${e.index} of node ${e.node.name} does not exist`, {
          op: e.node.op?.name ?? 'null',
          hint: `the node has ${e.node.numOutputs()} output(s)`,
        });
      }
    }
    this.inputNodes = inputNodes;
    this.mutableInputNodes = mutable;
    this.rowPtr = rowPtr;
    this.outputs = outputs.map(toIndexed);
  }

  /** Number of entries (every output of every node). */
  get numNodeEntries(): number {
    return this.rowPtr[this.nodes.length] as number;
  }

  /** The id of a node of this graph (MXNetError when it is not in it). */
  nodeId(node: GraphNode): number {
    const id = this.#ids.get(node);
    if (id === undefined) {
      throw new MXNetError(`node ${node.name} is not in this graph`, { op: node.op?.name ?? 'null' });
    }
    return id;
  }

  /** True when the node is in this graph. */
  has(node: GraphNode): boolean {
    return this.#ids.has(node);
  }

  /** Entry id of output `index` of node `nodeId`, or of an IndexedEntry. */
  entryId(nodeId: number | IndexedEntry, index = 0): number {
    if (typeof nodeId === 'number') return (this.rowPtr[nodeId] as number) + index;
    return (this.rowPtr[nodeId.nodeId] as number) + nodeId.index;
  }

  /** Entry id of a NodeEntry of this graph. */
  entryOf(e: NodeEntry): number {
    return this.entryId(this.nodeId(e.node), e.index);
  }
}

/**
 * A graph (nnvm `Graph`): output entries plus graph-level attributes (`mxnet_version`, pass
 * results). The indexed view is built on first use and cached; the graph must not be changed after.
 */
export class Graph {
  readonly outputs: readonly NodeEntry[];
  readonly attrs = new Map<string, unknown>();
  #indexed: IndexedGraph | undefined;

  constructor(outputs: readonly NodeEntry[]) {
    this.outputs = [...outputs];
  }

  get indexed(): IndexedGraph {
    this.#indexed ??= new IndexedGraph(this.outputs);
    return this.#indexed;
  }
}
