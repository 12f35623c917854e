/**
 * Executor (MXNet 1.x `mx.executor.Executor` over `GraphExecutor`): a symbol bound to arrays on one
 * device. Binding infers every shape and dtype, adds the gradient pass when some argument wants a
 * gradient, fuses elementwise chains (compile.ts; `fusion` option, else MXNET_USE_FUSION), plans
 * memory over forward and backward together (arguments, aux states, gradients and head gradients
 * external) and compiles one GraphRunner; `forward` and `backward` are then two node ranges of that
 * runner, pushed as bulked engine ops with nothing inferred or allocated per step. Bulk sizes,
 * in-place planning, the reuse range and the gradient-sum cap come from MXNet's environment
 * settings (settings.ts), read at bind time.
 *
 * Arrays: arguments, gradients and aux states are the caller's (`bind`) or the executor's
 * (`simpleBind`, `reshape`'s views); outputs are windows on the executor's memory, overwritten by
 * each forward. `dispose()` releases what the executor allocated, never the caller's arrays.
 *
 * Sparse arrays (MXNet's storage types in executors): when a bound array is sparse, or an op can
 * make sparse outputs from dense inputs, binding also infers every entry's storage type
 * (storage.ts) and, if some entry is sparse, runs the graph with a MixedRunner (mixed.ts): the
 * nodes that see sparse arrays go through the storage dispatch of `nd` calls, the rest as above.
 * `simpleBind` then allocates each gradient in the storage type inferred for it (MXNet's
 * `simple_bind`: a row_sparse weight gradient of `dot(csr, weight)`). All-dense graphs skip all of
 * it: no storage inference, the same runner.
 */
import { type Context, type DTypeName, MXNetError, type Shape, shapeSize, shapeToString } from '@mx/base';
import type { GraphNode } from '@mx/graph';
import {
  createGraphRunner,
  GraphRunner,
  type GraphRunOptions,
  type NDArray,
  type Runtime,
} from '@mx/ndarray';
import type { StorageType } from '@mx/ops';
import { assign, isArray, live, prefixView } from './arrays.js';
import { type CompiledGraph, compileGraph, planGraph } from './compile.js';
import type { BoundGraph, GradReq, SymbolLayout } from './graph.js';
import { inferForward, unknownVars } from './infer.js';
import { emptyOf, MixedRunner } from './mixed.js';
import { graphSettings } from './settings.js';
import { type GraphStorage, inferGraphStorage } from './storage.js';

/** @internal What an Executor runs: a GraphRunner (dense graphs) or a MixedRunner (sparse entries). */
export interface Runner {
  run(from?: number, to?: number, options?: GraphRunOptions): void;
  array(eid: number): NDArray;
  segments(from?: number, to?: number, options?: GraphRunOptions): string[][];
  readonly plannedBytes: number;
  dispose(): void;
}

/** What `forward` takes: the training flag and arrays (or host values) to copy into arguments by name. */
export type ForwardArgs = { readonly isTrain?: boolean } & {
  readonly [name: string]: NDArray | ArrayLike<number> | boolean | undefined;
};

/** Options of {@link Executor.reshape} (MXNet `partial_shaping`, `allow_up_sizing`). */
export interface ReshapeOptions {
  /** Allow arguments not named in `shapes` to change shape. Default false. */
  readonly partialShaping?: boolean;
  /** Allow an array to grow (a new allocation instead of a view). Default false. */
  readonly allowUpSizing?: boolean;
}

/** @internal Everything a bind decided. `owned` arrays are disposed by the executor (or on failure). */
export interface BindState {
  readonly rt: Runtime;
  readonly ctx: Context;
  readonly layout: SymbolLayout;
  readonly reqs: readonly GradReq[];
  readonly args: readonly NDArray[];
  readonly grads: readonly (NDArray | undefined)[];
  readonly aux: readonly NDArray[];
  readonly owned: NDArray[];
  /**
   * simpleBind: allocate the gradient of every argument whose gradReq is not 'null' (zeros, in the
   * storage type inferred for it); `grads` is then ignored.
   */
  readonly allocGrads?: boolean;
  readonly bulkSize?: number;
  /** Fuse elementwise chains; default MXNET_USE_FUSION. */
  readonly fusion?: boolean;
  readonly shared?: GraphRunner;
}

