/**
 * The stores' row_sparse data movement as engine operations: sum (the reduction of row_sparse
 * pushes), retain (row_sparse_pull's rows) and assign (copies and dense ↔ row_sparse conversions,
 * across devices). Each is one op that reads its inputs' blocks on the host, computes with
 * rsp-host.ts and writes its outputs — allocating a row_sparse output's blocks while it runs,
 * as MXNet's `CheckAndAlloc` does, since the number of rows is known only then.
 *
 * Why engine ops pushed here rather than registry operators: a row_sparse value moves between
 * devices (a push from cpu(1) summed on cpu(0), a pull into an output on cpu(2)), and an operator
 * runs on one device; @mx/ndarray has no cross-device copy of sparse arrays yet. So, like the
 * runtime's own `copyTo` and MXNet's KVStore (which pushes its engine functions directly), these
 * ops name the arrays' engine variables themselves and read and write their blocks through the
 * arrays' backends (the internal accessors `chunkVar`, `chunk.backend`, `store`, `blob()`). Blocks
 * are described when the op runs, after every earlier write.
 *
 * Host reads are synchronous, so row_sparse values must live where the backend can block
 * (cpu-wasm): `checkHostReadable` refuses others before anything is pushed, as MXNet requires the
 * row ids and the stored value of row_sparse_pull to be on the CPU.
 */

import { DType, type DTypeInfo, MXNetError, type StorageArray, shapeSize } from '@mx/base';
import { FnProperty } from '@mx/engine';
import { type BaseSparseNDArray, isSparse, type NDArray, type Runtime } from '@mx/ndarray';
import { denseToRows, type HostRsp, retainRows, rowsToDense, sumRows } from './rsp-host.js';

/** A value read on the host: a dense table, or the rows of a row_sparse array. */
export type HostValue = { readonly data: StorageArray; readonly rows?: Float64Array };

/** What a host op touches: arrays it reads, arrays it writes, vars it only orders after. */
export interface HostOpArrays {
  readonly reads: readonly NDArray[];
  readonly writes: readonly NDArray[];
  /** Arrays the op holds for writing without writing them (ordering tokens). */
  readonly holds?: readonly NDArray[];
}

/** Rows and row length of an array of `shape` (a row_sparse array's rows are its first axis). */
export function rowGeometry(shape: readonly number[]): { numRows: number; unit: number } {
  return { numRows: shape[0] ?? 1, unit: shapeSize(shape.slice(1)) };
}

/** An MXNetError unless `a` lives on a backend that reads synchronously (where these ops work). */
export function checkHostReadable(op: string, a: NDArray, what: string): void {
  if (!a.chunk.backend.capabilities.syncRead) {
    throw new MXNetError(
      `${what} (${a.describe()}) is on a device the store cannot read row_sparse data from`,
      {
        op,
        shapes: [a.shape],
        dtypes: [a.dtype],
        device: a.ctx.toString(),
        hint: 'row_sparse values, outputs and row ids of a store live on the CPU (cpu-wasm): copy them there first',
      },
    );
  }
}

/** Reads an array's current contents inside an op (dense table or stored rows). */
function reader(a: NDArray): () => HostValue {
  const backend = a.chunk.backend;
  if (isSparse(a)) {
    const store = (a as BaseSparseNDArray).store;
    return () => {
      const b = store.blob();
      const idx = backend.readSync(b.aux[0] as never) as ArrayLike<number | bigint>;
      return { data: backend.readSync(b.data), rows: Float64Array.from(idx as ArrayLike<number>, Number) };
    };
  }
  const blob = a.blob();
  return () => ({ data: backend.readSync(blob) });
}

/** Writes a value into an array inside an op (a row_sparse array's blocks are reallocated). */
function writer(a: NDArray): (v: HostValue) => void {
  const backend = a.chunk.backend;
  if (isSparse(a)) {
    const store = (a as BaseSparseNDArray).store;
    return (v) => {
      const rows = v.rows as Float64Array;
      const k = rows.length;
      store.alloc([k, ...a.shape.slice(1)], [[k]]);
      const b = store.blob();
      if (b.data.size > 0) backend.write(b.data, v.data);
      if (k > 0) {
        const aux =
          store.auxTypes[0] === 'int32'
            ? Int32Array.from(rows)
            : BigInt64Array.from(rows as unknown as ArrayLike<number>, (r) => BigInt(r));
        backend.write(b.aux[0] as never, aux);
      }
    };
  }
  const blob = a.blob();
  return (v) => backend.write(blob, v.data);
}

