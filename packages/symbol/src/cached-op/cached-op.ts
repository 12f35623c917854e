/**
 * CachedOp (MXNet 2.0 `mx.nd.CachedOp`, `src/imperative/cached_op.cc`): a symbol called like an
 * operator on NDArrays — every input, data and parameters, in the symbol's `listInputs()` order —
 * returning new arrays the caller owns. What Gluon's `hybridize()` runs.
 *
 * Per input signature (device, shapes, dtypes, and for recorded calls which inputs need gradients)
 * the graph is built, inferred, fused and planned once (signature.ts). A call takes an idle run
 * state of its signature (runner + memory) or builds one, binds its inputs and new output arrays
 * with `GraphRunner.rebind` — no copy in, no copy out, no compile — and runs the forward range.
 * `staticShape` (needs staticAlloc) keeps a single signature, re-planning only when the shapes
 * change; without staticAlloc a graph of at most `inlineLimit` ops runs op by op (inline.ts).
 *
 * Memory, deliberately unlike MXNet: without `staticAlloc` MXNet gives each call memory from the
 * storage pool and returns it when the call (or its backward) is done; here idle run states are
 * kept without staticAlloc too — at most 2 per signature (4 with staticAlloc), for at most 16
 * signatures — so their memory stays reserved between calls, until `dispose()` or the signature's
 * eviction: building a runner per call cost more than the whole call otherwise. And every input is
 * bound in place, also under staticAlloc (MXNet copies `data_indices` inputs into
 * its static buffers): a rebind is cheaper than the copy, so `dataIndices`/`paramIndices` are
 * checked but change nothing, and an input changed in place before the backward ran is seen by it
 * (as by imperative ops recorded on the tape).
 *
 * Under autograd recording, with some input tracked, a call is ONE tape node whose backward runs
 * the gradient pass of the same compiled graph on the run state that computed the forward values:
 * autograd's head gradients are bound as they are, and the input gradients are written straight
 * into new arrays handed to autograd (not views of the runner's memory: `autograd.grad` may return
 * such an array to the caller as is, and a later call would overwrite a view). The state stays
 * reserved until the backward ran (or the tape node was garbage collected), the inputs and outputs
 * the backward reads pinned. A recorded call can be differentiated once — `retainGraph` and
 * higher-order gradients (`createGraph`) through a CachedOp are refused with an MXNetError.
 *
 * A graph with a dynamic-shape node (`_npi_boolean_mask`, `_npi_nonzero`) runs op by op (inline.ts)
 * whatever the flags: its shapes are only known as each call computes them.
 *
 * Sparse inputs (CSRNDArray, RowSparseNDArray) are part of the signature; the nodes that see sparse
 * arrays run through the storage dispatch of `nd` calls (signature.ts), outputs and input
 * gradients come out in the storage types inferred for them, and sparse head gradients are
 * densified (head-gradient entries are dense, as in MXNet's executor).
 */
import { type Context, MXNetError } from '@mx/base';
import { NDArray, type Runtime } from '@mx/ndarray';
import { type SymbolLayout, type SymbolLike, symbolLayout } from '../executor/graph.js';
import { checkCount, type GraphSettings, graphSettings } from '../executor/settings.js';
import { hasDynamicShape, runInline } from './inline.js';
import {
  compileSignature,
  createRunState,
  disposeRunState,
  disposeSignature,
  emptyEntry,
  entryStype,
  entryType,
  type RunState,
  type Signature,
  signatureKey,
} from './signature.js';

/** MXNet's CachedOp flags, in camelCase. */
export interface CachedOpOptions {
  /**
   * MXNet `static_alloc`; default false. Here: up to 4 idle run states kept per signature instead
   * of 2, small graphs never inlined, and `staticShape` allowed.
   */
  readonly staticAlloc?: boolean;
  /** Optimize for unchanging input shapes: one cached plan, re-planned on change (needs staticAlloc). */
  readonly staticShape?: boolean;
  /** Without staticAlloc, graphs of at most this many ops run op by op; default 2. */
  readonly inlineLimit?: number;
  /** Inputs that change every call (MXNet copies them under static_alloc; here checked, every input is bound in place). */
  readonly dataIndices?: readonly number[];
  /** Inputs that are parameters (with dataIndices, each input named once; checked, no other effect). */
  readonly paramIndices?: readonly number[];
  /** Op nodes per engine op in training runs; default MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN (15). */
  readonly forwardBulkSize?: number;
  /** Op nodes per engine op in backward runs; default forwardBulkSize. */
  readonly backwardBulkSize?: number;
  /** Fuse elementwise chains; default MXNET_USE_FUSION (on). */
  readonly fusion?: boolean;
  /** Name of the calls' autograd tape nodes and of errors; default `_CachedOp`. */
  readonly name?: string;
}

