/**
 * Backward passes (MXNet `Imperative::Backward`): walk the tape from the heads in reverse
 * topological order, build each node's input gradients from its op's `GradientDef` and run them
 * through the engine like any other ops, sum gradients reaching one output, and deliver the
 * totals to variables (write/add) or to the caller (`autograd.grad`).
 *
 * A gradient `build` is evaluated lazily: `g.op(...)` returns placeholders, and only the calls
 * whose outputs are needed run afterwards, with `req = null` for the outputs nobody reads — so
 * `_backward_FullyConnected` does not compute the data gradient of a network's input, the way
 * MXNet's memory planner gives such outputs kNullOp. Every node's gradient is checked to exist
 * before anything runs, so a non-differentiable op on the path fails with state unchanged.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { GradBuilder, Op } from '@mx/ops';
import type { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { type AGEntry, type AGNode, release } from './tape.js';

interface PendingCall {
  readonly op: Op;
  readonly inputs: readonly Value[];
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly needed: boolean[];
  marked: boolean;
  results?: NDArray[];
}

class Pending {
  constructor(
    readonly call: PendingCall,
    readonly index: number,
    readonly shape: readonly number[] | undefined,
  ) {}
}

function sameShape(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === b.length && a.every((d, i) => d === b[i]);
}

type Value = NDArray | Pending;

export interface BackwardOptions {
  readonly headGrads?: readonly (NDArray | null | undefined)[];
  readonly retainGraph?: boolean;
  readonly createGraph?: boolean;
  readonly isTrain?: boolean;
}

function notRecorded(a: NDArray): MXNetError {
  return new MXNetError(
    'cannot differentiate: this array is not in a computational graph (it was not computed from ' +
      'arrays with attached gradients while recording)',
    {
      op: 'backward',
      shapes: [a.shape],
      dtypes: [a.dtype],
      device: a.ctx.toString(),
      hint: 'call x.attachGrad() on the inputs and compute the head inside autograd.record(...)',
    },
  );
}

/** Nodes reachable from the heads, in topological order (producers first). */
function topoOrder(heads: readonly AGEntry[]): AGNode[] {
  const order: AGNode[] = [];
  const seen = new Set<AGNode>();
  // Iterative DFS (deep graphs must not overflow the stack).
  const stack: [AGNode, number][] = [];
  for (const h of heads) {
    if (seen.has(h.node)) continue;
    seen.add(h.node);
    stack.push([h.node, 0]);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [AGNode, number];
      const [node, i] = top;
      if (i < node.inputs.length) {
        top[1] = i + 1;
        const e = node.inputs[i];
        if (e != null && !seen.has(e.node)) {
          seen.add(e.node);
          stack.push([e.node, 0]);
        }
      } else {
        stack.pop();
        order.push(node);
      }
    }
  }
  return order;
}

function checkDifferentiable(order: readonly AGNode[]): void {
  for (const node of order) {
    if (node.variable !== undefined) continue;
    const name = node.op?.name ?? node.custom?.name ?? 'unknown';
    if (node.freed) {
      throw new MXNetError(`the graph through ${name} was freed by an earlier backward pass`, {
        op: name,
        shapes: node.inShapes,
        hint: 'pass { retainGraph: true } to the first backward to differentiate the graph again',
      });
    }
    if (node.custom === undefined && node.gradient === undefined) {
      throw new MXNetError(
        `Operator ${name} is non-differentiable because it didn't register FGradient attribute`,
        {
          op: name,
          params: node.attrs,
          shapes: node.inShapes,
          hint: 'compute this part outside autograd.record, or on detached inputs (x.detach())',
        },
      );
    }
  }
}

