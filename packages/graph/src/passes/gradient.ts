/**
 * The Gradient pass (nnvm `gradient.cc` with MXNet's `AggregateGradient` from `graph_executor.cc`):
 * given heads `ys`, the gradients flowing into them and entries `xs`, add the backward nodes to the
 * graph and return one gradient entry per x.
 *
 * Gradients are not written here: each op's `GradientSpec` (from `registry.gradient`) is evaluated
 * with a `GradBuilder<NodeEntry>` whose `op(...)` creates graph nodes, so the imperative tape and
 * this pass share one definition per op. The walk is a reverse topological sweep over the indexed
 * graph of `ys`; the gradient parts reaching one entry are summed when its producer is visited,
 * exactly where MXNet aggregates them, with MXNet's node structure (`ElementWiseSum` below the
 * in-place cap, a `_grad_add` chain ending in `identity` above it) so plans and saved graphs look
 * like MXNet's. Only nodes between the xs and the ys are differentiated.
 */
import { MXNetError } from '@mx/base';
import { type GradBuilder, type GradientDef, type OpRegistry, resolveNeeds } from '@mx/ops';
import { IndexedGraph, type IndexedNode } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';

/** MXNet's `MXNET_EXEC_INPLACE_GRAD_SUM_CAP` default. */
export const DEFAULT_AGGREGATE_CAP = 8;

export interface GradientOptions {
  readonly registry: OpRegistry;
  /** Heads to differentiate. */
  readonly ys: readonly NodeEntry[];
  /** The gradient flowing into each head (usually a variable `<head>_head_grad`). */
  readonly yGrads: readonly NodeEntry[];
  /** Entries (variables) to differentiate with respect to. */
  readonly xs: readonly NodeEntry[];
  /** Fewer parts than this are summed with one ElementWiseSum-style node; default 8 (MXNET_EXEC_INPLACE_GRAD_SUM_CAP). */
  readonly aggregateCap?: number;
  /** isTrain seen by gradient builders; default true. */
  readonly isTrain?: boolean;
  /**
   * Op that gives each further x sharing one gradient entry its own copy (MXNet's `copy_op_str`);
   * default `_copy`. `null` returns the shared entry for every such x.
   */
  readonly copyOp?: string | null;
}

export interface AggregateOptions {
  /** Default {@link DEFAULT_AGGREGATE_CAP}. */
  readonly aggregateCap?: number;
  /**
   * Nodes the caller created and may reorder: a `_grad_add` chain gives each part's node a control
   * dependency on the running sum (MXNet's ordering of the summation) only when the node is here.
   * Nodes the aggregation creates are added to it.
   */
  readonly owned?: Set<GraphNode>;
}

/** True for nodes MXNet drops from a sum (`_zeros`, `zeros_like`). */
function isZeroNode(node: GraphNode): boolean {
  const name = node.op?.name;
  return name === '_zeros' || name === 'zeros_like';
}

/**
 * True when `target` is `from` or one of its (input or control) ancestors. Only `owned` nodes are
 * walked: nodes the pass did not create (the forward graph, head gradients) cannot lead back to
 * nodes it created, since only created nodes ever get new control dependencies.
 */
