/**
 * CachedOp (MXNet 2.0 `mx.nd.CachedOp`, `src/imperative/cached_op.cc`): a symbol called like an
 * operator on NDArrays — every input, data and parameters, in the symbol's `listInputs()` order —
 * returning new arrays the caller owns. What Gluon's `hybridize()` runs.
 *
 * Per input signature (device, shapes, dtypes, and for recorded calls which inputs need gradients)
 * the graph is built, inferred, fused and planned once (signature.ts); the flags keep MXNet's
 * meaning: `staticAlloc` keeps run states (runner + memory) between calls, otherwise each call
 * gets a runner whose memory goes back to the storage pool when the call (or its backward) is
 * done; `staticShape` (needs staticAlloc) keeps a single signature, re-planning only when the
 * shapes change; without staticAlloc a graph of at most `inlineLimit` ops runs op by op (inline.ts).
 *
 * Under autograd recording, with some input tracked, a call is ONE tape node whose backward runs
 * the gradient pass of the same compiled graph (heads' gradients in, input gradients out) on the
 * run state that computed the forward values: that state stays reserved until the backward ran (or
 * the tape node was garbage collected). A recorded call can be differentiated once — `retainGraph`
 * and higher-order gradients (`createGraph`) through a CachedOp are refused with an MXNetError.
 */
import { type Context, MXNetError } from '@mx/base';
import { NDArray, type Runtime } from '@mx/ndarray';
import { type SymbolLayout, type SymbolLike, symbolLayout } from '../executor/graph.js';
import { checkCount, type GraphSettings, graphSettings } from '../executor/settings.js';
import { runInline } from './inline.js';
import {
  compileSignature,
  createRunState,
  disposeRunState,
  disposeSignature,
  type RunState,
  type Signature,
  signatureKey,
} from './signature.js';

