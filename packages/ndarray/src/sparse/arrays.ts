/**
 * The sparse array classes (MXNet's `python/mxnet/ndarray/sparse.py`): `BaseSparseNDArray extends
 * NDArray`, so every op and method accepts one and goes through the storage-type dispatch in
 * invoke (sparse/invoke-sparse.ts), as MXNet's Python classes do. The chunk has no dense block
 * (its SparseStore holds the data and aux blocks), so everything that needs a dense blob refuses
 * with an MXNetError naming `asDense()`: `blob()`, and the views (`reshape`, `slice`, `at`), which
 * MXNet does not support on sparse arrays either.
 *
 * Reads: `data()`/`dataSync()` (and so `array()`, `item()`) give the DENSE values, through a
 * temporary `asDense()`, so generic code keeps working; the parts themselves (MXNet's `.data`,
 * `.indices`, `.indptr`) are read with `parts()`/`partsSync()`, which do not clash with the dense
 * host read `data()`.
 */
import { type Context, type DTypeName, MXNetError, type Shape, type StorageArray } from '@mx/base';
import type { SparseBlob, SparseStorageType, StorageType, TBlob } from '@mx/ops';
import type { Chunk } from '../chunk.js';
import { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { sparseFormatError } from './format-check.js';
import { SparseStore } from './store.js';

/** Host copies of a sparse array's parts, read after pending writes. */
export interface SparseParts {
  readonly stype: SparseStorageType;
  readonly shape: readonly number[];
  /** `[nnz]` for CSR, `[k, ...shape.slice(1)]` for row_sparse. */
  readonly storageShape: readonly number[];
  /** The stored values (MXNet `.data`), row-major in the storage shape. */
  readonly data: StorageArray;
  /** CSR: column index of each value; row_sparse: the stored rows (MXNet `.indices`). */
  readonly indices: StorageArray;
  /** CSR only: where each row's values start, rows + 1 entries (MXNet `.indptr`). */
  readonly indptr?: StorageArray;
}

/** The array class of storage type `S` (what `tostype(S)` returns). */
export type WithStype<S extends StorageType, D extends DTypeName> = S extends 'csr'
  ? CSRNDArray<D>
  : S extends 'row_sparse'
    ? RowSparseNDArray<D>
    : NDArray<D>;

/** A sparse array (CSR or row_sparse): MXNet's `BaseSparseNDArray`. */
export abstract class BaseSparseNDArray<D extends DTypeName = DTypeName> extends NDArray<D> {
  /** @internal Use `nd.sparse.*`, `tostype` or `nd.castStorage` to create sparse arrays. */
  constructor(runtime: Runtime, chunk: Chunk, shape: Shape, dtype: D) {
    super(runtime, chunk, shape, dtype, 0);
  }

  abstract override get stype(): SparseStorageType;

  /** @internal The blocks (touched only inside ops holding the chunk's var, or at creation). */
  get store(): SparseStore {
    return this.chunk.sparse as SparseStore;
  }

  /** MXNet's class name (`CSRNDArray`, `RowSparseNDArray`), used in messages. */
  protected abstract get className(): string;

  /** @internal No dense blob exists: an MXNetError saying to use `asDense()`. */
  override blob(): TBlob {
    throw this.#denseOnly('blob', 'a dense blob');
  }

  /** The dense equivalent (MXNet `tostype('default')` / `todense`): a new dense array. */
  asDense(): NDArray<D> {
    return this.tostype('default');
  }

  /** Alias of `asDense()` (MXNet `todense`). */
  todense(): NDArray<D> {
    return this.asDense();
  }

  /** The dense values (through a temporary `asDense()`), after pending writes. */
  override async data(): Promise<StorageArray> {
    this.checkLive('data');
    const dense = this.asDense();
    try {
      return await dense.data();
    } finally {
      dense.dispose();
    }
  }

  /** Synchronous `data()` (backends that can block). */
  override dataSync(): StorageArray {
    this.checkLive('dataSync');
    const dense = this.asDense();
    try {
      return dense.dataSync();
    } finally {
      dense.dispose();
    }
  }

  /** Host copies of the parts (MXNet `.data`, `.indices`, `.indptr`), after pending writes. */
  async parts(): Promise<SparseParts> {
    this.checkLive('parts');
    return readParts(this);
  }

  /** Synchronous `parts()`, where the backend can block (cpu-wasm in Node and workers). */
  partsSync(): SparseParts {
    this.checkLive('partsSync');
    const backend = this.chunk.backend;
    if (!backend.capabilities.syncRead) {
      throw new MXNetError(`${backend.name} cannot read synchronously`, {
        op: 'partsSync',
        device: this.ctx.toString(),
        hint: 'use await x.parts()',
      });
    }
    this.runtime.engine.waitForVarSync(this.chunkVar, { sticky: true });
    return partsOf(this.store.blob(), (b) => backend.readSync(b));
  }

  /**
   * Check the format (MXNet `check_format`): the block shapes, and with `full` (default) the index
   * values — CSR: indptr starts at 0, never decreases, ends at nnz; column indices in range and
   * strictly increasing within each row; row_sparse: indices in range and strictly increasing. A
   * broken rule is an MXNetError naming it.
   */
  async checkFormat(full = true): Promise<void> {
    this.#throwFormat(await this.parts(), full);
  }

  /** Synchronous `checkFormat`. */
  checkFormatSync(full = true): void {
    this.#throwFormat(this.partsSync(), full);
  }

  /** Views of sparse arrays are not supported (as in MXNet). */
  override reshape(_shape: readonly number[], _options?: { reverse?: boolean }): NDArray<D> {
    throw this.#denseOnly('reshape', 'a reshaped view');
  }

  /** Views of sparse arrays are not supported (as in MXNet). */
  override slice(_begin: number, _end?: number): NDArray<D> {
    throw this.#denseOnly('slice', 'a sliced view');
  }

  /** Views of sparse arrays are not supported (as in MXNet). */
  override at(..._indices: number[]): NDArray<D> {
    throw this.#denseOnly('at', 'an indexed view');
  }

  /** A copy (same storage type) on this device, or into `target` (any storage type, same shape). */
  override copyTo(target: Context | NDArray): NDArray {
    this.checkLive('copyTo');
    if (target instanceof NDArray) {
      return this.op1('cast_storage', { stype: target.stype }, [], { out: target });
    }
    if (target !== this.ctx) {
      throw new MXNetError(`copying a ${this.stype} array to another device is not supported yet`, {
        op: 'copyTo',
        device: this.ctx.toString(),
        hint: `x.asDense().copyTo(${target}) then tostype('${this.stype}') there`,
      });
    }
    return this.tostype(this.stype);
  }

  /** A new array sharing these blocks, cut off from the autograd graph (MXNet `detach`). */
  override detach(): NDArray<D> {
    this.checkLive('detach');
    this.chunk.retain();
    return makeSparse(this.runtime, this.chunk, this.stype, this.shape, this.dtype) as unknown as NDArray<D>;
  }

  /** `CSRNDArray (3,4) float32 @cpu(0)`: never reads or waits. */
  override describe(): string {
    return super.describe().replace(/^NDArray/, this.className);
  }

  /** MXNet's repr of a sparse array: `<CSRNDArray 3x4 @cpu(0)>` (no values; `await x.print()` shows them). */
  override toString(): string {
    const state = this.isDisposed ? ' (disposed)' : '';
    return `\n<${this.className} ${this.shape.join('x')} @${this.ctx}${state}>`;
  }

  #throwFormat(p: SparseParts, full: boolean): void {
    const why = sparseFormatError({ ...p, dataLength: p.data.length }, full);
    if (why !== undefined) {
      throw new MXNetError(`${this.describe()} is malformed: ${why}`, {
        op: 'checkFormat',
        shapes: [this.shape, p.storageShape],
        device: this.ctx.toString(),
      });
    }
  }

  #denseOnly(op: string, what: string): MXNetError {
    return new MXNetError(`${this.describe()} has no dense storage for ${what}`, {
      op,
      shapes: [this.shape],
      dtypes: [this.dtype],
      device: this.ctx.toString(),
      hint: 'use x.asDense() (a dense copy) first; views of sparse arrays are not supported, as in MXNet',
    });
  }
}

