/**
 * What a CachedOp keeps per input signature (MXNet CachedOp's `GraphInfo` + `CachedOpState`): the
 * graph compiled for those shapes, dtypes, device and set of inputs that need gradients — forward
 * only, or forward + gradient pass for recorded calls — with its memory plan, and the run states
 * bound to it.
 *
 * A run state is one GraphRunner with its memory. Inputs are bound one of two ways: a *bound*
 * input is the caller's array itself (parameters, aux states: no copy; a different array later
 * means a new runner, built on the old one's memory), a *slot* input is an array of the state's
 * own that each call copies into (data, which is a new array every call). Head gradients are
 * slots too. A state is busy from a recorded call until its backward ran: its memory holds the
 * forward values the backward reads, so no other call may use it (MXNet's `GetCachedOpState`
 * hands out a state nobody else holds, for the same reason).
 */
import { type Context, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { MemoryPlan } from '@mx/graph';
import { createGraphRunner, type GraphRunner, type NDArray, type Runtime } from '@mx/ndarray';
import { type CompiledGraph, compileGraph, planGraph } from '../executor/compile.js';
import type { GradReq, SymbolLayout } from '../executor/graph.js';
import { inferForward, unknownVars } from '../executor/infer.js';
import type { GraphSettings } from '../executor/settings.js';

/** A compiled graph for one input signature. */
export interface Signature {
  readonly key: string;
  readonly ctx: Context;
  readonly compiled: CompiledGraph;
  readonly plan: MemoryPlan;
  readonly unused: ReadonlySet<number>;
  /** True when the graph has the gradient pass (recorded calls). */
  readonly recording: boolean;
  /** Per input: whether its gradient is computed. */
  readonly needsGrad: readonly boolean[];
  /** Per input: its entry in the graph (-1: not in it). */
  readonly inputEntries: readonly number[];
  /** Per input: the entry its gradient is read from (-1: none). */
  readonly gradEntries: readonly number[];
  /** Idle run states (static_alloc only). */
  readonly idle: RunState[];
  /** Every run state not yet disposed. */
  readonly states: Set<RunState>;
  /** Set when evicted from the cache: states are disposed when released instead of kept. */
  evicted: boolean;
}

/** The cache key of a call: device, per-input shape and dtype, which inputs need gradients. */
export function signatureKey(inputs: readonly NDArray[], needsGrad: readonly boolean[] | undefined): string {
  let key = `${(inputs[0] as NDArray).ctx}`;
  for (let i = 0; i < inputs.length; i++) {
    const a = inputs[i] as NDArray;
    key += `|${a.dtype}(${a.shape.join(',')})${needsGrad?.[i] === true ? '*' : ''}`;
  }
  return key;
}

/**
 * Compile the graph for these inputs (`needsGrad` undefined: forward only). Shape or dtype
 * contradictions are MXNetErrors naming the input (variable) whose value the others contradict.
 */
export function compileSignature(
  rt: Runtime,
  layout: SymbolLayout,
  inputNodes: readonly number[],
  inputs: readonly NDArray[],
  needsGrad: readonly boolean[] | undefined,
  settings: GraphSettings,
): Signature {
  const idx = layout.forward;
  const known = { shapes: new Map<number, Shape>(), dtypes: new Map<number, DTypeName>() };
  inputNodes.forEach((nid, i) => {
    known.shapes.set(nid, (inputs[i] as NDArray).shape);
    known.dtypes.set(nid, (inputs[i] as NDArray).dtype);
  });
  const fwd = inferForward(layout, known, 'CachedOp');
  const unknown = unknownVars(layout, fwd);
  if (unknown.length > 0) {
    throw new MXNetError(`cannot infer ${unknown.join(', ')}`, { op: 'CachedOp' });
  }
  const argOf = inputNodes.map((nid) =>
    layout.argNodes.indexOf((idx.nodes[nid] as (typeof idx.nodes)[number]).node),
  );
  const reqs: GradReq[] = layout.argNodes.map(() => 'null');
  argOf.forEach((a, i) => {
    if (a >= 0 && needsGrad?.[i] === true) reqs[a] = 'write';
  });
  const compiled = compileGraph(rt.registry, layout, reqs, known, fwd, settings, 'CachedOp');
  const { plan, unused } = planGraph(compiled, settings);
  const full = compiled.bound.idx;
  return {
    key: signatureKey(inputs, needsGrad),
    ctx: (inputs[0] as NDArray).ctx,
    compiled,
    plan,
    unused,
    recording: needsGrad !== undefined,
    needsGrad: argOf.map((a, i) => a >= 0 && needsGrad?.[i] === true),
    inputEntries: inputNodes.map((nid) => {
      const node = (idx.nodes[nid] as (typeof idx.nodes)[number]).node;
      return full.has(node) ? full.entryId(full.nodeId(node)) : -1;
    }),
    gradEntries: argOf.map((a) => (a >= 0 ? (compiled.bound.gradEntries[a] as number) : -1)),
    idle: [],
    states: new Set(),
    evicted: false,
  };
}

/** One runner bound to memory for a signature. */
export interface RunState {
  readonly sig: Signature;
  readonly runner: GraphRunner;
  /** Per input: the caller's array bound in place, or undefined for a slot. */
  readonly bound: readonly (NDArray | undefined)[];
  /** Per input: the state's array the call copies into (slot inputs). */
  readonly slots: readonly (NDArray | undefined)[];
  /** Per output: the head-gradient array backward copies into (undefined: not read). */
  readonly headGrads: readonly (NDArray | undefined)[];
  /** Arrays the state owns (slots, head gradients). */
  readonly owned: NDArray[];
  /** Views keeping a recorded call's bound inputs alive until its backward ran. */
  pins: NDArray[];
  busy: boolean;
  disposed: boolean;
}

/**
 * A run state for `sig` binding `inputs` (slot where `slot[i]`), on the memory of `shared` when
 * given (which the caller then disposes).
 */
export function createRunState(
  rt: Runtime,
  sig: Signature,
  inputs: readonly NDArray[],
  slot: readonly boolean[],
  settings: GraphSettings,
  shared?: RunState,
): RunState {
  const { bound: graph, types } = sig.compiled;
  const full = graph.idx;
  const owned: NDArray[] = [];
  const external = new Map<number, NDArray>();
  const alloc = (eid: number): NDArray => {
    const a = rt.keep(
      rt.empty(types.shapes[eid] as Shape, types.dtypes[eid] as DTypeName, sig.ctx, 'CachedOp'),
    );
    owned.push(a);
    external.set(eid, a);
    return a;
  };
  try {
    const bound: (NDArray | undefined)[] = [];
    const slots: (NDArray | undefined)[] = [];
    inputs.forEach((a, i) => {
      const eid = sig.inputEntries[i] as number;
      if (eid < 0) {
        bound.push(undefined);
        slots.push(undefined);
      } else if (slot[i] === true) {
        bound.push(undefined);
        slots.push(alloc(eid));
      } else {
        bound.push(a);
        slots.push(undefined);
        external.set(eid, a);
      }
    });
    const headGrads = graph.headGradNodes.map((nid) => (nid < 0 ? undefined : alloc(full.entryId(nid))));
    const runner = createGraphRunner(rt, {
      graph: full,
      shapes: types.shapes,
      dtypes: types.dtypes,
      plan: sig.plan,
      ctx: sig.ctx,
      external,
      unused: sig.unused,
      needGrad: sig.recording,
      bulkSize: settings.bulkSize,
      inferenceBulkSize: settings.inferenceBulkSize,
      ...(shared !== undefined ? { shared: shared.runner } : {}),
    });
    const state: RunState = {
      sig,
      runner,
      bound,
      slots,
      headGrads,
      owned,
      pins: [],
      busy: false,
      disposed: false,
    };
    sig.states.add(state);
    return state;
  } catch (e) {
    for (const a of owned) a.dispose();
    throw e;
  }
}

/** Release a run state's runner and arrays (after the ops already pushed on them). Idempotent. */
export function disposeRunState(s: RunState): void {
  if (s.disposed) return;
  s.disposed = true;
  s.busy = false;
  s.runner.dispose();
  for (const a of [...s.owned, ...s.pins]) a.dispose();
  s.owned.length = 0;
  s.pins = [];
  s.sig.states.delete(s);
  const i = s.sig.idle.indexOf(s);
  if (i >= 0) s.sig.idle.splice(i, 1);
}

/**
 * Evict a signature: its idle states are disposed now, busy ones when their backward released
 * them — or, with `all` (the CachedOp is disposed), every state now (a pending backward then fails).
 */
export function disposeSignature(sig: Signature, all: boolean): void {
  sig.evicted = true;
  for (const s of [...sig.states]) if (all || !s.busy) disposeRunState(s);
}