const record = <T>(
  names: readonly string[],
  values: readonly (T | undefined)[],
): Readonly<Record<string, T>> =>
  Object.freeze(
    Object.fromEntries(names.flatMap((n, i) => (values[i] === undefined ? [] : [[n, values[i] as T]]))),
  );

const sameShape = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((d, i) => d === b[i]);

/** @internal Bind: infer, build the graph, fuse, plan memory, compile. Takes ownership of `s.owned`. */
export function createExecutor(s: BindState): Executor {
  const { rt, layout } = s;
  const owned = s.owned;
  try {
    const settings = graphSettings(rt.env, { fusion: s.fusion, bulkSize: s.bulkSize });
    const idx = layout.forward;
    const known = { shapes: new Map<number, Shape>(), dtypes: new Map<number, DTypeName>() };
    const stypes = new Map<number, StorageType>();
    const note = (n: GraphNode, a: NDArray) => {
      known.shapes.set(idx.nodeId(n), a.shape);
      known.dtypes.set(idx.nodeId(n), a.dtype);
      stypes.set(idx.nodeId(n), a.stype);
    };
    layout.argNodes.forEach((n, i) => {
      note(n, s.args[i] as NDArray);
    });
    layout.auxNodes.forEach((n, i) => {
      note(n, s.aux[i] as NDArray);
    });
    const fwd = inferForward(layout, known);
    const alloc = s.allocGrads === true;
    const reqs = s.reqs.map((r, i) => (s.grads[i] === undefined && !alloc ? 'null' : r));
    const boundSparse = !alloc && s.grads.some((g) => g !== undefined && g.stype !== 'default');
    const compiled = compileGraph(rt.registry, layout, reqs, known, fwd, settings, {
      storage: { vars: stypes, boundSparse },
      backend: rt.backendFor(s.ctx).name,
    });
    const { bound, types } = compiled;
    const full = bound.idx;
    let storage: GraphStorage | undefined;
    if (compiled.mayBeSparse) {
      for (const nid of bound.headGradNodes) if (nid >= 0) stypes.set(nid, 'default');
      const boundStypes = new Map<number, StorageType>();
      bound.gradEntries.forEach((eid, i) => {
        const g = s.grads[i];
        if (eid >= 0 && g !== undefined && !alloc) boundStypes.set(eid, g.stype);
      });
      storage = inferGraphStorage(rt, full, stypes, boundStypes, s.ctx, 'bind');
    }
    const grads = alloc
      ? layout.argNodes.map((n, i) => {
          const eid = bound.gradEntries[i] as number;
          if (reqs[i] === 'null' || eid < 0) return undefined;
          const vid = full.entryId(full.nodeId(n));
          const shape = types.shapes[vid] as Shape;
          const dtype = types.dtypes[vid] as DTypeName;
          const stype = storage?.stypes[eid] ?? 'default';
          const g = rt.keep(
            stype === 'default'
              ? rt.nd.zeros(shape, { dtype, ctx: s.ctx })
              : emptyOf(rt, shape, dtype, stype, s.ctx, 'simpleBind'),
          );
          owned.push(g);
          return g;
        })
      : s.grads;
    const external = new Map<number, NDArray>();
    layout.argNodes.forEach((n, i) => {
      external.set(full.entryId(full.nodeId(n)), s.args[i] as NDArray);
    });
    layout.auxNodes.forEach((n, i) => {
      external.set(full.entryId(full.nodeId(n)), s.aux[i] as NDArray);
    });
    const headGrads = bound.headGradNodes.map((nid) => {
      if (nid < 0) return undefined;
      const eid = full.entryId(nid);
      const a = rt.keep(
        rt.nd.ones(types.shapes[eid] as Shape, { dtype: types.dtypes[eid] as DTypeName, ctx: s.ctx }),
      );
      owned.push(a);
      external.set(eid, a);
      return a;
    });
    const gradOut = new Set<number>();
    const addTo = new Set<number>();
    bound.gradEntries.forEach((eid, i) => {
      if (eid < 0) return;
      external.set(eid, grads[i] as NDArray);
      gradOut.add(eid);
      if (reqs[i] === 'add') addTo.add(eid);
    });
    let runner: Runner;
    if (storage === undefined) {
      const { plan, unused } = planGraph(compiled, settings, gradOut);
      runner = createGraphRunner(rt, {
        graph: full,
        shapes: types.shapes,
        dtypes: types.dtypes,
        plan,
        ctx: s.ctx,
        external,
        addTo,
        unused,
        needGrad: gradOut.size > 0,
        bulkSize: settings.bulkSize,
        inferenceBulkSize: settings.inferenceBulkSize,
        shared: s.shared,
      });
    } else {
      runner = new MixedRunner(rt, {
        graph: full,
        shapes: types.shapes,
        dtypes: types.dtypes,
        storage,
        ctx: s.ctx,
        external,
        addTo,
        needGrad: gradOut.size > 0,
        bulkSize: settings.bulkSize,
        inferenceBulkSize: settings.inferenceBulkSize,
        plan: settings.plan,
      });
    }
    return new Executor({ ...s, grads, allocGrads: false }, reqs, compiled, runner, headGrads);
  } catch (e) {
    for (const a of owned) a.dispose();
    throw e;
  }
}

