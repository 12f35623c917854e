/**
 * `nd`: the NDArray namespace of a runtime (MXNet's `mx.nd`). Typed helpers for what users type
 * most (creation, arithmetic with NumPy broadcasting and scalars, waits, scopes, memory), and —
 * through a Proxy — a function for every operator in the registry, so `nd.FullyConnected(x, w, b,
 * { num_hidden: 10 })` works for any registered op (third-party ones too) without code generation.
 *
 * Op function calling convention (MXNet's `mx.nd.<op>(*inputs, **params)` in TypeScript): the
 * NDArray arguments are the inputs in order, an optional trailing plain object holds the params
 * plus `out`/`ctx`/`req`. Variadic ops get their count param (`num_args`) filled in. One visible
 * output returns an NDArray, several return an array.
 *
 * Types: the core ops' signatures are generated from the registry (core-ops.ts: inputs, a params
 * interface per op with MXNet's names and docs, outputs as `NDArray` or a tuple, overloads where
 * the outputs depend on a literal param), so a misspelt param is a compile error. Creation functions
 * carry the dtype in the array's type (`NDArray<'int64'>`), which types `item()`.
 */
import {
  type Context,
  DType,
  type DTypeName,
  MXNetError,
  type Shape,
  type StorageArray,
  shapeSize,
} from '@mx/base';
import type { CoreOps } from './core-ops.js';
import { flattenNested, type NestedArray, nestedShape } from './host.js';
import type { InvokeOptions } from './invoke.js';
import {
  type LoadedArrays,
  type LoadOptions,
  loadBytes,
  loadFile,
  type SaveOptions,
  saveBytes,
  saveFile,
} from './nd-io.js';
import { NDArray, type OpParams } from './ndarray.js';
import type { MemoryStats, Runtime } from './runtime.js';
import type { CSRNDArray, RowSparseNDArray } from './sparse/arrays.js';
import { createSparseNd, type SparseNd } from './sparse/create.js';

/** An untyped op function (`nd['my_op']` for an op registered after the core ones), one output. */
export type OpFunction = (...args: (NDArray | OpCallParams | undefined)[]) => NDArray;
/** An untyped op function whose visible outputs depend on its params. */
export type OpFunctionMulti = (...args: (NDArray | OpCallParams | undefined)[]) => NDArray | NDArray[];

/** What every `nd.<op>` call accepts next to the op's params (MXNet's `out=`, `ctx=`). */
export interface OpInvokeOptions {
  /** Write the outputs into these arrays instead of new ones (MXNet `out=`). */
  readonly out?: NDArray | readonly NDArray[];
  /** Device of the outputs of an op without inputs (creation, random): a Context or `'gpu(0)'`. */
  readonly ctx?: Context | string;
  /** `'add'` adds the result to `out` instead of overwriting it. */
  readonly req?: 'write' | 'add';
}

/** Untyped params of an op call plus the invoke options. */
export type OpCallParams = OpParams & OpInvokeOptions;

/** Tuple of `N` arrays of dtype `D` (up to 32; an array type beyond). */
type NDArrayTuple<N extends number, D extends DTypeName, T extends NDArray<D>[] = []> = T['length'] extends N
  ? T
  : T['length'] extends 32
    ? NDArray<D>[]
    : NDArrayTuple<N, D, [...T, NDArray<D>]>;

/**
 * What an op with `N` visible outputs returns: one NDArray for 1, a tuple of `N` otherwise, and
 * `NDArray | NDArray[]` when `N` is not a literal (`nd.split(x, { num_outputs: 3 })` is a triple).
 */
export type OpOutputs<N extends number, D extends DTypeName = DTypeName> = number extends N
  ? NDArray<D> | NDArray<D>[]
  : N extends 1
    ? NDArray<D>
    : NDArrayTuple<N, D>;

export interface CreateOptions<D extends DTypeName = DTypeName> {
  /** Element type; default float32 (for typed-array input of `nd.array`: the typed array's). */
  readonly dtype?: D;
  readonly ctx?: Context;
}

