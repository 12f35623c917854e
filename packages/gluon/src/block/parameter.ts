/**
 * Gluon's `Parameter` and `Constant` (MXNet 2.0 python/mxnet/gluon/parameter.py): a named weight
 * with a possibly partial shape (-1 = unknown until the first forward), dtype, gradient request and
 * learning-rate / weight-decay multipliers, holding its data (and gradient) once initialized.
 *
 * Runtimes are explicit in @mx, but Gluon code names none: a parameter takes its runtime from
 * `initialize({ runtime })` or, when none is given, from the first input its block sees (deferred
 * initialization, which MXNet uses for unknown shapes, is used for an unknown runtime too). The
 * data is kept out of every `nd.scope`, so a parameter created in a tutorial loop's scope survives
 * it; `dispose()` releases it. One device per parameter for now: the KVStore issue adds lists.
 *
 * Storage types (MXNet 1.x `stype` / `grad_stype`): `gradStype` 'row_sparse' or 'csr' attaches a
 * sparse gradient buffer (`attachGrad({ stype })`), which backward fills with that storage type and
 * `zeroGrad` empties. A 'row_sparse' weight (`stype`) is MXNet's kvstore-held weight: `data()`
 * refuses it and `rowSparseData(rowIds)` fills the parameter's working copy (a RowSparseNDArray
 * with the gradient attached) with the requested rows. A Trainer made with the parameter becomes its
 * row source (MXNet `_set_trainer`, one Trainer per sparse parameter): when the Trainer keeps the
 * weight in a KVStore, the rows are pulled from the store (MXNet `_row_sparse_pull`) and the full
 * weight held here is refreshed from it only when read (`updateArray`, e.g. by `saveParameters`).
 * Without a store (no Trainer, or one made with `kvstore: null`) the full weight held here (dense,
 * as a local store holds it) is the truth: the rows are retained from it and the Trainer updates it.
 */