/** MXNet's CachedOp flags, in camelCase. */
export interface CachedOpOptions {
  /** Keep memory and runners between calls (MXNet `static_alloc`); default false. */
  readonly staticAlloc?: boolean;
  /** Optimize for unchanging input shapes: one cached plan, re-planned on change (needs staticAlloc). */
  readonly staticShape?: boolean;
  /** Without staticAlloc, graphs of at most this many ops run op by op; default 2. */
  readonly inlineLimit?: number;
  /** Inputs that change every call (copied into the CachedOp's memory under staticAlloc). */
  readonly dataIndices?: readonly number[];
  /** Inputs bound in place (parameters); a different array means re-binding. */
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
const MAX_IDLE = 4;

type Binding = 'data' | 'param' | 'auto';

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
  /** True when calls run op by op (MXNet `inlining_`). */
  readonly isInlined: boolean;
  readonly #layout: SymbolLayout;
  readonly #inputNodes: readonly number[];
  readonly #mutable: readonly boolean[];
  readonly #binding: Binding[];
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
    this.#binding = this.#bindings(options.dataIndices, options.paramIndices);
    this.#settings = graphSettings(
      runtime.env,
      { fusion: options.fusion, bulkSize: options.forwardBulkSize },
      op,
    );
    this.#backwardBulk = options.backwardBulkSize;
    this.staticAlloc = staticAlloc;
    this.staticShape = staticShape;
    this.inlineLimit = inlineLimit;
    this.isInlined = !staticAlloc && idx.nodes.length - n <= inlineLimit;
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
    const state = this.#acquire(sig, inputs);
    const g = sig.compiled.bound;
    let outputs: NDArray[];
    try {
      state.slots.forEach((s, i) => {
        s?.set(inputs[i] as NDArray);
      });
      state.runner.run(0, g.numForward, { isTrain });
      outputs = g.outputEntries.map((eid) => fresh(rt, state.runner.array(eid), sig.ctx));
    } catch (e) {
      this.#release(state);
      throw e;
    }
    if (needsGrad === undefined) {
      this.#release(state);
      return outputs;
    }
    state.pins = state.bound.flatMap((a) => (a === undefined ? [] : [rt.keep(a.detach())]));
    const call = { done: false };
    ag.recordCustom(this.name, (ograds) => this.#backward(state, call, ograds, isTrain), inputs, outputs);
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
    try {
      ograds.forEach((og, k) => {
        const h = state.headGrads[k];
        if (h === undefined) return;
        if (og.dtype === h.dtype) h.set(og);
        else rt.invoke('Cast', [og], { dtype: h.dtype }, { out: h });
      });
      runner.run(g.numForward, g.idx.nodes.length, {
        isTrain,
        ...(this.#backwardBulk === undefined ? {} : { bulkSize: this.#backwardBulk }),
      });
      return sig.needsGrad.map((need, i) =>
        need ? fresh(rt, runner.array(sig.gradEntries[i] as number), sig.ctx) : null,
      );
    } finally {
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

  /** A run state of `sig` bound to `inputs`, reserved for this call. */
  #acquire(sig: Signature, inputs: readonly NDArray[]): RunState {
    const rt = this.runtime;
    let state: RunState;
    if (!this.staticAlloc) {
      state = createRunState(
        rt,
        sig,
        inputs,
        inputs.map(() => false),
        this.#settings,
      );
    } else {
      let slot = this.#slots();
      const fits = (s: RunState) =>
        inputs.every((a, i) =>
          (sig.inputEntries[i] as number) < 0 ? true : slot[i] ? s.slots[i] !== undefined : s.bound[i] === a,
        );
      const k = sig.idle.findIndex(fits);
      if (k >= 0) {
        state = sig.idle.splice(k, 1)[0] as RunState;
        state.busy = true;
        return state;
      }
      // Re-bind on the memory of an idle state; inputs that changed arrays become data (slots).
      const old = sig.idle.pop();
      if (old !== undefined) {
        old.bound.forEach((b, i) => {
          if (b !== undefined && b !== inputs[i] && this.#binding[i] === 'auto') this.#binding[i] = 'data';
        });
        slot = this.#slots();
      }
      try {
        state = createRunState(rt, sig, inputs, slot, this.#settings, old);
      } finally {
        if (old !== undefined) disposeRunState(old);
      }
    }
    this.#runners++;
    state.busy = true;
    return state;
  }

  /** Give a state back: kept idle under staticAlloc, else disposed. */
  #release(state: RunState): void {
    for (const p of state.pins) p.dispose();
    state.pins = [];
    state.busy = false;
    const sig = state.sig;
    if (state.disposed) return;
    if (!this.staticAlloc || sig.evicted || this.#disposed || sig.idle.length >= MAX_IDLE) {
      disposeRunState(state);
    } else {
      sig.idle.push(state);
    }
  }

  /** Per input: copied into a slot (data) or bound in place (parameters, aux states). */
  #slots(): boolean[] {
    return this.#binding.map((b, i) => b === 'data' && !this.#mutable[i]);
  }

  #bindings(data: readonly number[] | undefined, params: readonly number[] | undefined): Binding[] {
    const n = this.#inputNodes.length;
    const out: Binding[] = new Array(n).fill('auto');
    if (data === undefined && params === undefined) return out;
    const seen = new Set<number>();
    const mark = (list: readonly number[] | undefined, what: Binding, key: string) => {
      for (const i of list ?? []) {
        if (!Number.isInteger(i) || i < 0 || i >= n || seen.has(i)) {
          throw new MXNetError(
            `${key} has ${seen.has(i) ? 'a repeated' : 'an invalid'} index ${i} (the CachedOp has ${n} inputs)`,
            { op: this.name, hint: `indices into the inputs: ${this.inputNames.join(', ')}` },
          );
        }
        seen.add(i);
        out[i] = what;
      }
    };
    mark(data, 'data', 'dataIndices');
    mark(params, 'param', 'paramIndices');
    if (seen.size !== n) {
      throw new MXNetError(
        `dataIndices and paramIndices together name ${seen.size} of the ${n} inputs; they must name each once`,
        { op: this.name, hint: `inputs: ${this.inputNames.join(', ')}` },
      );
    }
    return out;
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

/** A new array (in the caller's scope) with a copy of `a`, not recorded by autograd. */
function fresh(rt: Runtime, a: NDArray, ctx: Context): NDArray {
  const out = rt.empty(a.shape, a.dtype, ctx, 'CachedOp');
  out.set(a);
  return out;
}
