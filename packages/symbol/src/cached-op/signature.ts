/**
 * What a CachedOp keeps per input signature (MXNet CachedOp's `GraphInfo` + `CachedOpState`): the
 * graph compiled for those shapes, dtypes, device and set of inputs that need gradients — forward
 * only, or forward + gradient pass for recorded calls — with its memory plan, and the run states
 * bound to it.
 *
 * A run state is one GraphRunner with its memory. Everything that changes from call to call is an
 * external entry of the runner, bound per call with `GraphRunner.rebind` (no copy, no compile):
 * the inputs (the caller's arrays themselves), the outputs the graph computes (written straight
 * into new arrays the caller then owns), and for the backward pass the head gradients (autograd's
 * arrays) and the input gradients (new arrays handed to autograd). Only outputs that are not an op
 * output of their own — an input returned as is, an entry returned twice — are copies. The plan
 * leaves output and gradient entries out, so the runner's memory holds intermediates only.
 *
 * A state is busy from a recorded call until its backward ran: its memory holds the forward values
 * the backward reads, so no other call may use it (MXNet's `GetCachedOpState` hands out a state
 * nobody else holds, for the same reason). Between calls an idle state keeps its runner, memory
 * and compiled segments, and references to the arrays of its last call (stale: every external
 * entry is rebound before the next run reads it).
 *
 * Storage types are part of the signature: a call with a sparse input (or a graph with an op that
 * makes sparse outputs from dense inputs) has its storage types inferred once, and its run states
 * are MixedRunners (executor/mixed.ts): the nodes that see sparse arrays run through the storage
 * dispatch of `nd` calls; outputs and gradients of a sparse storage type are sparse arrays.
 */