/** Sum of gradient arrays (MXNet's `_grad_add` aggregation); disposes the parts it consumed. */
function sum(rt: Runtime, parts: NDArray[]): NDArray {
  let acc = parts[0] as NDArray;
  for (let i = 1; i < parts.length; i++) {
    const b = parts[i] as NDArray;
    const next = rt.invoke('_grad_add', [acc, b])[0] as NDArray;
    acc.dispose();
    b.dispose();
    acc = next;
  }
  return acc;
}

/**
 * Run a backward pass. Returns the total gradient of each entry in `targets` (a new array, or
 * undefined when no gradient reached it); variables' `.grad` are updated when `writeVariables`.
 */
export function runBackward(
  rt: Runtime,
  heads: readonly NDArray[],
  targets: readonly AGEntry[],
  writeVariables: boolean,
  options: BackwardOptions,
): (NDArray | undefined)[] {
  const headEntries = heads.map((h) => {
    h.checkLive('backward');
    const e = h.agEntry;
    if (e === undefined) throw notRecorded(h);
    return e;
  });
  const headGrads = options.headGrads;
  if (headGrads !== undefined && headGrads.length !== heads.length) {
    throw new MXNetError(`got ${headGrads.length} head gradients for ${heads.length} heads`, {
      op: 'backward',
      shapes: heads.map((h) => h.shape),
    });
  }
  headGrads?.forEach((g, i) => {
    const h = heads[i] as NDArray;
    if (g == null) return;
    g.checkLive('backward');
    if (g.shape.length !== h.shape.length || g.shape.some((d, j) => d !== h.shape[j])) {
      throw new MXNetError(
        `head gradient ${i} has shape ${shapeToString(g.shape)}, the head has ${shapeToString(h.shape)}`,
        { op: 'backward', shapes: [h.shape, g.shape] },
      );
    }
  });
  const order = topoOrder(headEntries);
  checkDifferentiable(order);

  const ag = rt.autograd;
  // Head gradients are constants: made outside recording (only a given, recorded one is tracked).
  const initial = ag.withState({ recording: false, training: ag.isTraining }, () =>
    headEntries.map((_, i) => {
      const g = headGrads?.[i];
      return g != null ? g : rt.nd.onesLike(heads[i] as NDArray);
    }),
  );
  return ag.withState(
    { recording: options.createGraph === true, training: options.isTrain ?? ag.isTraining },
    () => {
      // Gradients flowing into each node output, summed when first read.
      const flowing = new Map<AGNode, NDArray[][]>();
      const push = (e: AGEntry, g: NDArray): void => {
        let slots = flowing.get(e.node);
        if (slots === undefined) {
          slots = e.node.outShapes.map(() => []);
          flowing.set(e.node, slots);
        }
        (slots[e.index] as NDArray[]).push(g);
      };
      headEntries.forEach((e, i) => {
        const g = initial[i] as NDArray;
        push(e, g === headGrads?.[i] ? g.copy() : g);
      });
      const targetSet = new Set(targets.map((t) => t.node));
      const totals = new Map<AGNode, (NDArray | undefined)[]>();
      // Gradient buffers handed to custom backwards as destinations (never disposed here).
      const dests = new Set<NDArray>();
      let edges: Map<AGNode, number> | undefined;
      const destsFor = (node: AGNode): (NDArray | undefined)[] | undefined => {
        if (!writeVariables) return undefined;
        edges ??= consumingEdges(order, headEntries);
        return destinations(node, edges, targetSet, dests);
      };

      try {
        for (let k = order.length - 1; k >= 0; k--) {
          const node = order[k] as AGNode;
          const slots = flowing.get(node);
          flowing.delete(node);
          const ograds: (NDArray | undefined)[] = node.outShapes.map((_, i) => {
            const parts = slots?.[i];
            return parts === undefined || parts.length === 0 ? undefined : sum(rt, parts);
          });
          if (node.variable !== undefined) {
            const g = ograds[0];
            if (writeVariables && g !== undefined) deliver(rt, node, g);
            if (targetSet.has(node)) totals.set(node, ograds);
            else if (g !== node.variable.grad) g?.dispose(); // written in place: it is the buffer
            continue;
          }
          if (targetSet.has(node))
            totals.set(
              node,
              ograds.map((g) => g?.copy()),
            );
          let inGrads: (NDArray | undefined)[];
          try {
            inGrads =
              node.custom !== undefined
                ? customGrads(rt, node, ograds, destsFor(node))
                : opGrads(rt, node, ograds);
          } finally {
            for (const g of ograds) g?.dispose();
          }
          inGrads.forEach((g, i) => {
            if (g === undefined) return;
            const e = node.inputs[i];
            if (e == null) {
              g.dispose();
              return;
            }
            const want = node.inShapes[i] as readonly number[];
            if (g.shape.length !== want.length || g.shape.some((d, j) => d !== want[j])) {
              throw new MXNetError(
                `gradient of input ${i} has shape ${shapeToString(g.shape)}, the input has ${shapeToString(want)}`,
                { op: node.op?.name ?? node.custom?.name ?? 'backward', shapes: [want, g.shape] },
              );
            }
            push(e, g);
          });
          if (options.retainGraph !== true) release(node);
        }
      } catch (e) {
        // A failing gradient (a custom backward that throws, a shape mismatch) leaves no
        // gradient arrays behind: what was flowing and what was collected is released.
        for (const slots of flowing.values())
          for (const s of slots) for (const g of s) if (!dests.has(g)) g.dispose();
        for (const gs of totals.values()) for (const g of gs) g?.dispose();
        // The pass is over either way: without retainGraph the saved values go, as after success.
        if (options.retainGraph !== true) for (const n of order) release(n);
        throw e;
      }
      for (const slots of flowing.values())
        for (const s of slots) for (const g of s) if (!dests.has(g)) g.dispose();
      return targets.map((t) => totals.get(t.node)?.[t.index]);
    },
  );
}