/** The dtype `nd.array` gives a typed array (float32 for Float32Array...). */
export type HostDType<T> = T extends Float32Array
  ? 'float32'
  : T extends Float64Array
    ? 'float64'
    : T extends Int32Array
      ? 'int32'
      : T extends Int8Array
        ? 'int8'
        : T extends Uint8Array
          ? 'uint8'
          : T extends Int16Array
            ? 'int16'
            : T extends Uint16Array
              ? 'uint16'
              : T extends Uint32Array
                ? 'uint32'
                : T extends BigInt64Array
                  ? 'int64'
                  : T extends BigUint64Array
                    ? 'uint64'
                    : DTypeName;

type Operand = NDArray | number;

export interface NdBase {
  /**
   * An array from a typed array (its dtype unless `dtype` says otherwise; `shape` defaults to 1-D).
   */
  array<T extends StorageArray, D extends DTypeName = HostDType<T>>(
    values: T,
    options?: CreateOptions<D> & { readonly shape?: Shape },
  ): NDArray<D>;
  /** An array from nested JS arrays or a scalar (float32 unless `dtype` says otherwise). */
  array<D extends DTypeName = 'float32'>(
    values: NestedArray,
    options?: CreateOptions<D> & { readonly shape?: Shape },
  ): NDArray<D>;
  empty<D extends DTypeName = 'float32'>(shape: Shape, options?: CreateOptions<D>): NDArray<D>;
  zeros<D extends DTypeName = 'float32'>(shape: Shape, options?: CreateOptions<D>): NDArray<D>;
  ones<D extends DTypeName = 'float32'>(shape: Shape, options?: CreateOptions<D>): NDArray<D>;
  full<D extends DTypeName = 'float32'>(shape: Shape, value: number, options?: CreateOptions<D>): NDArray<D>;
  arange<D extends DTypeName = 'float32'>(
    start: number,
    stop?: number,
    step?: number,
    options?: CreateOptions<D>,
  ): NDArray<D>;
  zerosLike<D extends DTypeName>(a: NDArray<D>): NDArray<D>;
  onesLike<D extends DTypeName>(a: NDArray<D>): NDArray<D>;
  add(a: Operand, b: Operand): NDArray;
  subtract(a: Operand, b: Operand): NDArray;
  multiply(a: Operand, b: Operand): NDArray;
  divide(a: Operand, b: Operand): NDArray;
  modulo(a: Operand, b: Operand): NDArray;
  power(a: Operand, b: Operand): NDArray;
  maximum(a: Operand, b: Operand): NDArray;
  minimum(a: Operand, b: Operand): NDArray;
  /** Run any registered op by name (same as `nd[name](...)`). */
  invoke(op: string, inputs: readonly NDArray[], params?: OpParams, options?: InvokeOptions): NDArray[];
  waitall(): Promise<void>;
  scope<R>(body: () => R | Promise<R>): Promise<R>;
  scopeSync<R>(body: () => R): R;
  keep<T extends NDArray>(a: T): T;
  memory(): MemoryStats;
  leakCheck(body: () => unknown | Promise<unknown>): Promise<void>;
  /** Save arrays to a file (Node): MXNet list format, or `.npy`/`.npz` by extension or `format`. */
  save(
    path: string,
    data: NDArray | readonly NDArray[] | Readonly<Record<string, NDArray>>,
    options?: SaveOptions,
  ): Promise<void>;
  /** Load arrays from a file (Node), detecting the format from its content. */
  load(path: string, options?: LoadOptions): Promise<LoadedArrays>;
  /** Serialise arrays to bytes (MXNet list format by default). */
  saveBytes(
    data: NDArray | readonly NDArray[] | Readonly<Record<string, NDArray>>,
    options?: SaveOptions,
  ): Promise<Uint8Array>;
  /** Arrays from bytes in any supported format. */
  loadBytes(bytes: Uint8Array, options?: LoadOptions): LoadedArrays;
  /** The runtime this namespace belongs to. */
  readonly runtime: Runtime;
  /** Sparse array creation (MXNet `mx.nd.sparse`): `csrMatrix`, `rowSparseArray`, `zeros`. */
  readonly sparse: SparseNd;
  /** `x` in storage type `stype` (MXNet `cast_storage`; same as `x.tostype(stype)`). */
  castStorage<D extends DTypeName>(x: NDArray<D>, stype: 'csr'): CSRNDArray<D>;
  castStorage<D extends DTypeName>(x: NDArray<D>, stype: 'row_sparse'): RowSparseNDArray<D>;
  castStorage<D extends DTypeName>(x: NDArray<D>, stype: 'default'): NDArray<D>;
}