/** A 2-D compressed sparse row array (MXNet `CSRNDArray`). */
export class CSRNDArray<D extends DTypeName = DTypeName> extends BaseSparseNDArray<D> {
  override get stype(): 'csr' {
    return 'csr';
  }
  protected get className(): string {
    return 'CSRNDArray';
  }
}

/** An array storing only some rows (MXNet `RowSparseNDArray`). */
export class RowSparseNDArray<D extends DTypeName = DTypeName> extends BaseSparseNDArray<D> {
  override get stype(): 'row_sparse' {
    return 'row_sparse';
  }
  protected get className(): string {
    return 'RowSparseNDArray';
  }
}

/** True when `a` is a sparse array. */
export function isSparse(a: NDArray): a is BaseSparseNDArray {
  return a instanceof BaseSparseNDArray;
}

/** @internal The array class over a sparse chunk (which already holds one reference for it). */
export function makeSparse(
  rt: Runtime,
  chunk: Chunk,
  stype: SparseStorageType,
  shape: Shape,
  dtype: DTypeName,
): BaseSparseNDArray {
  return stype === 'csr'
    ? new CSRNDArray(rt, chunk, shape, dtype)
    : new RowSparseNDArray(rt, chunk, shape, dtype);
}

/**
 * @internal A new sparse array with no blocks yet (an op output: the op allocates them), or
 * blocks allocated by the caller through `array.store.alloc` (creation from host data).
 */