/**
 * Where a custom node's backward may write its inputs' gradients directly: the `.grad` of each input
 * that is a variable with gradReq 'write', not a target of `autograd.grad`, whose only gradient in
 * this pass comes from `node` (one consuming edge among the recorded nodes and heads). Chosen
 * buffers are added to `chosen`.
 */
function destinations(
  node: AGNode,
  edges: ReadonlyMap<AGNode, number>,
  targets: ReadonlySet<AGNode>,
  chosen: Set<NDArray>,
): (NDArray | undefined)[] | undefined {
  let out: (NDArray | undefined)[] | undefined;
  node.inputs.forEach((e, i) => {
    const v = e?.node.variable;
    if (e == null || v === undefined || v.gradReq !== 'write' || targets.has(e.node)) return;
    const g = v.grad;
    // Sparse buffers are not offered: a custom backward writes dense results.
    if (g === undefined || g.isDisposed || g.stype !== 'default' || chosen.has(g) || edges.get(e.node) !== 1)
      return;
    out ??= new Array<NDArray | undefined>(node.inputs.length).fill(undefined);
    out[i] = g;
    chosen.add(g);
  });
  return out;
}

/** How many edges (recorded nodes' inputs and heads) read each node's outputs in this pass. */
function consumingEdges(order: readonly AGNode[], heads: readonly AGEntry[]): Map<AGNode, number> {
  const count = new Map<AGNode, number>();
  const add = (n: AGNode) => count.set(n, (count.get(n) ?? 0) + 1);
  for (const h of heads) add(h.node);
  for (const n of order) for (const e of n.inputs) if (e != null) add(e.node);
  return count;
}