import { type Context, type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { GradReq, NDArray, Runtime } from '@mx/ndarray';
import type { StorageType } from '@mx/ops';
import { InitDesc } from '../init/desc.js';
import { type Initializer, Initializer as InitializerBase } from '../init/initializer.js';
import { Uniform } from '../init/random-inits.js';

/** What parameters are initialized with (mx.init's classes, or a registered name / dumps() JSON). */
export type ParamInitializer = Initializer;

export interface ParameterOptions {
  /** Shape; -1 (or MXNet's legacy 0) marks a dimension inferred on the first forward. */
  readonly shape?: Shape | number;
  readonly dtype?: DTypeName;
  readonly gradReq?: GradReq;
  readonly lrMult?: number;
  readonly wdMult?: number;
  /** This parameter's initializer (or its registered name / MXNet JSON), used instead of the default. */
  readonly init?: ParamInitializer | string;
  readonly allowDeferredInit?: boolean;
  /** False for running statistics and constants: no gradient is ever attached. */
  readonly differentiable?: boolean;
  /** Storage type of the weight (MXNet `stype`): 'default' or 'row_sparse' (see `rowSparseData`). */
  readonly stype?: StorageType;
  /** Storage type of the gradient buffer (MXNet `grad_stype`): 'default', 'row_sparse' or 'csr'. */
  readonly gradStype?: StorageType;
}

const STYPES: readonly string[] = ['default', 'row_sparse', 'csr'];

/**
 * @internal Where a row_sparse weight's rows come from: the Trainer made with it (MXNet's
 * `Parameter._trainer`). Each method returns false when the Trainer keeps no store for the weight,
 * and the parameter then works on the full weight it holds.
 */
export interface RowSparseSource {
  /** Pulls rows `rowIds` of `param`'s stored weight into the row_sparse `out` (MXNet `_row_sparse_pull`). */
  rowSparsePull(param: Parameter, out: NDArray, rowIds: NDArray): boolean;
  /** Copies `param`'s whole stored weight into the dense `out`, if a store holds it already. */
  pullWeight(param: Parameter, out: NDArray): boolean;
  /** Whether a store holds `param`'s weight already (its value here is then a stale copy). */
  holdsWeight(param: Parameter): boolean;
}

export interface ParameterInitOptions {
  /** Initializer for parameters with no `init` of their own (default MXNet's Uniform(0.07)). */
  readonly init?: ParamInitializer;
  readonly ctx?: Context;
  /** Runtime to allocate in; default: the runtime of the first forward's input. */
  readonly runtime?: Runtime;
  /** Re-initialize parameters that already have data (otherwise MXNet's warning and no change). */
  readonly forceReinit?: boolean;
}

/** MXNet's DeferredInitializationError: a parameter read before its shape or runtime was known. */
export class DeferredInitializationError extends MXNetError {
  constructor(message: string) {
    super(message, { hint: 'run one forward pass with real input first' });
  }
}

const isKnown = (shape: readonly number[] | undefined): shape is number[] =>
  shape?.every((d) => d > 0) === true;

interface Pending {
  readonly init: ParamInitializer;
  readonly ctx: Context | undefined;
}

/** A weight of a Block (MXNet `gluon.Parameter`). */
export class Parameter {
  readonly name: string;
  lrMult: number;
  wdMult: number;
  init: ParamInitializer | string | undefined;
  readonly allowDeferredInit: boolean;
  readonly differentiable: boolean;
  /** Storage type of the weight (MXNet `_stype`). */
  readonly stype: StorageType;
  /** Storage type of the gradient (MXNet `_grad_stype`). */
  readonly gradStype: StorageType;
  #shape: number[] | undefined;
  #dtype: DTypeName;
  #gradReq: GradReq;
  /** The data; for a row_sparse weight, the full weight (dense: the local store's copy). */
  #data: NDArray | undefined;
  /** A row_sparse weight's working copy: the rows `rowSparseData` retained, with the gradient. */
  #rows: NDArray | undefined;
  #pending: Pending | undefined;
  /** The Trainer a row_sparse weight reads its rows through (MXNet `_trainer`). */
  #source: RowSparseSource | undefined;

  constructor(name = 'weight', options: ParameterOptions = {}) {
    this.name = name;
    const s = options.shape;
    this.#shape =
      s === undefined ? undefined : typeof s === 'number' ? [s] : s.map((d) => (d === 0 ? -1 : d));
    this.#dtype = options.dtype ?? 'float32';
    this.differentiable = options.differentiable ?? true;
    this.#gradReq = this.differentiable ? (options.gradReq ?? 'write') : 'null';
    this.lrMult = options.lrMult ?? 1;
    this.wdMult = options.wdMult ?? 1;
    this.init = options.init;
    this.allowDeferredInit = options.allowDeferredInit ?? false;
    const stype = options.stype ?? 'default';
    const gradStype = options.gradStype ?? 'default';
    for (const [what, v] of [
      ['grad_stype', gradStype],
      ['stype', stype],
    ] as const) {
      if (!STYPES.includes(v)) {
        throw new MXNetError(
          `${what} for Parameter '${name}' must be one of 'default', 'row_sparse', or 'csr', but got '${String(v)}'`,
        );
      }
    }
    if (stype === 'csr') {
      // MXNet accepts it, but neither data() nor row_sparse_data() can then read the weight.
      throw new MXNetError(`Parameter '${name}': csr weights are not supported (stype='csr')`, {
        hint: "use stype 'row_sparse' (read with rowSparseData) or 'default'",
      });
    }
    this.stype = stype;
    this.gradStype = gradStype;
  }

  toString(): string {
    return `Parameter ${this.name} (shape=${this.#shape === undefined ? 'None' : shapeToString(this.#shape)}, dtype=${this.#dtype})`;
  }

  /** The shape, -1 where still unknown. */
  get shape(): readonly number[] | undefined {
    return this.#shape;
  }

  /**
   * Sets the shape. Like MXNet, only unknown (-1) dimensions may change once a shape is set, and an
   * initialized parameter keeps its shape.
   */
  set shape(value: readonly number[] | undefined) {
    if (value === undefined) throw new MXNetError(`Parameter '${this.name}': shape cannot be unset`);
    const next = value.map((d) => (d === 0 ? -1 : d));
    const cur = this.#shape;
    const compatible =
      cur === undefined ||
      (cur.length === next.length && cur.every((d, i) => d === -1 || d === next[i] || next[i] === -1));
    if (!compatible || (this.#data !== undefined && !next.every((d, i) => d === cur?.[i]))) {
      throw new MXNetError(
        `Expected shape ${shapeToString(next)} is incompatible with given shape ${shapeToString(cur ?? [])} for Parameter ${this.name}`,
        { shapes: [cur ?? [], next] },
      );
    }
    this.#shape = cur === undefined ? next : cur.map((d, i) => (d === -1 ? (next[i] as number) : d));
  }

  get dtype(): DTypeName {
    return this.#dtype;
  }

  /** 'write', 'add' or 'null'; changing it on an initialized parameter re-attaches the gradient. */
  get gradReq(): GradReq {
    return this.#gradReq;
  }

  set gradReq(req: GradReq) {
    if (!['write', 'add', 'null'].includes(req)) {
      throw new MXNetError(`grad_req must be one of 'write', 'add', or 'null', but got '${String(req)}'`);
    }
    if (!this.differentiable) req = 'null';
    if (req === this.#gradReq) return;
    this.#gradReq = req;
    const v = this.#variable();
    if (v !== undefined) this.#attachGrad(v);
  }

  /** Whether data exists (initialized, not pending). */
  get isInitialized(): boolean {
    return this.#data !== undefined;
  }

  /**
   * Initializes the data (MXNet `Parameter.initialize`). With an unknown shape or no runtime yet the
   * work is deferred to the first forward when `allowDeferredInit` (blocks set it) — otherwise it is
   * MXNet's error. An initialized parameter is left alone (with MXNet's warning) unless `forceReinit`.
   */
  initialize(options: ParameterInitOptions = {}): void {
    if (this.#data !== undefined && !options.forceReinit) {
      console.warn(
        `Parameter '${this.name}' is already initialized, ignoring. Set forceReinit=true to re-initialize.`,
      );
      return;
    }
    const pending: Pending = { init: options.init ?? new Uniform(), ctx: options.ctx };
    if (!isKnown(this.#shape) || options.runtime === undefined) {
      if (!this.allowDeferredInit && !isKnown(this.#shape)) {
        throw new MXNetError(
          `Cannot initialize Parameter '${this.name}' because it has invalid shape: ${shapeToString(this.#shape ?? [])}.`,
          { hint: 'give the full shape, or let a block infer it (allowDeferredInit)' },
        );
      }
      this.#pending = pending;
      return;
    }
    this.#create(options.runtime, pending);
  }

  /** @internal Completes a deferred initialization once the shape and a runtime are known. */
  finishDeferredInit(runtime: Runtime): void {
    if (this.#data !== undefined || this.#pending === undefined) return;
    if (!isKnown(this.#shape)) {
      throw new DeferredInitializationError(
        `Parameter '${this.name}' has not been initialized yet because initialization was deferred, and its shape ${shapeToString(this.#shape ?? [])} is still unknown.`,
      );
    }
    this.#create(runtime, this.#pending);
  }

  #create(rt: Runtime, p: Pending): void {
    const shape = this.#shape as number[];
    const arr = rt.keep(rt.nd.zeros(shape, { dtype: this.#dtype, ctx: p.ctx }));
    try {
      const own = this.init;
      p.init.init(new InitDesc(this.name, { attrs: own === undefined ? {} : { __init__: own } }), arr);
    } catch (e) {
      arr.dispose();
      throw e;
    }
    this.#adopt(arr);
  }

  /** Makes `arr` (kept, dense) the data, with the working copy of a row_sparse weight and the gradient. */
  #adopt(arr: NDArray): void {
    let rows: NDArray | undefined;
    try {
      if (this.stype === 'row_sparse') {
        const rt = arr.runtime;
        rows = rt.keep(rt.nd.sparse.zeros('row_sparse', arr.shape, { dtype: arr.dtype, ctx: arr.ctx }));
      }
      this.#attachGrad(rows ?? arr);
    } catch (e) {
      arr.dispose();
      rows?.dispose();
      throw e;
    }
    this.#data?.dispose();
    this.#rows?.dispose();
    this.#data = arr;
    this.#rows = rows;
    this.#pending = undefined;
  }

  /** The array autograd sees: the data, or a row_sparse weight's working copy. */
  #variable(): NDArray | undefined {
    return this.stype === 'row_sparse' ? this.#rows : this.#data;
  }

  #attachGrad(arr: NDArray): void {
    if (this.#gradReq !== 'null') arr.attachGrad({ gradReq: this.#gradReq, stype: this.gradStype });
    else if (arr.grad !== undefined) arr.attachGrad({ gradReq: 'null', stype: this.gradStype });
  }

  #uninitialized(what: string): never {
    if (this.#pending !== undefined) {
      throw new DeferredInitializationError(
        `Parameter '${this.name}' has not been initialized yet because initialization was deferred. Actual initialization happens during the first forward pass. Please pass one batch of data through the network before accessing Parameters. You can also avoid deferred initialization by specifying in_units, num_features, etc., for network layers.`,
      );
    }
    throw new MXNetError(
      `Parameter '${this.name}' has not been initialized. Note that you should initialize parameters and create Trainer with Block.collectParams() instead of Block.params because the later does not include Parameters of nested child Blocks (${what}).`,
      { hint: 'call block.initialize() first' },
    );
  }

  /**
   * The data (MXNet `data(ctx)`); throws DeferredInitializationError before the first forward, and
   * MXNet's error for a row_sparse weight (read it with `rowSparseData`).
   */
  data(ctx?: Context): NDArray {
    if (this.stype !== 'default') {
      throw new MXNetError(
        `Cannot return a copy of Parameter '${this.name}' on ctx ${ctx ?? 'None'} via data() because its storage type is ${this.stype}. Please use row_sparse_data() instead.`,
        { hint: 'use rowSparseData(rowIds)' },
      );
    }
    const d = this.#data;
    if (d === undefined) return this.#uninitialized('data');
    if (ctx !== undefined && d.ctx !== ctx) {
      throw new MXNetError(
        `Parameter '${this.name}' was not initialized on context ${ctx}. It was only initialized on ${d.ctx}.`,
      );
    }
    return d;
  }

  /** The data on every device (one today). */
  listData(): NDArray[] {
    if (this.stype !== 'default') {
      throw new MXNetError(
        `Cannot return copies of Parameter '${this.name}' on all contexts via list_data() because its storage type is ${this.stype}. Please use row_sparse_data() instead.`,
        { hint: 'use rowSparseData(rowIds)' },
      );
    }
    return [this.data()];
  }

  /**
   * A row_sparse weight holding only the rows in `rowIds` (MXNet `row_sparse_data`; ids may repeat
   * and come in any order, as in `row_sparse_pull`). The result is the parameter's working copy,
   * refilled by each call and carrying the gradient: use it in the forward pass and do not dispose
   * it. With a Trainer that keeps the weight in a KVStore the rows are pulled from the store
   * (`kv.rowSparsePull`: every requested row, ids checked at the call); otherwise they are retained
   * from the full weight held here, and ids outside [0, rows) fail the copy (reading it rejects).
   */
  rowSparseData(rowIds: NDArray): NDArray {
    if (this.stype !== 'row_sparse') {
      throw new MXNetError(
        `Cannot return a copy of Parameter ${this.name} via row_sparse_data() because its storage type is ${this.stype}. Please use data() instead.`,
        { hint: 'use data()' },
      );
    }
    if (
      rowIds === null ||
      typeof rowIds !== 'object' ||
      typeof (rowIds as NDArray).checkLive !== 'function'
    ) {
      throw new MXNetError(`row_id must have NDArray type, but ${typeof rowIds} is given`, {
        op: 'rowSparseData',
      });
    }
    rowIds.checkLive('rowSparseData');
    const full = this.#data;
    const rows = this.#rows;
    if (full === undefined || rows === undefined) return this.#uninitialized('rowSparseData');
    if (this.#source?.rowSparsePull(this, rows, rowIds) !== true) retainRows(full, rowIds, rows);
    return rows;
  }

  /**
   * @internal Makes `source` (a Trainer) the one this row_sparse weight reads its rows through
   * (MXNet `_set_trainer`): a second Trainer is MXNet's error. Dense parameters keep none.
   */
  setTrainer(source: RowSparseSource | undefined): void {
    if (this.stype === 'default') return;
    if (source !== undefined && this.#source !== undefined && this.#source !== source) {
      throw new MXNetError(
        `Failed to set the trainer for Parameter '${this.name}' because it was already set. More than one trainers for a ${this.stype} Parameter is not supported.`,
        { hint: 'train a row_sparse parameter with a single Trainer' },
      );
    }
    this.#source = source;
  }

  /** @internal The array autograd records for this parameter: the data, or a row_sparse weight's working copy. */
  variableArray(): NDArray {
    return this.#variable() ?? this.#uninitialized('variableArray');
  }

  /**
   * @internal What the optimizer updates: the data (for a row_sparse weight, the full weight held
   * here, first refreshed from the Trainer's store when one holds the weight).
   */
  updateArray(): NDArray {
    const d = this.#data ?? this.#uninitialized('updateArray');
    this.#source?.pullWeight(this, d);
    return d;
  }

  /** MXNet resets the Trainer's store here; a store keeps its keys, so the change is refused. */
  #checkNotHeld(what: string): void {
    if (this.#source?.holdsWeight(this) === true) {
      throw new MXNetError(
        `Parameter '${this.name}': cannot ${what} a row_sparse weight that the Trainer's KVStore holds already`,
        {
          hint: 'set the value before the first step or rowSparseData (or train with kvstore: null)',
        },
      );
    }
  }

  /** The gradient buffer (row_sparse or csr with such a `gradStype`); MXNet's error when gradReq is 'null'. */
  grad(ctx?: Context): NDArray {
    const d = this.#variable();
    if (d === undefined) return this.#uninitialized('grad');
    if (ctx !== undefined && d.ctx !== ctx) {
      throw new MXNetError(
        `Parameter '${this.name}' was not initialized on context ${ctx}. It was only initialized on ${d.ctx}.`,
      );
    }
    const g = d.grad;
    if (g === undefined || this.#gradReq === 'null') {
      throw new MXNetError(`Cannot get gradient array for Parameter '${this.name}' because grad_req='null'`, {
        hint: "set gradReq to 'write' or 'add'",
      });
    }
    return g;
  }

  listGrad(): NDArray[] {
    return [this.grad()];
  }

  /** The device of the data. */
  listCtx(): Context[] {
    return [(this.#data ?? this.#uninitialized('listCtx')).ctx];
  }

  /**
   * Replaces the values (MXNet `set_data`): copied into the existing array when initialized, else
   * the parameter is initialized from it (shape and dtype must agree with what is declared).
   */
  setData(value: NDArray): void {
    this.#checkNotHeld('set_data on');
    const cur = this.#data;
    if (cur === undefined) {
      this.shape = value.shape;
      if (value.dtype !== this.#dtype) {
        throw new MXNetError(
          `Parameter '${this.name}': set_data with dtype ${value.dtype}, but the parameter is ${this.#dtype}`,
          { dtypes: [this.#dtype, value.dtype], hint: 'cast the value or the parameter first' },
        );
      }
      this.#adopt(
        value.runtime.keep(value.stype === 'default' ? value.copyTo(value.ctx) : value.tostype('default')),
      );
      return;
    }
    if (value.shape.length !== cur.shape.length || value.shape.some((d, i) => d !== cur.shape[i])) {
      throw new MXNetError(
        `Parameter '${this.name}': cannot set data of shape ${shapeToString(value.shape)}; the parameter has shape ${shapeToString(cur.shape)}`,
        { shapes: [cur.shape, value.shape] },
      );
    }
    if (value.dtype === cur.dtype) value.copyTo(cur);
    else if (value.stype !== 'default') {
      throw new MXNetError(`Parameter '${this.name}': set_data with a ${value.stype} ${value.dtype} value`, {
        dtypes: [cur.dtype, value.dtype],
        hint: `cast it first: value.astype('${cur.dtype}')`,
      });
    } else {
      const cast = value.astype(cur.dtype);
      cast.copyTo(cur);
      cast.dispose();
    }
  }

  /** Zeroes the gradient (no-op for gradReq 'null'); a sparse gradient becomes empty (no stored rows), as in MXNet. */
  zeroGrad(): void {
    const g = this.#variable()?.grad;
    if (g === undefined) return;
    const nd = g.runtime.nd;
    if (g.stype === 'default') {
      nd.zeros_like(g, { out: g });
      return;
    }
    const empty = nd.sparse.zeros(g.stype as 'row_sparse', g.shape, { dtype: g.dtype, ctx: g.ctx });
    try {
      empty.copyTo(g);
    } finally {
      empty.dispose();
    }
  }

  /** Casts data and gradient to `dtype` (MXNet `cast`). */
  cast(dtype: DTypeName): void {
    if (this.#data !== undefined && this.#data.dtype !== dtype) this.#checkNotHeld('cast');
    this.#dtype = dtype;
    const d = this.#data;
    if (d === undefined || d.dtype === dtype) return;
    this.#adopt(d.runtime.keep(d.astype(dtype)));
  }

  /** Releases data and gradient; the parameter returns to uninitialized. */
  dispose(): void {
    this.#data?.dispose();
    this.#rows?.dispose();
    this.#data = undefined;
    this.#rows = undefined;
    this.#pending = undefined;
  }
}

/**
 * A constant (MXNet `gluon.Constant`): a non-differentiable parameter whose initializer writes the
 * given values, so it is saved, loaded and exported like any parameter.
 */
export class Constant extends Parameter {
  readonly value: NDArray | readonly number[];

  constructor(name: string, value: NDArray | readonly number[], options: { dtype?: DTypeName } = {}) {
    const shape = Array.isArray(value) ? [value.length] : (value as NDArray).shape;
    const values = value;
    super(name, {
      shape,
      dtype: options.dtype ?? (Array.isArray(value) ? 'float32' : (value as NDArray).dtype),
      gradReq: 'null',
      differentiable: false,
      init: new ValuesInit(values),
    });
    this.value = value;
  }
}

/** Writes fixed values (a Constant's initializer; not registered, so not part of `dumps`). */
class ValuesInit extends InitializerBase {
  readonly registeredName = 'constant';
  readonly #values: NDArray | readonly number[];

  constructor(values: NDArray | readonly number[]) {
    super();
    this.#values = values;
  }

  protected initWeight(_name: string, arr: NDArray): void {
    const v = this.#values;
    if (Array.isArray(v)) {
      const src = arr.runtime.nd.array(v as number[], { dtype: arr.dtype });
      src.copyTo(arr);
      src.dispose();
    } else (v as NDArray).copyTo(arr);
  }
}

/**
 * Writes the rows of `full` (dense) named by `rowIds` into the row_sparse `out` (the local stand-in
 * for MXNet's `row_sparse_pull`), asynchronously and unrecorded: each id counts 1 at its row
 * (`_backward_Embedding` with sparse_grad, which also refuses ids outside the rows), the indicator
 * of the counted rows masks the weight, and the cast keeps the rows holding a nonzero — so a
 * requested row whose values are all zero is not stored, which reads the same.
 */
function retainRows(full: NDArray, rowIds: NDArray, out: NDArray): void {
  const rt = full.runtime;
  const n = full.shape[0] as number;
  rt.autograd.pause(() => {
    const temps: NDArray[] = [];
    const t = <A extends NDArray>(a: A): A => {
      temps.push(a);
      return a;
    };
    try {
      const ids =
        rowIds.stype === 'default' ? rowIds.reshape([-1]) : t(rowIds.tostype('default')).reshape([-1]);
      temps.push(ids);
      const ones = t(rt.nd.ones([ids.size, 1], { dtype: full.dtype, ctx: full.ctx }));
      const params = { input_dim: n, output_dim: 1, dtype: full.dtype, sparse_grad: true };
      const counts = t(rt.invoke('_backward_Embedding', [ones, ids], params)[0] as NDArray);
      const mask = t(t(counts.tostype('default')).clip(0, 1));
      const kept = t(rt.invoke('broadcast_mul', [t(full.reshape([n, -1])), mask])[0] as NDArray);
      rt.invoke('cast_storage', [t(kept.reshape(full.shape))], { stype: 'row_sparse' }, { out });
    } finally {
      for (const a of temps) a.dispose();
    }
  });
}
