/**
 * Elementwise fusion (beyond MXNet, which fuses pointwise ops only on CUDA through NVRTC): chains of
 * SimpleOps whose intermediates nobody else reads become one node whose op is the composed
 * expression, so each backend's expression compiler (wasm, WGSL) turns the chain into one kernel.
 *
 * Why composition is sound with broadcasting: an elementwise op commutes with broadcasting,
 * f(bcast(a), bcast(b)) = bcast(f(a, b)), so evaluating the whole tree at each element of the final
 * output — with every leaf input broadcast NumPy-style to that output — gives what the chain of
 * kernels gives. Ops that read their inputs through other views (`where`'s row condition) are not
 * fused. Only floating-point chains are fused: integer ops convert scalars and intermediates to the
 * compute dtype at each step, which one composed expression would not reproduce.
 *
 * The pass rewrites a graph into a new one (variables are shared, so argument lists and bound
 * arrays still line up) and keeps the order of the outputs; it needs per-entry shapes and dtypes
 * from the inference passes. Fused ops are not registered: each is an `Op` object of its own whose
 * name says what it computes (`_fused_broadcast_sub_exp`), cached per expression within one pass.
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import {
  E,
  type ElementwiseDef,
  type Expr,
  exprKey,
  type FusedReduceDef,
  fusedReduceOp,
  Op,
  substituteExpr,
} from '@mx/ops';
import type { IndexedGraph } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';

export interface FuseOptions {
  /** Per-entry shapes of `idx` (from inferShape). */
  readonly shapes: readonly (Shape | undefined)[];
  /** Per-entry dtypes of `idx` (from inferType). */
  readonly dtypes: readonly (DTypeName | undefined)[];
  /** Smallest number of ops worth fusing; default 2. */
  readonly minOps?: number;
  /** Largest group (keeps generated kernels and their compilation small); default 64. */
  readonly maxOps?: number;
  /** Largest composed expression, in expression nodes, duplicated reads included; default 256. */
  readonly maxExprSize?: number;
  /**
   * Also fold elementwise producers into the `sum`, `mean`, `max` or `min` reading them, when the
   * reduction is over trailing axes and every leaf has the reduction input's shape (a fused
   * reduction op, `OpDef.fusedReduce`). Only for backends that compile those
   * (`registry.compilesFusedReduce`); default false.
   */
  readonly reducePrologue?: boolean;
}

export interface FuseResult {
  /** Outputs of the rewritten graph, in the order of `idx.outputs`. */
  readonly outputs: NodeEntry[];
  /** Number of fused nodes made. */
  readonly fusedNodes: number;
  /** Number of original op nodes they replace. */
  readonly fusedOps: number;
}

const FLOAT_TYPES: ReadonlySet<DTypeName> = new Set<DTypeName>(['float32', 'float64', 'float16']);

function broadcastShapes(name: string, shapes: readonly Shape[]): number[] {
  const n = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(n).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const d = s[s.length - 1 - i] as number;
      const k = n - 1 - i;
      const o = out[k] as number;
      if (d === o || d === 1) continue;
      if (o === 1) out[k] = d;
      else {
        throw new MXNetError(`operands could not be broadcast together in fused node ${name}`, {
          op: name,
          shapes,
        });
      }
    }
  }
  return out;
}

/** A fused op: one composed expression over `arity` inputs (NumPy broadcasting when `broadcast`). */
function fusedOp(name: string, forward: Expr, arity: number, broadcast: boolean): Op {
  const elementwise: ElementwiseDef = { forward, broadcast };
  return new Op({
    name,
    doc: `fused elementwise chain: ${exprKey(forward)}`,
    numInputs: arity,
    listInputNames: Array.from({ length: arity }, (_, i) => `arg${i}`),
    inferShape: (_attrs, inS, outS) => {
      if (inS.some((s) => s === undefined)) return false;
      const out = broadcastShapes(name, inS as Shape[]);
      outS[0] = out;
      return out.every((d) => d >= 0);
    },
    inplaceOption: () => (broadcast ? [] : [[0, 0]]),
    elementwise,
  });
}

function isFusable(node: GraphNode, idx: IndexedGraph, nid: number, opts: FuseOptions): boolean {
  const op = node.op;
  if (op === null || op.elementwise === undefined || op.elementwise.inputViews !== undefined) return false;
  if (node.numOutputs() !== 1 || node.controlDeps.length > 0) return false;
  const out = idx.entryId(nid, 0);
  const dt = opts.dtypes[out];
  if (dt === undefined || !FLOAT_TYPES.has(dt) || opts.shapes[out] === undefined) return false;
  for (const e of (idx.nodes[nid] as { inputs: readonly { nodeId: number; index: number }[] }).inputs) {
    const id = idx.entryId(e.nodeId, e.index);
    if (opts.dtypes[id] !== dt || opts.shapes[id] === undefined) return false;
  }
  return true;
}

