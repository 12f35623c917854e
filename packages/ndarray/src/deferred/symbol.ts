/**
 * `dc.getSymbol` (MXNet `Imperative::GetDeferredComputeSymbol`): the recorded history of some
 * outputs as a graph of their own. MXNet returns `Symbol::Copy()` of the outputs' entries; so do
 * we — new nodes with the same ops, names, attributes and edges — so renaming or re-attributing
 * the result (the symbol layer does) never changes what later reads compute.
 *
 * The `inputs` option is the check Gluon makes around it: every variable the outputs read must be
 * one of the given inputs, and an unused input is worth a warning.
 */
import { MXNetError } from '@mx/base';
import { dfsPostOrder, entry, Graph, GraphNode, type NodeEntry } from '@mx/graph';
import type { NDArray } from '../ndarray.js';
import { type NodeInfo, OUTPUT_MESSAGE } from './info.js';

export interface GetSymbolOptions {
  /**
   * The graph's inputs, each bound with `dc.setVariable`: every variable the outputs depend on
   * must be one of them.
   */
  readonly inputs?: NDArray | readonly NDArray[];
  /** Receives the warning for an input no output uses; default `console.warn`. */
  readonly warn?: (message: string) => void;
}

/** The recorded entries of `outputs` (MXNet's check: each must have a deferred compute history). */
function headEntries(
  lookup: (n: GraphNode) => NodeInfo | undefined,
  outputs: readonly NDArray[],
): NodeEntry[] {
  return outputs.map((a, i) => {
    a.checkLive('dc.getSymbol');
    const e = a.dcEntry;
    if (e === undefined || lookup(e.node) === undefined) {
      throw new MXNetError(OUTPUT_MESSAGE, {
        op: 'dc.getSymbol',
        shapes: [a.shape],
        hint: `output ${i} (${a.describe()}) was not produced inside dc.context() and is not a variable`,
      });
    }
    return entry(e.node, e.index);
  });
}

/** Check the variables the outputs read against `inputs`; warn about unused inputs. */
function checkInputs(
  lookup: (n: GraphNode) => NodeInfo | undefined,
  heads: readonly NodeEntry[],
  inputs: readonly NDArray[],
  warn: (message: string) => void,
): void {
  const allowed = new Set<GraphNode>();
  inputs.forEach((a, i) => {
    const node = a.dcEntry?.node;
    if (node === undefined || lookup(node)?.kind !== 'variable') {
      throw new MXNetError(`input ${i} (${a.describe()}) is not a deferred compute variable`, {
        op: 'dc.getSymbol',
        hint: 'bind every input with dc.setVariable(array, name) before recording',
      });
    }
    allowed.add(node);
  });
  const used = new Set<GraphNode>();
  heads.forEach((head, k) => {
    if (head.node.isVariable && !allowed.has(head.node)) {
      throw new MXNetError(
        `output ${k} is not computable from the given inputs: it is variable '${head.node.name}', which is not among them`,
        { op: 'dc.getSymbol', hint: 'add the array bound to it to inputs' },
      );
    }
    dfsPostOrder([head.node], (node) => {
      if (node.isVariable) {
        used.add(node);
        return;
      }
      for (const e of node.inputs) {
        if (!e.node.isVariable || allowed.has(e.node)) continue;
        throw new MXNetError(
          `output ${k} is not computable from the given inputs: node ${node.name} (${node.op?.name}) reads variable '${e.node.name}', which is not among them`,
          {
            op: node.op?.name,
            hint: `add the array bound to '${e.node.name}' to inputs (or bind that array to one of them)`,
          },
        );
      }
    });
  });
  inputs.forEach((a, i) => {
    const node = a.dcEntry?.node as GraphNode;
    if (!used.has(node))
      warn(`The ${i}-th input ('${node.name}') is not used by any computation. Is this intended?`);
  });
}

/** A copy of the graph of `heads` (MXNet `Symbol::Copy`). */
function copyGraph(heads: readonly NodeEntry[]): Graph {
  const copies = new Map<GraphNode, GraphNode>();
  const mapEntry = (e: NodeEntry) => entry(copies.get(e.node) as GraphNode, e.index, e.version);
  dfsPostOrder(
    heads.map((e) => e.node),
    (n) => {
      const copy =
        n.op === null
          ? GraphNode.variable(n.name, n.attrs)
          : GraphNode.create(
              n.op,
              n.name,
              n.attrs,
              n.inputs.map(mapEntry),
              n.controlDeps.map((c) => copies.get(c) as GraphNode),
            );
      copies.set(n, copy);
    },
  );
  return new Graph(heads.map(mapEntry));
}

export function getSymbol(
  lookup: (n: GraphNode) => NodeInfo | undefined,
  outputs: readonly NDArray[],
  options: GetSymbolOptions,
): Graph {
  const heads = headEntries(lookup, outputs);
  if (options.inputs !== undefined) {
    const inputs = Array.isArray(options.inputs) ? options.inputs : [options.inputs as NDArray];
    checkInputs(lookup, heads, inputs, options.warn ?? ((m) => console.warn(m)));
  }
  return copyGraph(heads);
}