/** Counters for tests and profiling. */
export interface CachedOpStats {
  /** Graphs compiled (one per new signature). */
  readonly compiles: number;
  /** Run states (runner + memory) created. */
  readonly runners: number;
  /** Run states alive now (idle in the pools or reserved by recorded calls). */
  readonly liveRunners: number;
  /** Signatures cached now. */
  readonly signatures: number;
}

/** Signatures kept without staticShape (least recently used evicted first). */
const MAX_SIGNATURES = 16;
/** Idle run states kept per signature under staticAlloc. */
const MAX_IDLE_STATIC = 4;
/** Idle run states kept per signature without staticAlloc (their memory stays reserved). */
const MAX_IDLE_DYNAMIC = 2;

/** A symbol callable on NDArrays with its compiled graphs cached (MXNet `CachedOp`). */
export class CachedOp {
  readonly runtime: Runtime;
  readonly name: string;
  /** Input names in call order (the symbol's `listInputs()`: arguments and aux states). */
  readonly inputNames: readonly string[];
  /** Output names (the symbol's `listOutputs()`). */
  readonly outputNames: readonly string[];
  readonly staticAlloc: boolean;
  readonly staticShape: boolean;
  readonly inlineLimit: number;
  /** True when calls run op by op (MXNet `inlining_`; always for a graph with a dynamic-shape node). */
  readonly isInlined: boolean;
  /**
   * True when the graph holds a node whose output shape depends on data (`OpDef.dynamicShape`):
   * every call then runs op by op with shapes found per call, never compiled, fused or planned.
   */
  readonly hasDynamicShape: boolean;
  readonly #layout: SymbolLayout;
  readonly #inputNodes: readonly number[];
  readonly #mutable: readonly boolean[];
  readonly #settings: GraphSettings;
  readonly #backwardBulk: number | undefined;
  readonly #sigs = new Map<string, Signature>();
  readonly #finalizer: FinalizationRegistry<{ state: RunState; call: { done: boolean } }>;
  #compiles = 0;
  #runners = 0;
  #disposed = false;