import { type Context, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { MemoryPlan } from '@mx/graph';
import { createGraphRunner, GraphRunner, type NDArray, type Runtime } from '@mx/ndarray';
import type { StorageType } from '@mx/ops';
import { type CompiledGraph, compileGraph, planGraph } from '../executor/compile.js';
import type { GradReq, SymbolLayout } from '../executor/graph.js';
import { inferForward, unknownVars } from '../executor/infer.js';
import { emptyOf, MixedRunner } from '../executor/mixed.js';
import type { GraphSettings } from '../executor/settings.js';
import { type GraphStorage, inferGraphStorage } from '../executor/storage.js';

/** A compiled graph for one input signature. */
export interface Signature {
  readonly key: string;
  readonly ctx: Context;
  readonly compiled: CompiledGraph;
  /** The dense path's memory plan (undefined when the graph has sparse entries). */
  readonly plan: MemoryPlan | undefined;
  /** Storage inference of a graph with sparse entries (undefined: all dense). */
  readonly storage: GraphStorage | undefined;
  readonly unused: ReadonlySet<number>;
  /** True when the graph has the gradient pass (recorded calls). */
  readonly recording: boolean;
  /** Per input: whether its gradient is computed. */
  readonly needsGrad: readonly boolean[];
  /** Per input: its entry in the graph (-1: not in it). */
  readonly inputEntries: readonly number[];
  /** Per input: the entry its gradient is written to (-1: none). */
  readonly gradEntries: readonly number[];
  /** Per output: its entry. */
  readonly outputEntries: readonly number[];
  /** Per output: written straight into the caller's new array (else copied from the runner). */
  readonly ownOutputs: readonly boolean[];
  /** Per output: the entry of its head-gradient variable (-1: the backward does not read it). */
  readonly headGradEntries: readonly number[];
  /** Entries the gradient pass reads: inputs and outputs among them are pinned until it ran. */
  readonly backwardReads: ReadonlySet<number>;
  /** Idle run states, ready for a call. */
  readonly idle: RunState[];
  /** Every run state not yet disposed. */
  readonly states: Set<RunState>;
  /** Set when evicted from the cache: states are disposed when released instead of kept. */
  evicted: boolean;
}

/** The cache key of a call: device, per-input shape, dtype and storage type, which inputs need gradients. */
export function signatureKey(inputs: readonly NDArray[], needsGrad: readonly boolean[] | undefined): string {
  let key = `${(inputs[0] as NDArray).ctx}`;
  for (let i = 0; i < inputs.length; i++) {
    const a = inputs[i] as NDArray;
    const st = a.stype;
    key += `|${a.dtype}(${a.shape.join(',')})${st === 'default' ? '' : st}${needsGrad?.[i] === true ? '*' : ''}`;
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
  const stypes = new Map<number, StorageType>();
  inputNodes.forEach((nid, i) => {
    known.shapes.set(nid, (inputs[i] as NDArray).shape);
    known.dtypes.set(nid, (inputs[i] as NDArray).dtype);
    stypes.set(nid, (inputs[i] as NDArray).stype);
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
  const ctx = (inputs[0] as NDArray).ctx;
  const compiled = compileGraph(rt.registry, layout, reqs, known, fwd, settings, {
    op: 'CachedOp',
    storage: { vars: stypes },
    backend: rt.backendFor(ctx).name,
  });
  const { bound } = compiled;
  const full = bound.idx;
  let storage: GraphStorage | undefined;
  if (compiled.mayBeSparse) {
    for (const nid of bound.headGradNodes) if (nid >= 0) stypes.set(nid, 'default');
    storage = inferGraphStorage(rt, full, stypes, new Map(), ctx, 'CachedOp');
  }
  const gradEntries = argOf.map((a) => (a >= 0 ? (bound.gradEntries[a] as number) : -1));
  // An output is written into the caller's array when it is an op output of its own (not an
  // input, not returned twice); gradient entries are their own by construction (executor/graph.ts).
  const opEntry = new Uint8Array(full.numNodeEntries);
  full.nodes.forEach(({ node }, nid) => {
    if (node.op !== null) opEntry.fill(1, full.rowPtr[nid] as number, full.rowPtr[nid + 1] as number);
  });
  const external = new Set<number>();
  for (const eid of gradEntries) if (eid >= 0) external.add(eid);
  const ownOutputs = bound.outputEntries.map((eid) => {
    const own = opEntry[eid] === 1 && !external.has(eid);
    if (own) external.add(eid);
    return own;
  });
  const { plan, unused } =
    storage === undefined
      ? planGraph(compiled, settings, external)
      : { plan: undefined, unused: new Set<number>() };
  const backwardReads = new Set<number>();
  for (let nid = bound.numForward; nid < full.nodes.length; nid++)
    for (const e of (full.nodes[nid] as (typeof full.nodes)[number]).inputs)
      backwardReads.add(full.entryId(e));
  return {
    key: signatureKey(inputs, needsGrad),
    ctx,
    compiled,
    plan,
    storage,
    unused,
    recording: needsGrad !== undefined,
    needsGrad: argOf.map((a, i) => a >= 0 && needsGrad?.[i] === true),
    inputEntries: inputNodes.map((nid) => {
      const node = (idx.nodes[nid] as (typeof idx.nodes)[number]).node;
      return full.has(node) ? full.entryId(full.nodeId(node)) : -1;
    }),
    gradEntries,
    outputEntries: bound.outputEntries,
    ownOutputs,
    headGradEntries: bound.headGradNodes.map((nid) => (nid < 0 ? -1 : full.entryId(nid))),
    backwardReads,
    idle: [],
    states: new Set(),
    evicted: false,
  };
}

/** One runner bound to memory for a signature. */
export interface RunState {
  readonly sig: Signature;
  readonly runner: GraphRunner | MixedRunner;
  /** Per input: the array bound to its entry now (undefined: not in the graph). */
  readonly bound: (NDArray | undefined)[];
  /** Views keeping a recorded call's inputs and outputs alive until its backward ran. */
  pins: NDArray[];
  busy: boolean;
  disposed: boolean;
}

/** The shape and dtype of an entry of the signature's graph. */
export function entryType(sig: Signature, eid: number): [Shape, DTypeName] {
  const { types } = sig.compiled;
  return [types.shapes[eid] as Shape, types.dtypes[eid] as DTypeName];
}

/** The storage type of an entry of the signature's graph. */
export function entryStype(sig: Signature, eid: number): StorageType {
  return sig.storage?.stypes[eid] ?? 'default';
}

/** A new array for an entry: its shape, dtype and storage type (sparse ones start as zeros). */
export function emptyEntry(rt: Runtime, sig: Signature, eid: number): NDArray {
  const [shape, dtype] = entryType(sig, eid);
  return emptyOf(rt, shape, dtype, entryStype(sig, eid), sig.ctx, 'CachedOp');
}

/**
 * A run state for `sig` with `inputs` and the call's own `outputs` (per output, undefined where
 * it is copied) bound; on the memory of `shared` when given (which the caller then disposes).
 * Head-gradient and gradient entries get placeholders, released at once: the backward rebinds
 * them before it runs.
 */
export function createRunState(
  rt: Runtime,
  sig: Signature,
  inputs: readonly NDArray[],
  outputs: readonly (NDArray | undefined)[],
  settings: GraphSettings,
  shared?: RunState,
): RunState {
  const { bound: graph, types } = sig.compiled;
  const external = new Map<number, NDArray>();
  const placeholders: NDArray[] = [];
  const placeholder = (eid: number): void => {
    if (eid < 0) return;
    const a = rt.keep(emptyEntry(rt, sig, eid));
    placeholders.push(a);
    external.set(eid, a);
  };
  try {
    const bound = inputs.map((a, i) => {
      const eid = sig.inputEntries[i] as number;
      if (eid < 0) return undefined;
      external.set(eid, a);
      return a;
    });
    outputs.forEach((a, i) => {
      if (a !== undefined) external.set(sig.outputEntries[i] as number, a);
    });
    for (const eid of sig.headGradEntries) placeholder(eid);
    for (const eid of sig.gradEntries) placeholder(eid);
    const runner =
      sig.plan === undefined
        ? new MixedRunner(rt, {
            graph: graph.idx,
            shapes: types.shapes,
            dtypes: types.dtypes,
            storage: sig.storage as GraphStorage,
            ctx: sig.ctx,
            external,
            needGrad: sig.recording,
            bulkSize: settings.bulkSize,
            inferenceBulkSize: settings.inferenceBulkSize,
            plan: settings.plan,
          })
        : createGraphRunner(rt, {
            graph: graph.idx,
            shapes: types.shapes,
            dtypes: types.dtypes,
            plan: sig.plan,
            ctx: sig.ctx,
            external,
            unused: sig.unused,
            needGrad: sig.recording,
            bulkSize: settings.bulkSize,
            inferenceBulkSize: settings.inferenceBulkSize,
            ...(shared?.runner instanceof GraphRunner ? { shared: shared.runner } : {}),
          });
    const state: RunState = { sig, runner, bound, pins: [], busy: false, disposed: false };
    sig.states.add(state);
    return state;
  } finally {
    for (const a of placeholders) a.dispose();
  }
}

/** Release a run state's runner and pins (after the ops already pushed on them). Idempotent. */
export function disposeRunState(s: RunState): void {
  if (s.disposed) return;
  s.disposed = true;
  s.busy = false;
  s.runner.dispose();
  for (const a of s.pins) a.dispose();
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