/**
 * The namespace: typed helpers, a typed function per core operator (`CoreOps`, generated), and any
 * other registered operator by name (`nd['my_op']`, possibly undefined).
 */
export type Nd = NdBase & CoreOps & { readonly [op: string]: OpFunctionMulti | undefined };

const HOST_DTYPE = new Map<unknown, DTypeName>([
  [Float32Array, 'float32'],
  [Float64Array, 'float64'],
  [Int32Array, 'int32'],
  [Int8Array, 'int8'],
  [Uint8Array, 'uint8'],
  [Int16Array, 'int16'],
  [Uint16Array, 'uint16'],
  [Uint32Array, 'uint32'],
  [BigInt64Array, 'int64'],
  [BigUint64Array, 'uint64'],
]);

function isParams(x: unknown): x is OpCallParams {
  return x !== null && typeof x === 'object' && !(x instanceof NDArray) && !Array.isArray(x);
}

export function createNd(rt: Runtime): Nd {
  const opFunctions = new Map<string, OpFunctionMulti>();

  const call = (name: string, args: readonly (NDArray | OpCallParams | undefined)[]): NDArray | NDArray[] => {
    const op = rt.registry.get(name);
    const inputs: NDArray[] = [];
    let params: OpCallParams | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a instanceof NDArray) inputs.push(a);
      else if (i === args.length - 1 && (a === undefined || isParams(a))) params = a;
      else
        throw new MXNetError(`argument ${i} is neither an NDArray nor a trailing params object`, {
          op: name,
        });
    }
    let { out, ctx, req, ...rest } = params ?? {};
    const key = op.def.keyVarNumArgs;
    if (key !== undefined && rest[key] === undefined) rest = { ...rest, [key]: inputs.length };
    const outs = rt.invoke(op, inputs, rest, {
      out,
      req,
      ctx: typeof ctx === 'string' ? rt.contextFromParam(ctx, name) : ctx,
    });
    return outs.length === 1 ? (outs[0] as NDArray) : outs;
  };

  const create = <D extends DTypeName>(opName: string, params: OpParams, options?: CreateOptions<D>) =>
    rt.invoke(
      opName,
      [],
      { ...params, dtype: options?.dtype ?? 'float32' },
      { ctx: options?.ctx },
    )[0] as NDArray<D>;

  const binary =
    (arrayOp: string, scalarOp: string, rScalarOp: string) =>
    (a: Operand, b: Operand): NDArray => {
      if (a instanceof NDArray && b instanceof NDArray) return rt.invoke(arrayOp, [a, b])[0] as NDArray;
      if (a instanceof NDArray) return rt.invoke(scalarOp, [a], { scalar: b })[0] as NDArray;
      if (b instanceof NDArray) return rt.invoke(rScalarOp, [b], { scalar: a })[0] as NDArray;
      throw new MXNetError('at least one operand must be an NDArray', { op: arrayOp });
    };

  const base: NdBase = {
    runtime: rt,
    // One implementation for both typed overloads (the dtype is only known at run time here).
    array: ((
      values: NestedArray | StorageArray,
      options: CreateOptions & { readonly shape?: Shape } = {},
    ): NDArray => {
      const ctx = options.ctx ?? rt.defaultContext;
      let shape: Shape;
      let dtype: DTypeName;
      let data: StorageArray;
      if (ArrayBuffer.isView(values)) {
        const hostType = HOST_DTYPE.get(values.constructor);
        if (hostType === undefined) throw new MXNetError('unsupported typed array', { op: 'nd.array' });
        dtype = options.dtype ?? hostType;
        shape = options.shape ?? [values.length];
        if (shapeSize(shape) !== values.length) {
          throw new MXNetError(`shape (${shape}) needs ${shapeSize(shape)} values, got ${values.length}`, {
            op: 'nd.array',
          });
        }
        // Same storage class: copy as is (this also carries float16/bfloat16 bits and bool bytes).
        data =
          values.constructor === DType[dtype].storage
            ? (values as StorageArray).slice()
            : flattenNested(Array.from(values as ArrayLike<number>), dtype, values.length);
      } else {
        shape = nestedShape(values as NestedArray);
        dtype = options.dtype ?? 'float32';
        if (options.shape && shapeSize(options.shape) === shapeSize(shape)) shape = options.shape;
        data = flattenNested(values as NestedArray, dtype, shapeSize(shape));
      }
      const a = rt.empty(shape, dtype, ctx);
      rt.write(a, data);
      return a;
    }) as NdBase['array'],
    empty: <D extends DTypeName>(shape: Shape, options?: CreateOptions<D>) =>
      rt.empty(shape, options?.dtype ?? 'float32', options?.ctx ?? rt.defaultContext) as NDArray<D>,
    zeros: (shape, options) => create('_zeros', { shape }, options),
    ones: (shape, options) => create('_ones', { shape }, options),
    full: (shape, value, options) => create('_full', { shape, value }, options),
    arange: (start, stop, step = 1, options) =>
      create(
        '_arange',
        stop === undefined ? { start: 0, stop: start, step } : { start, stop, step },
        options,
      ),
    zerosLike: <D extends DTypeName>(a: NDArray<D>) => rt.invoke('zeros_like', [a])[0] as NDArray<D>,
    onesLike: <D extends DTypeName>(a: NDArray<D>) => rt.invoke('ones_like', [a])[0] as NDArray<D>,
    add: binary('broadcast_add', '_plus_scalar', '_plus_scalar'),
    subtract: binary('broadcast_sub', '_minus_scalar', '_rminus_scalar'),
    multiply: binary('broadcast_mul', '_mul_scalar', '_mul_scalar'),
    divide: binary('broadcast_div', '_div_scalar', '_rdiv_scalar'),
    modulo: binary('broadcast_mod', '_mod_scalar', '_rmod_scalar'),
    power: binary('broadcast_power', '_power_scalar', '_rpower_scalar'),
    maximum: binary('broadcast_maximum', '_maximum_scalar', '_maximum_scalar'),
    minimum: binary('broadcast_minimum', '_minimum_scalar', '_minimum_scalar'),
    invoke: (op, inputs, params, options) => rt.invoke(op, inputs, params, options),
    waitall: () => rt.waitall(),
    scope: (body) => rt.scope(body),
    scopeSync: (body) => rt.scopeSync(body),
    keep: (a) => rt.keep(a),
    memory: () => rt.memory(),
    leakCheck: (body) => rt.leakCheck(body),
    save: (path, data, options) => saveFile(path, data, options),
    load: (path, options) => loadFile(rt, path, options),
    saveBytes: (data, options) => saveBytes(data, options),
    loadBytes: (bytes, options) => loadBytes(rt, bytes, options),
    sparse: createSparseNd(rt),
    castStorage: ((x: NDArray, stype: string) => x.tostype(stype as 'default')) as NdBase['castStorage'],
  };

  return new Proxy(base as Nd, {
    get(target, prop, receiver) {
      if (typeof prop !== 'string' || prop in target) return Reflect.get(target, prop, receiver);
      if (!rt.registry.has(prop)) return undefined;
      let f = opFunctions.get(prop);
      if (f === undefined) {
        f = (...args) => call(prop, args);
        opFunctions.set(prop, f);
      }
      return f;
    },
    has(target, prop) {
      return prop in target || (typeof prop === 'string' && rt.registry.has(prop));
    },
  });
}