/** A symbol bound to arrays (MXNet `Executor`). Create with `simpleBind` or `bind`. */
export class Executor {
  readonly ctx: Context;
  /** Argument names, in `argArrays` order (MXNet `list_arguments()`). */
  readonly argNames: readonly string[];
  /** Aux state names, in `auxArrays` order (MXNet `list_auxiliary_states()`). */
  readonly auxNames: readonly string[];
  /** Output names, in `outputs` order (MXNet `list_outputs()`). */
  readonly outputNames: readonly string[];
  readonly argArrays: readonly NDArray[];
  /** Gradient arrays; undefined for arguments with gradReq 'null'. */
  readonly gradArrays: readonly (NDArray | undefined)[];
  readonly auxArrays: readonly NDArray[];
  readonly argDict: Readonly<Record<string, NDArray>>;
  /** Gradient arrays by argument name (arguments with a gradient only). */
  readonly gradDict: Readonly<Record<string, NDArray>>;
  readonly auxDict: Readonly<Record<string, NDArray>>;
  /** The gradient request of each argument. */
  readonly gradReq: Readonly<Record<string, GradReq>>;
  /** The outputs, overwritten by every forward. */
  readonly outputs: readonly NDArray[];
  readonly outputDict: Readonly<Record<string, NDArray>>;
  readonly #state: BindState;
  readonly #compiled: CompiledGraph;
  readonly #bound: BoundGraph;
  readonly #runner: Runner;
  readonly #headGrads: readonly (NDArray | undefined)[];
  /** Head gradients hold ones (the default); false after backward(outGrads) wrote others. */
  #onesInHeadGrads = true;
  #disposed = false;

  /** @internal Use `simpleBind` or `bind`. */
  constructor(
    state: BindState,
    reqs: readonly GradReq[],
    compiled: CompiledGraph,
    runner: Runner,
    headGrads: readonly (NDArray | undefined)[],
  ) {
    const { layout } = state;
    const bound = compiled.bound;
    this.#state = state;
    this.#compiled = compiled;
    this.#bound = bound;
    this.#runner = runner;
    this.#headGrads = headGrads;
    this.ctx = state.ctx;
    this.argNames = layout.argNames;
    this.auxNames = layout.auxNames;
    this.outputNames = layout.outputNames;
    this.argArrays = Object.freeze([...state.args]);
    this.gradArrays = Object.freeze(state.grads.map((g, i) => (reqs[i] === 'null' ? undefined : g)));
    this.auxArrays = Object.freeze([...state.aux]);
    this.argDict = record(layout.argNames, this.argArrays);
    this.gradDict = record(layout.argNames, this.gradArrays);
    this.auxDict = record(layout.auxNames, this.auxArrays);
    this.gradReq = record(layout.argNames, reqs);
    this.outputs = Object.freeze(bound.outputEntries.map((eid) => runner.array(eid)));
    this.outputDict = record(layout.outputNames, this.outputs);
  }