function dependsOn(from: GraphNode, target: GraphNode, owned: ReadonlySet<GraphNode>): boolean {
  const seen = new Set<GraphNode>([from]);
  const stack = [from];
  while (stack.length > 0) {
    const n = stack.pop() as GraphNode;
    if (n === target) return true;
    for (const next of [...n.inputs.map((e) => e.node), ...n.controlDeps]) {
      if (owned.has(next) && !seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return false;
}

/**
 * Sum gradient parts like MXNet's `AggregateGradient`: zeros (`_zeros`/`zeros_like` nodes) are
 * dropped (one kept when all are zero); one part is returned as is; fewer than `aggregateCap`
 * parts become one `add_n` (ElementWiseSum) node named `sum_grad`; more become a chain of
 * `_grad_add` nodes `sum_grad_<i>` closed by an `identity` node `sum_grad_final`. When the registry
 * has no `add_n`, the chain is used for every size. Returns undefined for no parts (MXNet makes a
 * `_zeros_without_dtype` node there; callers here make `zeros_like` of the entry instead).
 */
export function aggregateGradient(
  registry: OpRegistry,
  parts: readonly NodeEntry[],
  options: AggregateOptions = {},
): NodeEntry | undefined {
  if (parts.length === 0) return undefined;
  const cap = options.aggregateCap ?? DEFAULT_AGGREGATE_CAP;
  const owned = options.owned;
  let v = parts.filter((p) => !isZeroNode(p.node));
  if (v.length === 0) v = [parts[0] as NodeEntry];
  if (v.length === 1) return v[0];
  const make = (
    opName: string,
    name: string,
    params: Record<string, unknown> | undefined,
    ins: NodeEntry[],
  ) => {
    const n = GraphNode.fromParams(registry.get(opName), name, params, ins);
    owned?.add(n);
    return entry(n);
  };
  const addN = registry.find('add_n');
  if (v.length < cap && addN !== undefined) return make('add_n', 'sum_grad', { num_args: v.length }, v);
  let ret = v[0] as NodeEntry;
  for (let i = 1; i < v.length; i++) {
    const part = v[i] as NodeEntry;
    // MXNet orders the summation by making each part wait for the running sum. Only nodes this
    // pass owns are touched, and never when the part feeds the running sum (that would be a cycle).
    if (
      owned?.has(part.node) === true &&
      (v[i - 1] as NodeEntry).node !== part.node &&
      !dependsOn(ret.node, part.node, owned)
    ) {
      part.node.controlDeps.push(ret.node);
    }
    ret = make('_grad_add', `sum_grad_${i}`, undefined, [ret, part]);
  }
  return make('identity', 'sum_grad_final', undefined, [ret]);
}

function fail(message: string, node: GraphNode, hint?: string, cause?: unknown): MXNetError {
  return new MXNetError(message, {
    op: node.op?.name ?? 'null',
    params: node.attrs,
    ...(hint !== undefined ? { hint } : {}),
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** Run one node's GradientDef with a builder that creates graph nodes; one entry (or null) per input. */
function buildNodeGradient(
  registry: OpRegistry,
  node: GraphNode,
  spec: GradientDef,
  ograds: readonly (NodeEntry | undefined)[],
  isTrain: boolean,
  owned: Set<GraphNode>,
): readonly (NodeEntry | null)[] {
  const op = node.op as NonNullable<GraphNode['op']>;
  const attrs = node.parsed;
  const nIn = node.inputs.length;
  const nOut = node.numOutputs();
  const inNeeds = new Set(resolveNeeds(spec.inputs, attrs, nIn, 'all'));
  const outNeeds = new Set(resolveNeeds(spec.outputs, attrs, nOut, 'none'));
  let made = 0;
  const create = (
    opName: string,
    name: string,
    params: Readonly<Record<string, unknown>> | undefined,
    ins: readonly NodeEntry[],
  ) => {
    try {
      const gop = registry.get(opName);
      const n = GraphNode.fromParams(gop, name, params, ins, gop.def.isBackward === true ? [node] : []);
      owned.add(n);
      return n;
    } catch (e) {
      if (!(e instanceof MXNetError)) throw e;
      throw fail(`building the gradient of node ${node.name}: ${e.reason}`, node, e.hint, e);
    }
  };
  const undeclared = (what: 'input' | 'output', i: number): never => {
    throw fail(
      `the gradient of ${op.name} (node ${node.name}) reads ${what} ${i}, which it did not declare`,
      node,
      `add ${i} to the op's gradient.${what}s`,
    );
  };
  const zeros: NodeEntry[] = [];
  const builder: GradBuilder<NodeEntry> = {
    isTrain,
    input: (i) => (inNeeds.has(i) ? (node.inputs[i] as NodeEntry) : undeclared('input', i)),
    output: (i) => (outNeeds.has(i) ? entry(node, i) : undeclared('output', i)),
    hasOgrad: (i) => ograds[i] !== undefined,
    ograd: (i) => {
      const g = ograds[i];
      if (g !== undefined) return g;
      if (!(i >= 0 && i < nOut)) throw fail(`node ${node.name} has no output ${i}`, node);
      zeros[i] ??= entry(create('zeros_like', `${node.name}_out${i}_zero_grad`, undefined, [entry(node, i)]));
      return zeros[i] as NodeEntry;
    },
    op: (name, inputs, params) => {
      const n = create(
        name,
        made === 0 ? `${node.name}_backward` : `${node.name}_backward_${made}`,
        params,
        inputs,
      );
      made++;
      return Array.from({ length: n.numVisibleOutputs() }, (_, i) => entry(n, i));
    },
    op1: (name, inputs, params) => builder.op(name, inputs, params)[0] as NodeEntry,
  };
  const grads = spec.build(builder, attrs);
  if (grads.length !== nIn) {
    throw fail(`the gradient of ${op.name} returned ${grads.length} entries for ${nIn} inputs`, node);
  }
  return grads;
}

/**
 * The Gradient pass: one gradient entry per x, built into new nodes on top of the forward graph
 * (which is not changed, except that `_grad_add` chains order the pass's own nodes with control
 * dependencies). An x no gradient reaches gets `zeros_like(x)`; several xs sharing one gradient
 * entry get `_copy` nodes (`<node>_<k>_copy`), as in MXNet.
 *
 * Throws an MXNetError naming the node when an op on the path from the xs to the ys with a
 * gradient flowing into it has no gradient (`FGradient`), or when an x is not in the graph of ys.
 */
export function gradient(options: GradientOptions): NodeEntry[] {
  const { registry, ys, yGrads, xs } = options;
  const isTrain = options.isTrain ?? true;
  const cap = options.aggregateCap ?? DEFAULT_AGGREGATE_CAP;
  const copyOp = options.copyOp === undefined ? '_copy' : options.copyOp;
  if (ys.length !== yGrads.length) {
    throw new MXNetError(`got ${yGrads.length} head gradients for ${ys.length} heads`, {
      op: 'gradient',
      hint: 'pass one gradient entry per head (ys and yGrads have the same length)',
    });
  }
  if (xs.length === 0) return [];
  const idx = new IndexedGraph(ys);
  xs.forEach((x, i) => {
    if (!idx.has(x.node)) {
      throw new MXNetError(
        `Cannot differentiate with respect to the ${i + 1}-th variable (${x.node.name}) because it is unreachable from the outputs.`,
        { op: 'gradient', hint: 'differentiate only with respect to entries the heads are computed from' },
      );
    }
    if (x.index < 0 || x.index >= x.node.numOutputs()) {
      throw fail(`output ${x.index} of node ${x.node.name} does not exist`, x.node);
    }
  });

  // Nodes computed from some x: only their inputs' gradients are needed.
  const nNodes = idx.nodes.length;
  const fromX = new Uint8Array(nNodes);
  for (const x of xs) fromX[idx.nodeId(x.node)] = 1;
  for (let nid = 0; nid < nNodes; nid++) {
    if (fromX[nid] === 1) continue;
    if ((idx.nodes[nid]?.inputs ?? []).some((e) => fromX[e.nodeId] === 1)) fromX[nid] = 1;
  }

  const parts: NodeEntry[][] = Array.from({ length: idx.numNodeEntries }, () => []);
  ys.forEach((y, i) => {
    (parts[idx.entryOf(y)] as NodeEntry[]).push(yGrads[i] as NodeEntry);
  });
  const owned = new Set<GraphNode>();
  const sums = new Map<number, NodeEntry | undefined>();
  const sumOf = (eid: number): NodeEntry | undefined => {
    if (!sums.has(eid)) {
      sums.set(eid, aggregateGradient(registry, parts[eid] as NodeEntry[], { aggregateCap: cap, owned }));
    }
    return sums.get(eid);
  };

  for (let nid = nNodes - 1; nid >= 0; nid--) {
    const inode = idx.nodes[nid] as IndexedNode;
    const node = inode.node;
    if (node.op === null || !inode.inputs.some((e) => fromX[e.nodeId] === 1)) continue;
    const ograds = Array.from({ length: node.numOutputs() }, (_, i) => sumOf(idx.entryId(nid, i)));
    if (ograds.every((g) => g === undefined)) continue;
    const spec = registry.gradient(node.op);
    if (spec === 'zero') continue;
    if (spec === undefined) {
      // MXNet's CheckGradAllZero: only zeros flow in, so the input gradients are zeros too.
      if (ograds.every((g) => g === undefined || isZeroNode(g.node))) continue;
      throw fail(
        `Operator ${node.op.name} is non-differentiable because it didn't register FGradient attribute. (node ${node.name})`,
        node,
        'stop the gradient before this node (BlockGrad / stop_gradient), or do not differentiate through it',
      );
    }
    const grads = buildNodeGradient(registry, node, spec, ograds, isTrain, owned);
    const mutated = new Set(node.mutateInputs());
    inode.inputs.forEach((e, i) => {
      const g = grads[i];
      if (g == null || mutated.has(i) || fromX[e.nodeId] !== 1) return;
      (parts[idx.entryId(e)] as NodeEntry[]).push(g);
    });
  }

  // One entry per x; several xs sharing one gradient entry get copies.
  const uses = new Map<GraphNode, Map<number, number>>();
  return xs.map((x) => {
    const g =
      sumOf(idx.entryOf(x)) ?? entry(addNode(registry, 'zeros_like', `${x.node.name}_zero_grad`, [x], owned));
    sums.set(idx.entryOf(x), g);
    if (copyOp === null) return g;
    let byIndex = uses.get(g.node);
    if (byIndex === undefined) {
      byIndex = new Map();
      uses.set(g.node, byIndex);
    }
    const k = byIndex.get(g.index) ?? 0;
    byIndex.set(g.index, k + 1);
    if (k === 0) return g;
    return entry(addNode(registry, copyOp, `${g.node.name}_${k}_copy`, [g], owned));
  });
}

function addNode(
  registry: OpRegistry,
  opName: string,
  name: string,
  ins: NodeEntry[],
  owned: Set<GraphNode>,
) {
  const n = GraphNode.fromParams(registry.get(opName), name, undefined, ins);
  owned.add(n);
  return n;
}