/** A parameter's value as a constant leaf (fused ops have no parameters). */
function paramConst(params: Readonly<Record<string, unknown>>, name: string, op: string): Expr {
  const v = params[name];
  const n = typeof v === 'boolean' ? Number(v) : v;
  if (typeof n !== 'number') {
    throw new MXNetError(`cannot fuse ${op}: parameter ${name} is not a number`, { op, params });
  }
  return E.c(n);
}

/** Number of nodes of an expression tree. */
function exprSize(e: Expr): number {
  switch (e.k) {
    case 'unary':
      return 1 + exprSize(e.a);
    case 'binary':
      return 1 + exprSize(e.a) + exprSize(e.b);
    case 'select':
      return 1 + exprSize(e.cond) + exprSize(e.a) + exprSize(e.b);
    default:
      return 1;
  }
}

/** How many times `input(i)` occurs in `e`. */
function uses(e: Expr, i: number): number {
  switch (e.k) {
    case 'input':
      return e.index === i ? 1 : 0;
    case 'unary':
      return uses(e.a, i);
    case 'binary':
      return uses(e.a, i) + uses(e.b, i);
    case 'select':
      return uses(e.cond, i) + uses(e.a, i) + uses(e.b, i);
    default:
      return 0;
  }
}

type INode = IndexedGraph['nodes'][number];

const REDUCERS: Readonly<Record<string, FusedReduceDef['reducer']>> = {
  sum: 'sum',
  mean: 'mean',
  max: 'max',
  min: 'min',
};

/**
 * The first reduced axis when a reduction's axes (MXNet's `axis`, null or () for all; `exclude`
 * false) are exactly the trailing [k, ndim); undefined otherwise.
 */
function trailingAxis(ndim: number, axis: readonly number[] | null | undefined): number | undefined {
  if (ndim === 0) return undefined;
  if (axis === null || axis === undefined || axis.length === 0) return 0;
  const set = new Set(axis.map((a) => (a < 0 ? a + ndim : a)));
  if ([...set].some((a) => a < 0 || a >= ndim)) return undefined;
  const k = ndim - set.size;
  for (let a = k; a < ndim; a++) if (!set.has(a)) return undefined;
  return k;
}

/**
 * Fuse elementwise chains of `idx`. A group is a tree: a root (an elementwise node whose value
 * something else needs) and producers computed inside its kernel — each fusable, with exactly one
 * reader (the member reading it), within the op and expression-size budgets.
 */