  /** Bytes of internal memory planned for forward and backward (arguments and gradients excluded). */
  get plannedBytes(): number {
    return this.#runner.plannedBytes;
  }

  /** Nodes of the graph the executor runs (variables included; forward and backward; after fusion). */
  get numNodes(): number {
    return this.#bound.idx.nodes.length;
  }

  /** Fused nodes in that graph (0 when fusion is off or found nothing to fuse). */
  get fusedNodes(): number {
    return this.#compiled.fusedNodes;
  }

  /**
   * The node names of each engine op one forward (or backward) run pushes, for profiling and
   * tests; `isTrain` defaults to false for forward and true for backward.
   */
  segments(pass: 'forward' | 'backward', options: { readonly isTrain?: boolean } = {}): string[][] {
    this.#checkLive('segments');
    const n = this.#bound.numForward;
    const [from, to] = pass === 'forward' ? [0, n] : [n, this.#bound.idx.nodes.length];
    return this.#runner.segments(from, to, { isTrain: options.isTrain ?? pass === 'backward' });
  }

  /** True when bound with gradients (some argument has gradReq 'write' or 'add'). */
  get hasBackward(): boolean {
    return this.#bound.numForward < this.#bound.idx.nodes.length;
  }

  /**
   * Run the forward pass (MXNet `forward(is_train, **kwargs)`): copy the named inputs into their
   * argument arrays, then push the forward nodes. Returns the outputs at once; reading them waits.
   */
  forward(args: ForwardArgs = {}): readonly NDArray[] {
    this.#checkLive('forward');
    const copies: [NDArray | ArrayLike<number>, NDArray][] = [];
    for (const [name, value] of Object.entries(args)) {
      if (name === 'isTrain' || value === undefined) continue;
      const dst = this.argDict[name];
      if (dst === undefined || !Object.hasOwn(this.argDict, name)) {
        throw new MXNetError(`Find name ${name} that is not in the arguments`, {
          op: 'Executor.forward',
          hint: `arguments: ${this.argNames.join(', ')}`,
        });
      }
      if (typeof value === 'boolean') {
        throw new MXNetError(`argument ${name}: expected an NDArray or values, got a boolean`, {
          op: 'Executor.forward',
        });
      }
      if (isArray(value)) {
        if (!sameShape(value.shape, dst.shape)) {
          throw new MXNetError(
            `Shape not match! Argument ${name}, need: ${shapeToString(dst.shape)}, received: ${shapeToString(value.shape)}`,
            { op: 'Executor.forward', shapes: [dst.shape, value.shape] },
          );
        }
        live(value, `argument ${name}`, 'Executor.forward');
      } else if (value.length !== dst.size) {
        throw new MXNetError(`argument ${name}: ${value.length} values for an array of size ${dst.size}`, {
          op: 'Executor.forward',
          shapes: [dst.shape],
        });
      }
      copies.push([value, dst]);
    }
    for (const [value, dst] of copies) assign(this.#state.rt, value, dst);
    this.#runner.run(0, this.#bound.numForward, { isTrain: args.isTrain === true });
    return this.outputs;
  }

  /**
   * Run the backward pass (MXNet `backward(out_grads, is_train)`): gradients of the outputs are
   * `outGrads` (ones where not given; loss outputs such as SoftmaxOutput ignore them), written or
   * added into the gradient arrays by each argument's gradReq. Run a forward before each backward:
   * the backward pass reads forward values whose memory the plan reuses during the backward pass,
   * as MXNet's does.
   */
  backward(
    outGrads?: NDArray | readonly (NDArray | null | undefined)[],
    options: { readonly isTrain?: boolean } = {},
  ): void {
    this.#checkLive('backward');
    if (!this.hasBackward) {
      throw new MXNetError('this executor was bound without gradients: every argument has gradReq null', {
        op: 'Executor.backward',
        hint: "bind with gradReq 'write' or 'add' (and gradient arrays, for bind) to run backward",
      });
    }
    const given = outGrads === undefined ? [] : isArray(outGrads) ? [outGrads] : outGrads;
    if (given.length > this.outputs.length) {
      throw new MXNetError(`got ${given.length} output gradients for ${this.outputs.length} outputs`, {
        op: 'Executor.backward',
      });
    }
    given.forEach((g, i) => {
      if (g == null) return;
      live(g, `gradient of output ${this.outputNames[i]}`, 'Executor.backward');
      const out = this.outputs[i] as NDArray;
      if (!sameShape(g.shape, out.shape)) {
        throw new MXNetError(
          `gradient of output ${this.outputNames[i]} has shape ${shapeToString(g.shape)}, the output has ${shapeToString(out.shape)}`,
          { op: 'Executor.backward', shapes: [out.shape, g.shape] },
        );
      }
    });
    const rt = this.#state.rt;
    const custom = given.some((g) => g != null);
    if (custom || !this.#onesInHeadGrads) {
      this.#headGrads.forEach((h, i) => {
        if (h === undefined) return;
        const g = given[i];
        if (g != null) assign(rt, g, h);
        else h.set(1);
      });
      this.#onesInHeadGrads = !custom;
    }
    this.#runner.run(this.#bound.numForward, this.#bound.idx.nodes.length, {
      isTrain: options.isTrain ?? true,
    });
  }

  /**
   * A new executor for new input shapes sharing this one's memory (MXNet `reshape`): arguments,
   * gradients and aux states of the same size or smaller are views on these arrays; a larger one is
   * an error unless `allowUpSizing`, and an argument not named in `shapes` may change shape only
   * with `partialShaping`.
   */
  reshape(shapes: Readonly<Record<string, Shape>>, options: ReshapeOptions = {}): Executor {
    this.#checkLive('reshape');
    const { rt, layout } = this.#state;
    const sparse = [...this.argArrays, ...this.auxArrays, ...this.gradArrays].find(
      (a) => a !== undefined && a.stype !== 'default',
    );
    if (!(this.#runner instanceof GraphRunner) || sparse !== undefined) {
      throw new MXNetError(
        `reshape of an executor with sparse storage is not supported${sparse === undefined ? '' : ` (${sparse.describe()})`}`,
        { op: 'Executor.reshape', hint: 'bind the symbol again for the new shapes (simpleBind)' },
      );
    }
    const idx = layout.forward;
    const known = { shapes: new Map<number, Shape>(), dtypes: new Map<number, DTypeName>() };
    for (const [name, shape] of Object.entries(shapes)) {
      const i = layout.argNames.indexOf(name);
      const j = layout.auxNames.indexOf(name);
      if (i < 0 && j < 0) {
        throw new MXNetError(`reshape: ${name} is not an argument or aux state`, {
          op: 'Executor.reshape',
          hint: `arguments: ${layout.argNames.join(', ')}`,
        });
      }
      known.shapes.set(idx.nodeId((i >= 0 ? layout.argNodes[i] : layout.auxNodes[j]) as GraphNode), shape);
    }
    layout.argNodes.forEach((n, i) => {
      known.dtypes.set(idx.nodeId(n), (this.argArrays[i] as NDArray).dtype);
    });
    layout.auxNodes.forEach((n, i) => {
      known.dtypes.set(idx.nodeId(n), (this.auxArrays[i] as NDArray).dtype);
    });
    const t = inferForward(layout, known);
    const unknown = unknownVars(layout, t);
    if (unknown.length > 0) {
      throw new MXNetError(`reshape: cannot infer ${unknown.join(', ')}`, {
        op: 'Executor.reshape',
        hint: 'give the shapes of the inputs these follow from',
      });
    }
    const newShape = (n: GraphNode) => t.shapes[idx.entryId(idx.nodeId(n))] as Shape;
    // Decide everything before creating a view, so a refused reshape leaves nothing behind.
    const plan = (name: string, kind: 'arg' | 'aux', shape: Shape, old: NDArray): 'same' | 'view' | 'new' => {
      if (sameShape(shape, old.shape)) return 'same';
      if (options.partialShaping !== true && !(name in shapes)) {
        throw new MXNetError(
          `Shape of unspecified array ${kind}:${name} changed. This can cause the new executor to not share parameters with the old one. Please check for error in network. If this is intended, set partialShaping to suppress this warning.`,
          { op: 'Executor.reshape', shapes: [old.shape, shape], hint: 'pass { partialShaping: true }' },
        );
      }
      if (shapeSize(shape) <= old.size) return 'view';
      if (options.allowUpSizing !== true) {
        throw new MXNetError(
          `New shape of ${kind}:${name} larger than original. First making a big executor and then down sizing it is more efficient than the reverse. If you really want to up size, set allowUpSizing to enable allocation of new arrays.`,
          { op: 'Executor.reshape', shapes: [old.shape, shape], hint: 'pass { allowUpSizing: true }' },
        );
      }
      return 'new';
    };
    const argPlans = layout.argNodes.map((n, i) =>
      plan(n.name, 'arg', newShape(n), this.argArrays[i] as NDArray),
    );
    const auxPlans = layout.auxNodes.map((n, i) =>
      plan(n.name, 'aux', newShape(n), this.auxArrays[i] as NDArray),
    );
    const owned: NDArray[] = [];
    const make = (how: 'same' | 'view' | 'new', old: NDArray, shape: Shape): NDArray => {
      const a =
        how === 'new'
          ? rt.keep(rt.nd.zeros(shape, { dtype: old.dtype, ctx: old.ctx }))
          : rt.keep(prefixView(old, shape));
      owned.push(a);
      return a;
    };
    const args = layout.argNodes.map((n, i) =>
      make(argPlans[i] as 'same', this.argArrays[i] as NDArray, newShape(n)),
    );
    const grads = layout.argNodes.map((n, i) => {
      const g = this.gradArrays[i];
      return g === undefined ? undefined : make(argPlans[i] as 'same', g, newShape(n));
    });
    const aux = layout.auxNodes.map((n, i) =>
      make(auxPlans[i] as 'same', this.auxArrays[i] as NDArray, newShape(n)),
    );
    return createExecutor({
      ...this.#state,
      reqs: layout.argNames.map((n) => this.gradReq[n] as GradReq),
      args,
      grads,
      aux,
      owned,
      allocGrads: false,
      shared: this.#runner,
    });
  }

  /**
   * Copy parameter values into the argument and aux arrays by name (MXNet `copy_params_from`),
   * casting to the array's dtype. A name that is neither is an error unless `allowExtraParams`.
   * Everything is checked before anything is copied.
   */
  copyParamsFrom(
    argParams: Readonly<Record<string, NDArray>>,
    auxParams: Readonly<Record<string, NDArray>> = {},
    allowExtraParams = false,
  ): void {
    this.#checkLive('copyParamsFrom');
    const copies: [NDArray, NDArray][] = [];
    const collect = (
      params: Readonly<Record<string, NDArray>>,
      dict: Readonly<Record<string, NDArray>>,
      what: string,
    ) => {
      for (const [name, v] of Object.entries(params)) {
        const dst = Object.hasOwn(dict, name) ? dict[name] : undefined;
        if (dst === undefined) {
          if (allowExtraParams) continue;
          throw new MXNetError(`Find name "${name}" that is not in the ${what}`, {
            op: 'Executor.copyParamsFrom',
            hint: 'pass allowExtraParams = true to skip names the symbol does not use',
          });
        }
        live(v, `parameter ${name}`, 'Executor.copyParamsFrom');
        if (!sameShape(v.shape, dst.shape)) {
          throw new MXNetError(
            `${name}: the parameter has shape ${shapeToString(v.shape)}, the executor's array ${shapeToString(dst.shape)}`,
            { op: 'Executor.copyParamsFrom', shapes: [dst.shape, v.shape] },
          );
        }
        copies.push([v, dst]);
      }
    };
    collect(argParams, this.argDict, 'arguments');
    collect(auxParams, this.auxDict, 'auxiliary states');
    for (const [v, dst] of copies) assign(this.#state.rt, v, dst);
  }

  /** Release the executor's memory and the arrays it allocated (not the caller's). Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#runner.dispose();
    for (const a of this.#state.owned) a.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  #checkLive(op: string): void {
    if (this.#disposed) {
      throw new MXNetError('this executor was disposed', {
        op: `Executor.${op}`,
        hint: 'bind the symbol again',
      });
    }
  }
}