  constructor(runtime: Runtime, symbol: SymbolLike, options: CachedOpOptions = {}) {
    const op = options.name ?? '_CachedOp';
    const layout = symbolLayout(symbol);
    const idx = layout.forward;
    const staticAlloc = options.staticAlloc ?? false;
    const staticShape = options.staticShape ?? false;
    if (staticShape && !staticAlloc) {
      throw new MXNetError('static_alloc must be True when static_shape is True', {
        op,
        hint: 'pass { staticAlloc: true, staticShape: true }',
      });
    }
    const inlineLimit = options.inlineLimit ?? 2;
    if (!Number.isSafeInteger(inlineLimit) || inlineLimit < 0) {
      throw new MXNetError(`inlineLimit must be a non-negative integer, got ${inlineLimit}`, { op });
    }
    checkCount(options.backwardBulkSize, 'backwardBulkSize', op);
    const n = idx.inputNodes.length;
    if (n === 0) {
      throw new MXNetError('CachedOp requires at least 1 input', {
        op,
        hint: 'the symbol has no variables; a CachedOp is called on its inputs',
      });
    }
    this.runtime = runtime;
    this.name = op;
    this.#layout = layout;
    this.#inputNodes = idx.inputNodes;
    this.inputNames = idx.inputNodes.map((nid) => idx.nodes[nid]?.node.name as string);
    this.outputNames = layout.outputNames;
    this.#mutable = idx.inputNodes.map((nid) => idx.mutableInputNodes.has(nid));
    this.#checkIndices(options.dataIndices, options.paramIndices);
    this.#settings = graphSettings(
      runtime.env,
      { fusion: options.fusion, bulkSize: options.forwardBulkSize },
      op,
    );
    this.#backwardBulk = options.backwardBulkSize;
    this.staticAlloc = staticAlloc;
    this.staticShape = staticShape;
    this.inlineLimit = inlineLimit;
    // A graph with a dynamic-shape node (boolean_mask, nonzero) has no static shapes to plan:
    // it runs op by op, as MXNet's CachedOp turns dynamic (no static_alloc/static_shape) for it.
    this.hasDynamicShape = hasDynamicShape(idx);
    this.isInlined = this.hasDynamicShape || (!staticAlloc && idx.nodes.length - n <= inlineLimit);
    this.#finalizer = new FinalizationRegistry(({ state, call }) => {
      if (!call.done) {
        call.done = true;
        this.#release(state);
      }
    });
  }

  get numInputs(): number {
    return this.inputNames.length;
  }

  get numOutputs(): number {
    return this.outputNames.length;
  }

  get stats(): CachedOpStats {
    let live = 0;
    for (const s of this.#sigs.values()) live += s.states.size;
    return {
      compiles: this.#compiles,
      runners: this.#runners,
      liveRunners: live,
      signatures: this.#sigs.size,
    };
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /**
   * Call the graph on `inputs` (one per input, in `inputNames` order, all on one device). Returns
   * one new array per output. Recorded as one autograd node when recording and an input is tracked.
   */
  call(...inputs: NDArray[]): NDArray[] {
    this.#checkInputs(inputs);
    const rt = this.runtime;
    const ag = rt.autograd;
    if (this.isInlined) return runInline(rt, this.#layout.forward, inputs, this.name);
    const isTrain = ag.isTraining;
    let needsGrad: boolean[] | undefined;
    if (ag.isRecording) {
      const m = inputs.map((a, i) => !this.#mutable[i] && a.agEntry !== undefined);
      if (m.some((x) => x)) needsGrad = m;
    }
    const sig = this.#signature(inputs, needsGrad);
    const ctx = sig.ctx;
    const own = sig.ownOutputs.map((o, i) =>
      o ? emptyEntry(rt, sig, sig.outputEntries[i] as number) : undefined,
    );
    let state: RunState;
    let outputs: NDArray[];
    try {
      state = this.#acquire(sig, inputs, own);
    } catch (e) {
      for (const a of own) a?.dispose();
      throw e;
    }
    try {
      state.runner.run(0, sig.compiled.bound.numForward, { isTrain });
      outputs = sig.outputEntries.map((eid, i) => own[i] ?? fresh(rt, state.runner.array(eid), ctx));
    } catch (e) {
      this.#release(state);
      for (const a of own) a?.dispose();
      throw e;
    }
    if (needsGrad === undefined) {
      this.#release(state);
      return outputs;
    }
    // What the backward reads must outlive the caller's arrays: pin it (views share the memory).
    const reads = sig.backwardReads;
    const pins: NDArray[] = [];
    inputs.forEach((a, i) => {
      if (reads.has(sig.inputEntries[i] as number)) pins.push(rt.keep(a.detach()));
    });
    own.forEach((a, i) => {
      if (a !== undefined && reads.has(sig.outputEntries[i] as number)) pins.push(rt.keep(a.detach()));
    });
    state.pins = pins;
    const call = { done: false };
    ag.recordCustom(
      this.name,
      (ograds, dests) => this.#backward(state, call, ograds, isTrain, dests),
      inputs,
      outputs,
    );
    const node = outputs[0]?.agEntry?.node;
    if (node !== undefined) this.#finalizer.register(node, { state, call }, call);
    return outputs;
  }

  /** Release every compiled graph, runner and buffer (a pending backward of a recorded call then fails). Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const sig of this.#sigs.values()) disposeSignature(sig, true);
    this.#sigs.clear();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  #backward(
    state: RunState,
    call: { done: boolean },
    ograds: readonly NDArray[],
    isTrain: boolean,
    dests: readonly (NDArray | undefined)[] | undefined,
  ): (NDArray | null)[] {
    const rt = this.runtime;
    if (call.done || state.disposed) {
      throw new MXNetError(
        call.done
          ? 'this CachedOp call was already differentiated: its forward values are released after one backward pass'
          : 'the CachedOp was disposed before the backward pass of this call',
        {
          op: this.name,
          hint: 'retainGraph is not supported through a CachedOp: record the call again to differentiate again',
        },
      );
    }
    if (rt.autograd.isRecording) {
      throw new MXNetError('higher-order gradients (createGraph) through a CachedOp are not supported', {
        op: this.name,
        hint: 'call the symbol imperatively (op by op) to differentiate its gradient',
      });
    }
    const { sig, runner } = state;
    const g = sig.compiled.bound;
    // Head gradients are read where autograd has them (it disposes them after this returns; the
    // engine runs the reads pushed here first). Gradients go into new arrays autograd then owns.
    const arrays = new Map<number, NDArray>();
    const temps: NDArray[] = [];
    const grads: (NDArray | null)[] = [];
    const owned: NDArray[] = [];
    try {
      ograds.forEach((og, k) => {
        const eid = sig.headGradEntries[k];
        if (eid === undefined || eid < 0) return;
        const [shape, dtype] = entryType(sig, eid);
        if (og.dtype === dtype && og.ctx === sig.ctx && og.stype === 'default') {
          arrays.set(eid, og);
          return;
        }
        let src = og;
        if (og.stype !== 'default') {
          // Head-gradient entries are dense: a sparse head gradient is densified.
          src = rt.invoke('cast_storage', [og], { stype: 'default' })[0] as NDArray;
          temps.push(src);
        }
        const h = rt.empty(shape, dtype, sig.ctx, 'CachedOp');
        temps.push(h);
        if (src.dtype === dtype) h.set(src);
        else rt.invoke('Cast', [src], { dtype }, { out: h });
        arrays.set(eid, h);
      });
      sig.needsGrad.forEach((need, i) => {
        if (!need) {
          grads.push(null);
          return;
        }
        const eid = sig.gradEntries[i] as number;
        const [shape, dtype] = entryType(sig, eid);
        // Autograd offers the input's own .grad when nothing else adds to it: write it in place
        // when it has the gradient's shape, dtype and storage type.
        const d = dests?.[i];
        const fits =
          d !== undefined &&
          d.dtype === dtype &&
          d.stype === entryStype(sig, eid) &&
          d.ctx === sig.ctx &&
          d.shape.length === shape.length &&
          d.shape.every((x, j) => x === shape[j]);
        const a = fits ? d : emptyEntry(rt, sig, eid);
        if (!fits) owned.push(a);
        grads.push(a);
        arrays.set(eid, a);
      });
      runner.rebind(arrays);
      runner.run(g.numForward, g.idx.nodes.length, {
        isTrain,
        ...(this.#backwardBulk === undefined ? {} : { bulkSize: this.#backwardBulk }),
      });
      return grads;
    } catch (e) {
      for (const a of owned) a.dispose();
      throw e;
    } finally {
      for (const a of temps) a.dispose();
      call.done = true;
      this.#finalizer.unregister(call);
      this.#release(state);
    }
  }

  /** The cached signature for these inputs, compiled on first sight. */
  #signature(inputs: readonly NDArray[], needsGrad: boolean[] | undefined): Signature {
    const key = signatureKey(inputs, needsGrad);
    const hit = this.#sigs.get(key);
    if (hit !== undefined) {
      this.#sigs.delete(key);
      this.#sigs.set(key, hit);
      return hit;
    }
    const sig = compileSignature(
      this.runtime,
      this.#layout,
      this.#inputNodes,
      inputs,
      needsGrad,
      this.#settings,
    );
    this.#compiles++;
    for (const [k, old] of this.#sigs) {
      const evict = this.staticShape ? old.recording === sig.recording : this.#sigs.size >= MAX_SIGNATURES;
      if (!evict) continue;
      disposeSignature(old, false);
      this.#sigs.delete(k);
      if (!this.staticShape) break;
    }
    this.#sigs.set(key, sig);
    return sig;
  }

  /**
   * A run state of `sig` with `inputs` and the call's own `outputs` bound, reserved for this call:
   * the idle one with the most inputs bound already (the parameters, usually), else a new one.
   */
  #acquire(sig: Signature, inputs: readonly NDArray[], outputs: readonly (NDArray | undefined)[]): RunState {
    const idle = sig.idle;
    let best = -1;
    let bestScore = -1;
    for (let k = 0; k < idle.length; k++) {
      const bound = (idle[k] as RunState).bound;
      let score = 0;
      for (let i = 0; i < inputs.length; i++) if (bound[i] === inputs[i]) score++;
      if (score >= bestScore) {
        best = k;
        bestScore = score;
      }
    }
    if (best < 0) {
      const state = createRunState(this.runtime, sig, inputs, outputs, this.#settings);
      this.#runners++;
      state.busy = true;
      return state;
    }
    const state = idle.splice(best, 1)[0] as RunState;
    const arrays = new Map<number, NDArray>();
    inputs.forEach((a, i) => {
      const eid = sig.inputEntries[i] as number;
      if (eid >= 0 && state.bound[i] !== a) arrays.set(eid, a);
    });
    outputs.forEach((a, i) => {
      if (a !== undefined) arrays.set(sig.outputEntries[i] as number, a);
    });
    try {
      state.runner.rebind(arrays);
    } catch (e) {
      disposeRunState(state);
      throw e;
    }
    inputs.forEach((a, i) => {
      if ((sig.inputEntries[i] as number) >= 0) state.bound[i] = a;
    });
    state.busy = true;
    return state;
  }

  /** Give a state back: kept idle while its signature has room, else disposed. */
  #release(state: RunState): void {
    for (const p of state.pins) p.dispose();
    state.pins = [];
    state.busy = false;
    const sig = state.sig;
    if (state.disposed) return;
    const room = this.staticAlloc ? MAX_IDLE_STATIC : MAX_IDLE_DYNAMIC;
    if (sig.evicted || this.#disposed || sig.idle.length >= room) disposeRunState(state);
    else sig.idle.push(state);
  }

  /** Check `dataIndices`/`paramIndices`: together they name each input once. */
  #checkIndices(data: readonly number[] | undefined, params: readonly number[] | undefined): void {
    const n = this.#inputNodes.length;
    if (data === undefined && params === undefined) return;
    const seen = new Set<number>();
    const mark = (list: readonly number[] | undefined, key: string) => {
      for (const i of list ?? []) {
        if (!Number.isInteger(i) || i < 0 || i >= n || seen.has(i)) {
          throw new MXNetError(
            `${key} has ${seen.has(i) ? 'a repeated' : 'an invalid'} index ${i} (the CachedOp has ${n} inputs)`,
            { op: this.name, hint: `indices into the inputs: ${this.inputNames.join(', ')}` },
          );
        }
        seen.add(i);
      }
    };
    mark(data, 'dataIndices');
    mark(params, 'paramIndices');
    if (seen.size !== n) {
      throw new MXNetError(
        `dataIndices and paramIndices together name ${seen.size} of the ${n} inputs; they must name each once`,
        { op: this.name, hint: `inputs: ${this.inputNames.join(', ')}` },
      );
    }
  }

  #checkInputs(inputs: readonly unknown[]): asserts inputs is NDArray[] {
    const op = this.name;
    if (this.#disposed) {
      throw new MXNetError('this CachedOp was disposed', { op, hint: 'create a new CachedOp' });
    }
    if (inputs.length !== this.numInputs) {
      throw new MXNetError(`expected ${this.numInputs} inputs, got ${inputs.length}`, {
        op,
        hint: `pass every input in listInputs() order: ${this.inputNames.join(', ')}`,
      });
    }
    let ctx: Context | undefined;
    inputs.forEach((a, i) => {
      const name = this.inputNames[i] as string;
      if (!(a instanceof NDArray)) {
        throw new MXNetError(`input ${name}: expected an NDArray, got ${a === null ? 'null' : typeof a}`, {
          op,
        });
      }
      if (a.isDisposed) {
        throw new MXNetError(`input ${name} (${a.describe()}) was disposed`, { op });
      }
      if (a.runtime !== this.runtime) {
        throw new MXNetError(`input ${name} belongs to another runtime`, { op });
      }
      ctx ??= a.ctx;
      if (a.ctx !== ctx) {
        throw new MXNetError(
          `CachedOp requires all inputs to live on the same context. But ${this.inputNames[0]} is on ${ctx} while ${name} is on ${a.ctx}`,
          { op, device: a.ctx.toString(), hint: `copy it first: x.copyTo(${ctx})` },
        );
      }
    });
  }
}

/** A new array (in the caller's scope) with a copy of `a` (same storage type), not recorded by autograd. */
function fresh(rt: Runtime, a: NDArray, ctx: Context): NDArray {
  if (a.stype !== 'default') {
    return rt.autograd.pause(() => rt.invoke('cast_storage', [a], { stype: a.stype })[0] as NDArray);
  }
  const out = rt.empty(a.shape, a.dtype, ctx, 'CachedOp');
  out.set(a);
  return out;
}
