/**
 * Copying a symbol's graph (nnvm `Symbol::Copy`) and composing one (the general branch of nnvm
 * `Symbol::Compose`: variables replaced by name), plus the write counters of variables.
 *
 * Symbols share nodes, so building on a symbol never changes it; `copy()` and composition make new
 * nodes for everything reachable — variables included, as nnvm does — except where a variable is
 * replaced: there the new graph points at the given symbol's nodes, which stay shared.
 *
 * Variable versions: nnvm counts the writes to a variable (an op that mutates it, such as
 * BatchNorm's moving statistics, bumps it) and stores the count in each entry reading it, which
 * symbol JSON keeps (`[3, 0, 1]`). GraphNode has no slot for it, so the counters live in a
 * WeakMap owned by the SymbolApi (`VariableVersions`).
 */
import { MXNetError } from '@mx/base';
import { dfsPostOrder, entry, GraphNode, type NodeEntry } from '@mx/graph';

/** Write counters of variable nodes (nnvm `VariableParam.version`). */
export class VariableVersions {
  readonly #versions = new WeakMap<GraphNode, number>();

  /** The variable's current version (0 until an op mutates it). */
  of(node: GraphNode): number {
    return this.#versions.get(node) ?? 0;
  }

  /** Count one more write to the variable; returns the new version. */
  bump(node: GraphNode): number {
    const v = this.of(node) + 1;
    this.#versions.set(node, v);
    return v;
  }

  /** Make sure the counter is at least `version` (graphs loaded from JSON carry their versions). */
  atLeast(node: GraphNode, version: number): void {
    if (version > this.of(node)) this.#versions.set(node, version);
  }
}

/**
 * Copy the graph of `outputs`. `replace(variable)` may return the entry that takes a variable's
 * place; such variables are not copied and the entries reading them (outputs too) read the
 * replacement, as nnvm's compose plan does (`*entry = *replacement`).
 */
export function copyGraph(
  outputs: readonly NodeEntry[],
  versions: VariableVersions,
  replace?: (variable: GraphNode) => NodeEntry | undefined,
): NodeEntry[] {
  const copies = new Map<GraphNode, GraphNode>();
  const replaced = new Map<GraphNode, NodeEntry>();
  const mapEntry = (e: NodeEntry): NodeEntry => {
    const r = replaced.get(e.node);
    if (r !== undefined) return r;
    return entry(copies.get(e.node) as GraphNode, e.index, e.version);
  };
  dfsPostOrder(
    outputs.map((e) => e.node),
    (node) => {
      if (node.op === null) {
        const r = replace?.(node);
        if (r !== undefined) {
          replaced.set(node, r);
          return;
        }
        const v = GraphNode.variable(node.name, node.attrs);
        versions.atLeast(v, versions.of(node));
        copies.set(node, v);
        return;
      }
      const controlDeps = node.controlDeps.map((c) => {
        const cc = copies.get(c);
        if (cc === undefined) {
          throw new MXNetError(`control dependency ${c.name} of ${node.name} was replaced by composition`, {
            op: node.op?.name,
            hint: 'compose a variable that is no control dependency',
          });
        }
        return cc;
      });
      copies.set(
        node,
        GraphNode.create(node.op, node.name, node.attrs, node.inputs.map(mapEntry), controlDeps),
      );
    },
  );
  return outputs.map(mapEntry);
}

/** Every node reachable from `outputs`, in DFS post-order (the order of JSON nodes). */
export function postOrderNodes(outputs: readonly NodeEntry[]): GraphNode[] {
  const out: GraphNode[] = [];
  dfsPostOrder(
    outputs.map((e) => e.node),
    (n) => out.push(n),
  );
  return out;
}