/** Write or add a variable's total gradient into its `.grad` buffer. */
function deliver(rt: Runtime, node: AGNode, g: NDArray): void {
  const v = node.variable as NonNullable<AGNode['variable']>;
  if (g === v.grad) {
    // A custom backward wrote it in place (see `destinations`).
    v.fresh = true;
    return;
  }
  const buf = v.grad;
  if (v.gradReq === 'null' || buf === undefined || buf.isDisposed) {
    g.dispose();
    return;
  }
  try {
    if (buf.stype === 'default' && g.stype === 'default') {
      if (v.gradReq === 'add') rt.invoke('elemwise_add', [buf, g], undefined, { out: buf });
      else rt.invoke('_copyto', [g], undefined, { out: buf });
    } else deliverSparse(rt, buf, g, v.gradReq === 'add');
  } finally {
    g.dispose();
  }
  v.fresh = true;
}

/**
 * A gradient into a buffer where either side is sparse: the buffer keeps its storage type, as
 * MXNet's backward pass assigns the gradient entry the buffer's stype. Writing casts (`cast_storage`
 * into the buffer: a row_sparse gradient into a row_sparse buffer copies its rows, a dense one keeps
 * the rows holding a nonzero — MXNet's fallback cast). Adding into a dense buffer adds the densified
 * gradient in place; into a sparse buffer it is `elemwise_add` (row_sparse + row_sparse keeps the
 * union of the rows) written back into the buffer.
 */
function deliverSparse(rt: Runtime, buf: NDArray, g: NDArray, add: boolean): void {
  if (
    (buf.stype === 'csr' && g.stype === 'row_sparse') ||
    (buf.stype === 'row_sparse' && g.stype === 'csr')
  ) {
    throw new MXNetError(
      `cannot ${add ? 'add' : 'write'} a ${g.stype} gradient into a ${buf.stype} gradient buffer`,
      {
        op: 'backward',
        shapes: [buf.shape],
        hint: `attach a '${g.stype}' or 'default' gradient buffer (x.attachGrad({ stype: '${g.stype}' }))`,
      },
    );
  }
  const cast = (x: NDArray, stype: string, out: NDArray) =>
    rt.invoke('cast_storage', [x], { stype }, { out });
  if (!add) {
    cast(g, buf.stype, buf);
    return;
  }
  if (buf.stype === 'default') {
    const dense = rt.invoke('cast_storage', [g], { stype: 'default' })[0] as NDArray;
    try {
      rt.invoke('elemwise_add', [buf, dense], undefined, { out: buf });
    } finally {
      dense.dispose();
    }
    return;
  }
  const sum = rt.invoke('elemwise_add', [buf, g])[0] as NDArray;
  try {
    cast(sum, buf.stype, buf);
  } finally {
    sum.dispose();
  }
}

function customGrads(
  rt: Runtime,
  node: AGNode,
  ograds: readonly (NDArray | undefined)[],
  dests: readonly (NDArray | undefined)[] | undefined,
): (NDArray | undefined)[] {
  const custom = node.custom as NonNullable<AGNode['custom']>;
  const created: NDArray[] = [];
  const full = ograds.map((g, i) => {
    if (g !== undefined) return g;
    const z = rt.nd.zeros(node.outShapes[i] as number[], { dtype: node.outDTypes[i] });
    created.push(z);
    return z;
  });
  let res: readonly (NDArray | null | undefined)[];
  try {
    res = dests === undefined ? custom.backward(full) : custom.backward(full, dests);
  } finally {
    for (const z of created) z.dispose();
  }
  if (res.length !== node.inputs.length) {
    throw new MXNetError(`backward returned ${res.length} gradients for ${node.inputs.length} inputs`, {
      op: custom.name,
      shapes: node.inShapes,
      hint: 'return one gradient (or null) per forward input',
    });
  }
  return res.map((g) => g ?? undefined);
}