export function fuseElementwise(idx: IndexedGraph, opts: FuseOptions): FuseResult {
  const minOps = opts.minOps ?? 2;
  const maxOps = Math.max(minOps, opts.maxOps ?? 64);
  const budget = opts.maxExprSize ?? 256;
  const nNodes = idx.nodes.length;
  const node = (id: number): INode => idx.nodes[id] as INode;
  // Readers per entry (graph outputs count as readers).
  const readers = new Int32Array(idx.numNodeEntries);
  const read = (id: number): void => {
    readers[id] = (readers[id] as number) + 1;
  };
  for (const n of idx.nodes) for (const e of n.inputs) read(idx.entryId(e.nodeId, e.index));
  for (const o of idx.outputs) read(idx.entryId(o.nodeId, o.index));
  // Readers that use only the entry's shape (`ignoreInputs`: `_backward_sum` reads its data input
  // for the shape): a reduction's prologue may absorb an entry they read, handing them a leaf of the
  // same shape and dtype instead.
  const shapeOnly = new Int32Array(idx.numNodeEntries);
  for (const n of idx.nodes) {
    const op = n.node.op;
    if (op === null) continue;
    for (const i of op.ignoreInputs(n.node.parsed)) {
      const e = n.inputs[i];
      if (e !== undefined) {
        const id = idx.entryId(e.nodeId, e.index);
        shapeOnly[id] = (shapeOnly[id] as number) + 1;
      }
    }
  }

  const fusable = new Uint8Array(nNodes);
  for (let nid = 0; nid < nNodes; nid++) if (isFusable(node(nid).node, idx, nid, opts)) fusable[nid] = 1;

  // Greedy in topological order: a node absorbs a producer when the producer's composed expression
  // (already final: producers come first), counted once per use, keeps its own within the budget.
  // A producer read twice (relu reads x twice) is then computed twice — cheap arithmetic instead of
  // a round trip through memory — and the budget keeps such duplication from compounding.
  const absorbedBy = new Int32Array(nNodes).fill(-1);
  const cost = new Int32Array(nNodes);
  const members = new Int32Array(nNodes);
  for (let nid = 0; nid < nNodes; nid++) {
    if (!fusable[nid]) continue;
    const n = node(nid);
    const forward = ((n.node.op as Op).elementwise as ElementwiseDef).forward;
    let c = exprSize(forward);
    let m = 1;
    n.inputs.forEach((e, i) => {
      const p = e.nodeId;
      if (!fusable[p] || absorbedBy[p] !== -1 || readers[idx.entryId(p, 0)] !== 1) return;
      const extra = uses(forward, i) * ((cost[p] as number) - 1);
      if (c + extra > budget || m + (members[p] as number) > maxOps) return;
      absorbedBy[p] = nid;
      c += extra;
      m += members[p] as number;
    });
    cost[nid] = c;
    members[nid] = m;
  }
  // group[n] = the root whose kernel computes n (-1: n runs as it is). Groups below minOps split
  // into their members' own groups.
  const group = new Int32Array(nNodes).fill(-1);
  const roots: number[] = [];
  for (let nid = 0; nid < nNodes; nid++) if (fusable[nid] && absorbedBy[nid] === -1) roots.push(nid);
  while (roots.length > 0) {
    const r = roots.pop() as number;
    if ((members[r] as number) < minOps) {
      for (let p = 0; p < r; p++) if (absorbedBy[p] === r) roots.push(p);
      continue;
    }
    const stack = [r];
    while (stack.length > 0) {
      const m = stack.pop() as number;
      group[m] = r;
      for (const e of node(m).inputs) if (absorbedBy[e.nodeId] === m) stack.push(e.nodeId);
    }
  }

  // Reductions taking their producer's kernel as prologue: producer → reduction node.
  const isMember = (root: number, id: number): boolean => id === root || (group[id] === root && root >= 0);
  const leafEntries = (root: number): INode['inputs'][number][] => {
    const out: INode['inputs'][number][] = [];
    const stack = [root];
    while (stack.length > 0) {
      const m = stack.pop() as number;
      for (const e of node(m).inputs) {
        if (isMember(root, e.nodeId) && e.nodeId !== m) stack.push(e.nodeId);
        else out.push(e);
      }
    }
    return out;
  };
  const intoReduce = new Int32Array(nNodes).fill(-1);
  /** Absorbed producer → the leaf entry its shape-only readers get instead. */
  const standIn = new Map<number, INode['inputs'][number]>();
  const reduceOf = new Map<
    number,
    { p: number; axis: number; keepdims: boolean; reducer: FusedReduceDef['reducer'] }
  >();
  if (opts.reducePrologue) {
    for (let nid = 0; nid < nNodes; nid++) {
      const n = node(nid);
      const reducer = n.node.op === null ? undefined : REDUCERS[n.node.op.name];
      if (reducer === undefined || n.inputs.length !== 1 || n.node.controlDeps.length > 0) continue;
      const e = n.inputs[0] as INode['inputs'][number];
      const p = e.nodeId;
      const pe = idx.entryId(p, e.index);
      const real = (readers[pe] as number) - (shapeOnly[pe] as number);
      if (!fusable[p] || real !== 1 || (group[p] !== -1 && group[p] !== p)) continue;
      const inShape = opts.shapes[pe] as Shape;
      const attrs = n.node.parsed as { axis?: number[] | null; keepdims?: boolean; exclude?: boolean };
      if (attrs.exclude === true) continue;
      const axis = trailingAxis(inShape.length, attrs.axis);
      if (axis === undefined) continue;
      const leafList = leafEntries(p);
      const same = leafList.every((le) => {
        const s = opts.shapes[idx.entryId(le.nodeId, le.index)] as Shape;
        return s.length === inShape.length && s.every((d, i) => d === inShape[i]);
      });
      if (!same) continue;
      intoReduce[p] = nid;
      reduceOf.set(nid, { p, axis, keepdims: attrs.keepdims === true, reducer });
      standIn.set(p, leafList[0] as INode['inputs'][number]);
    }
  }

  const rebuilt = new Array<GraphNode | undefined>(nNodes);
  const ops = new Map<string, Op>();
  let fusedNodes = 0;
  let fusedOps = 0;
  const newEntry = (nodeId: number, index: number, version: number): NodeEntry => {
    const leaf = standIn.get(nodeId);
    if (leaf !== undefined && rebuilt[nodeId] === undefined) {
      return entry(rebuilt[leaf.nodeId] as GraphNode, leaf.index, leaf.version);
    }
    return entry(rebuilt[nodeId] as GraphNode, index, version);
  };

  /** The composed expression of the group rooted at `root` over its leaf entries. */
  const compose = (root: number) => {
    const leaves: NodeEntry[] = [];
    const leafIds: number[] = [];
    const leafIndex = new Map<number, number>();
    const names: string[] = [];
    let broadcast = false;
    const build = (id: number): Expr => {
      const m = node(id);
      const op = m.node.op as Op;
      const def = op.elementwise as ElementwiseDef;
      names.push(op.name);
      if (def.broadcast) broadcast = true;
      const param = (name: string) => paramConst(m.node.parsed, name, op.name);
      const input = (i: number): Expr => {
        const e = m.inputs[i] as INode['inputs'][number];
        if (e.nodeId !== id && isMember(root, e.nodeId)) return build(e.nodeId);
        const eid = idx.entryId(e.nodeId, e.index);
        let k = leafIndex.get(eid);
        if (k === undefined) {
          k = leaves.length;
          leafIndex.set(eid, k);
          leaves.push(newEntry(e.nodeId, e.index, e.version));
          leafIds.push(eid);
        }
        return E.input(k);
      };
      return substituteExpr(def.forward, { input, param });
    };
    const expr = build(root);
    return { expr, leaves, leafIds, names, broadcast };
  };

  for (let nid = 0; nid < nNodes; nid++) {
    const n = node(nid);
    const r = group[nid] as number;
    if (r >= 0 && r !== nid) continue; // computed inside its root's expression
    if ((intoReduce[nid] as number) >= 0) continue; // computed inside a reduction's prologue
    if (n.node.op === null) {
      rebuilt[nid] = n.node;
      continue;
    }
    const red = reduceOf.get(nid);
    if (red !== undefined) {
      const { expr, leaves, names } = compose(red.p);
      const def: FusedReduceDef = {
        prologue: expr,
        reducer: red.reducer,
        axis: red.axis,
        keepdims: red.keepdims,
      };
      const key = `r${leaves.length}:${red.reducer}:${red.axis}:${red.keepdims}:${exprKey(expr)}`;
      let op = ops.get(key);
      if (op === undefined) {
        op = fusedReduceOp(
          `_fused_${red.reducer}_${names.reverse().join('_')}`.slice(0, 120),
          def,
          leaves.length,
        );
        ops.set(key, op);
      }
      rebuilt[nid] = GraphNode.create(op, `${n.node.name}_fused`, {}, leaves);
      fusedNodes++;
      fusedOps += 1 + (group[red.p] === red.p ? (members[red.p] as number) : 1);
      continue;
    }
    if (r !== nid) {
      rebuilt[nid] = rebuildNode(n.node, n.inputs, n.controlDeps);
      continue;
    }
    // The root of a group: compose its expression over the group's leaf entries.
    const composed = compose(nid);
    const { expr, leaves, leafIds, names } = composed;
    let broadcast = composed.broadcast;
    const outShape = opts.shapes[idx.entryId(nid, 0)] as Shape;
    for (const lid of leafIds) {
      const s = opts.shapes[lid] as Shape;
      if (s.length !== outShape.length || s.some((d, i) => d !== outShape[i])) broadcast = true;
    }
    const key = `${broadcast ? 'b' : 'e'}${leaves.length}:${exprKey(expr)}`;
    let op = ops.get(key);
    if (op === undefined) {
      op = fusedOp(`_fused_${names.reverse().join('_')}`.slice(0, 120), expr, leaves.length, broadcast);
      ops.set(key, op);
    }
    rebuilt[nid] = GraphNode.create(op, `${n.node.name}_fused`, {}, leaves);
    fusedNodes++;
    fusedOps += members[nid] as number;
  }

  function rebuildNode(
    original: GraphNode,
    inputs: INode['inputs'],
    controlDeps: readonly number[],
  ): GraphNode {
    // A control dep on a node computed inside a fused kernel points at that kernel's node when it
    // exists already (backward nodes depend on their forward node), and is dropped otherwise: the
    // fused node runs later in graph order anyway.
    const deps: GraphNode[] = [];
    for (const c of controlDeps) {
      const r = group[c] as number;
      const d = r >= 0 ? rebuilt[r] : rebuilt[c];
      if (d !== undefined && !deps.includes(d)) deps.push(d);
    }
    const same =
      inputs.every((e, i) => rebuilt[e.nodeId] === (original.inputs[i] as NodeEntry).node) &&
      deps.length === original.controlDeps.length &&
      deps.every((d, i) => d === original.controlDeps[i]);
    if (same) return original;
    return GraphNode.create(
      original.op as Op,
      original.name,
      original.attrs,
      inputs.map((e) => newEntry(e.nodeId, e.index, e.version)),
      deps,
    );
  }

  return {
    outputs: idx.outputs.map((o) => newEntry(o.nodeId, o.index, o.version)),
    fusedNodes,
    fusedOps,
  };
}