export function emptySparse(
  rt: Runtime,
  stype: SparseStorageType,
  shape: Shape,
  dtype: DTypeName,
  ctx: Context,
  auxTypes: readonly DTypeName[],
  site: string,
): BaseSparseNDArray {
  const backend = rt.backendFor(ctx, site);
  for (const t of [dtype, ...auxTypes]) {
    if (!backend.capabilities.storageDTypes.includes(t)) {
      throw new MXNetError(`${backend.name} cannot store ${t}`, {
        op: site,
        device: ctx.toString(),
        dtypes: [t],
      });
    }
  }
  const chunk = rt.sparseChunk(ctx, site);
  chunk.sparse = new SparseStore(rt, stype, shape, dtype, auxTypes, ctx, site);
  return makeSparse(rt, chunk, stype, shape, dtype);
}

/**
 * @internal A dense output nobody reads (req null, autograd's `skip`): an array on a chunk with no
 * storage, since such an output can be huge (`dot(csr, w)`'s unused csr gradient is batch × 1M).
 * Kernels never touch an output whose req is null.
 */
export function unallocatedDense(
  rt: Runtime,
  shape: Shape,
  dtype: DTypeName,
  ctx: Context,
  site: string,
): NDArray {
  return new NDArray(rt, rt.sparseChunk(ctx, site), shape, dtype, 0);
}

/** Default aux dtypes: int64 (MXNet's `kInt64`), one per aux block. */
export function defaultAuxTypes(stype: SparseStorageType): DTypeName[] {
  return stype === 'csr' ? ['int64', 'int64'] : ['int64'];
}

/**
 * The aux dtypes a device stores: int64 indices become int32 on a backend that cannot store
 * int64 (WebGPU has no 64-bit integers; MXNet accepts int32 aux blocks everywhere).
 */
export function storableAuxTypes(
  rt: Runtime,
  ctx: Context,
  auxTypes: readonly DTypeName[],
  site: string,
): DTypeName[] {
  const can = rt.backendFor(ctx, site).capabilities.storageDTypes;
  return auxTypes.map((t) => (t === 'int64' && !can.includes('int64') ? 'int32' : t));
}

/** Storage types of arrays, for messages and dispatch. */
export function stypesOf(arrays: readonly NDArray[]): StorageType[] {
  return arrays.map((a) => a.stype);
}

function partsOf(b: SparseBlob, read: (blob: TBlob) => StorageArray): SparseParts {
  const data = read(b.data);
  const base = { stype: b.stype, shape: b.shape, storageShape: b.storageShape, data };
  if (b.stype === 'csr')
    return { ...base, indptr: read(b.aux[0] as TBlob), indices: read(b.aux[1] as TBlob) };
  return { ...base, indices: read(b.aux[0] as TBlob) };
}

/** The parts, read by an op ordered after pending writes (`Runtime.readAfterWrites`). */
function readParts(a: BaseSparseNDArray): Promise<SparseParts> {
  const backend = a.chunk.backend;
  const store = a.store;
  return a.runtime.readAfterWrites(a, () => {
    const blob = store.blob();
    if (backend.capabilities.syncRead) return partsOf(blob, (b) => backend.readSync(b));
    return Promise.all([blob.data, ...blob.aux].map((b) => backend.read(b))).then((arrs) => {
      let i = 0;
      return partsOf(blob, () => arrs[i++] as StorageArray);
    });
  });
}