function opGrads(
  rt: Runtime,
  node: AGNode,
  ograds: readonly (NDArray | undefined)[],
): (NDArray | undefined)[] {
  const spec = node.gradient;
  const nIn = node.inputs.length;
  if (spec === 'zero' || spec === undefined) return new Array(nIn).fill(undefined);
  const op = node.op as Op;
  const temps: NDArray[] = [];
  const calls: PendingCall[] = [];
  const missing = (what: string, i: number): never => {
    throw new MXNetError(`the gradient of ${op.name} reads ${what} ${i}, which it did not declare`, {
      op: op.name,
      hint: `add ${i} to the op's gradient.${what === 'input' ? 'inputs' : 'outputs'}`,
    });
  };
  const builder: GradBuilder<Value> = {
    isTrain: node.isTrain,
    input: (i) => node.savedInputs[i] ?? missing('input', i),
    output: (i) => node.savedOutputs[i] ?? missing('output', i),
    hasOgrad: (i) => ograds[i] !== undefined,
    ograd: (i) => {
      const g = ograds[i];
      if (g !== undefined) return g;
      const z = rt.nd.zeros(node.outShapes[i] as number[], { dtype: node.outDTypes[i] });
      temps.push(z);
      return z;
    },
    op: (name, inputs, params) => {
      const inShapes = inputs.map((v) => v.shape as number[] | undefined);
      // Summing a gradient down to (or reshaping it to) its own shape is the identity: skip the op.
      if ((name === '_broadcast_backward' || name === 'reshape_like') && sameShape(inShapes[0], inShapes[1]))
        return [inputs[0] as Value];
      const o = rt.registry.get(name);
      const attrs = o.parseParams(params);
      const nOut = o.numOutputs(attrs);
      const outShapes: (number[] | undefined)[] = new Array(nOut).fill(undefined);
      if (inShapes.every((s) => s !== undefined)) {
        try {
          o.inferShape(
            attrs,
            inShapes.map((s) => (s === undefined ? s : [...s])),
            outShapes,
          );
        } catch {
          // reported when the op runs
        }
      }
      const call: PendingCall = { op: o, inputs, params, needed: new Array(nOut).fill(false), marked: false };
      calls.push(call);
      return Array.from({ length: o.numVisibleOutputs(attrs) }, (_, i) => new Pending(call, i, outShapes[i]));
    },
    op1: (name, inputs, params) => builder.op(name, inputs, params)[0] as Value,
  };
  const built = spec.build(builder, node.attrs);
  if (built.length !== nIn) {
    throw new MXNetError(`gradient of ${op.name} returned ${built.length} entries for ${nIn} inputs`, {
      op: op.name,
    });
  }
  // Mark what is needed: gradients of tracked inputs, and what they are computed from.
  const mark = (v: Value): void => {
    if (!(v instanceof Pending)) return;
    v.call.needed[v.index] = true;
    if (v.call.marked) return;
    v.call.marked = true;
    for (const x of v.call.inputs) mark(x);
  };
  built.forEach((v, i) => {
    if (v != null && node.inputs[i] != null) mark(v);
  });
  const resolve = (v: Value): NDArray =>
    v instanceof Pending ? ((v.call.results as NDArray[])[v.index] as NDArray) : v;
  try {
    for (const call of calls) {
      if (!call.marked) continue;
      const ins = call.inputs.map(resolve);
      call.results = rt.invokeAll(call.op, ins, call.params, {
        isTrain: node.isTrain,
        skip: call.needed.map((n) => !n),
      });
    }
  } finally {
    for (const z of temps) z.dispose();
  }
  const out: (NDArray | undefined)[] = built.map((v, i) => {
    if (v == null || node.inputs[i] == null) return undefined;
    if (v instanceof Pending) return resolve(v);
    // A saved input or an ograd returned as is: hand out a copy the caller may dispose.
    return v.copy();
  });
  // Dispose intermediate results nobody returned.
  const returned = new Set(out);
  for (const call of calls) for (const r of call.results ?? []) if (!returned.has(r)) r.dispose();
  // The same array returned for two inputs: give each its own.
  const seen = new Set<NDArray>();
  return out.map((g) => {
    if (g === undefined) return g;
    if (seen.has(g)) return g.copy();
    seen.add(g);
    return g;
  });
}