/** The engine ops of one runtime's stores. */
export class RowSparseOps {
  readonly #rt: Runtime;

  constructor(runtime: Runtime) {
    this.#rt = runtime;
  }

  /** `dst = srcs[0] + … + srcs[n-1]` (row_sparse inputs and output; any devices). */
  sum(srcs: readonly NDArray[], dst: NDArray): void {
    const { unit } = rowGeometry(dst.shape);
    const dtype = DType[dst.dtype];
    this.#run('KVStoreReduce', srcs, [dst], (ins) => [sumRows(ins as HostRsp[], unit, dtype)]);
  }

  /** `dst` = the rows `want` (sorted, unique, in range) of row_sparse `src` (MXNet sparse_retain). */
  retain(src: NDArray, want: Float64Array, dst: NDArray): void {
    const { numRows, unit } = rowGeometry(src.shape);
    const dtype = DType[dst.dtype];
    this.#run('KVStoreSparseRetain', [src], [dst], ([v]) => [
      retainRows(v as HostRsp, want, unit, numRows, dtype),
    ]);
  }

  /**
   * `dst` takes the value of `src` (same shape and dtype): a copy between arrays of one storage
   * type, zeros where no row is stored (row_sparse → dense), or the nonzero rows (dense →
   * row_sparse).
   */
  assign(src: NDArray, dst: NDArray): void {
    const { numRows, unit } = rowGeometry(src.shape);
    const dtype: DTypeInfo = DType[dst.dtype];
    const toSparse = isSparse(dst);
    this.#run('KVStoreCopy', [src], [dst], ([v]) => {
      const value = v as HostValue;
      if (toSparse === (value.rows !== undefined)) return [value];
      return [
        value.rows !== undefined
          ? { data: rowsToDense(value as HostRsp, numRows, unit, dtype) }
          : denseToRows(value.data, numRows, unit, dtype),
      ];
    });
  }

  /**
   * Push an asynchronous (I/O-bound) op: `body` gets host copies of `reads` and resolves with the
   * values of `writes`; the op completes when they are written (it fails with the body's error).
   */
  io(name: string, arrays: HostOpArrays, body: (ins: HostValue[]) => Promise<readonly HostValue[]>): void {
    const { read, write, constVars, mutate, ctx } = this.#plan(arrays);
    this.#rt.engine.pushAsync(
      (_rc, done) => {
        Promise.resolve()
          .then(() => body(read.map((r) => r())))
          .then((outs) => {
            for (const [i, v] of outs.entries()) write[i]?.(v);
            done();
          })
          .catch((e: unknown) => done(e));
      },
      ctx,
      constVars,
      mutate,
      { name, prop: FnProperty.async },
    );
  }

  /** Push one op reading `reads` and writing `writes` with the host function `body`. */
  #run(
    name: string,
    reads: readonly NDArray[],
    writes: readonly NDArray[],
    body: (ins: HostValue[]) => HostValue[],
  ): void {
    const { read, write, constVars, mutate, ctx } = this.#plan({ reads, writes });
    this.#rt.engine.pushSync(
      () => {
        // Every input is read (host copies) before any output's blocks are reallocated.
        const ins = read.map((r) => r());
        const outs = body(ins);
        for (const [i, v] of outs.entries()) write[i]?.(v);
      },
      ctx,
      constVars,
      mutate,
      { name },
    );
  }

  #plan({ reads, writes, holds = [] }: HostOpArrays) {
    const mutate = [...new Set([...writes, ...holds].map((w) => w.chunkVar))];
    const written = new Set(mutate);
    return {
      read: reads.map(reader),
      write: writes.map(writer),
      mutate,
      constVars: [...new Set(reads.map((r) => r.chunkVar))].filter((v) => !written.has(v)),
      ctx: ((writes[0] ?? holds[0]) as NDArray).ctx,
    };
  }
}
