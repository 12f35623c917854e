/**
 * SparseStore: the blocks of one sparse array (MXNet's `Chunk` with `aux_handles`), hung on an
 * ordinary `Chunk` whose dense `handle` is null. The chunk's engine var orders every access, so the
 * store is mutable: an op that writes a sparse output learns its nnz only while it runs and
 * (re)allocates the blocks then, through `output().alloc` (MXNet's `CheckAndAlloc`) — safe because
 * that op holds the var. Creation from host data allocates at the call (sizes are known).
 *
 * Blocks come from the runtime's pooled Storage and their bytes are reported to the runtime's
 * `memory()` as they are allocated and freed; the chunk's delete op frees them (runtime.ts), after
 * every op already pushed on the var, exactly like a dense chunk's block.
 */
import {
  type Context,
  DType,
  type DTypeName,
  MXNetError,
  type Shape,
  shapeSize,
  shapeToString,
} from '@mx/base';
import type { SparseBlob, SparseOutput, SparseStorageType, TBlob } from '@mx/ops';
import type { Storage, StorageHandle } from '@mx/storage';

interface Block {
  readonly handle: StorageHandle | null;
  readonly blob: TBlob;
}

/** Where a store takes its memory and reports its bytes (an internal object of the runtime's world). */
export interface StoreHost {
  readonly storage: Storage;
  /** Add (or with a negative delta, remove) bytes in the runtime's memory statistics. */
  countBytes(delta: number): void;
}

export class SparseStore {
  readonly stype: SparseStorageType;
  readonly shape: Shape;
  readonly dtype: DTypeName;
  readonly auxTypes: readonly DTypeName[];
  readonly ctx: Context;
  readonly #host: StoreHost;
  readonly #site: string;
  #data: Block | undefined;
  #aux: Block[] = [];
  #storageShape: Shape | undefined;
  #bytes = 0;

  constructor(
    host: StoreHost,
    stype: SparseStorageType,
    shape: Shape,
    dtype: DTypeName,
    auxTypes: readonly DTypeName[],
    ctx: Context,
    site: string,
  ) {
    this.#host = host;
    this.stype = stype;
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype;
    this.auxTypes = Object.freeze([...auxTypes]);
    this.ctx = ctx;
    this.#site = site;
  }

  /** True once the blocks exist (an op output is allocated only when its op runs). */
  get allocated(): boolean {
    return this.#data !== undefined;
  }

  /** Bytes of the current blocks. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The storage shape of the current blocks (`[nnz]` for CSR, `[k, ...rest]` for row_sparse). */
  get storageShape(): Shape {
    if (this.#storageShape === undefined) throw this.#unallocated();
    return this.#storageShape;
  }

  /**
   * (Re)allocate the blocks for `storageShape` and the aux shapes, after checking they fit this
   * stype and shape. The old blocks are freed: only the op holding the var may call this.
   */
  alloc(storageShape: Shape, auxShapes: readonly Shape[]): void {
    const why = this.#layoutError(storageShape, auxShapes);
    if (why !== undefined) {
      throw new MXNetError(
        `bad sparse block shapes for a ${this.stype} array of shape ${shapeToString(this.shape)}: ${why}`,
        { op: 'SparseOutput.alloc', shapes: [this.shape, storageShape, ...auxShapes], hint: 'a kernel bug' },
      );
    }
    this.free();
    this.#data = this.#block(storageShape, this.dtype);
    this.#aux = auxShapes.map((s, i) => this.#block(s, this.auxTypes[i] as DTypeName));
    this.#storageShape = Object.freeze([...storageShape]);
  }

  /** The current blocks as a kernel input. */
  blob(): SparseBlob {
    const data = this.#data;
    if (data === undefined) throw this.#unallocated();
    return {
      stype: this.stype,
      shape: this.shape,
      dtype: this.dtype,
      storageShape: this.#storageShape as Shape,
      data: data.blob,
      aux: this.#aux.map((b) => b.blob),
      auxTypes: this.auxTypes,
    };
  }

  /** This store as a kernel output: `alloc` then `data`/`aux`. */
  output(): SparseOutput {
    const store = this;
    return {
      stype: this.stype,
      shape: this.shape,
      dtype: this.dtype,
      auxTypes: this.auxTypes,
      alloc: (storageShape, auxShapes) => store.alloc(storageShape, auxShapes),
      get storageShape() {
        return store.storageShape;
      },
      get data() {
        return store.blob().data;
      },
      get aux() {
        return store.blob().aux;
      },
    };
  }

  /** Free every block (the chunk's delete op; a reallocation). */
  free(): void {
    const blocks = this.#data === undefined ? this.#aux : [this.#data, ...this.#aux];
    for (const b of blocks) if (b.handle !== null) this.#host.storage.free(b.handle);
    this.#data = undefined;
    this.#aux = [];
    this.#storageShape = undefined;
    if (this.#bytes !== 0) this.#host.countBytes(-this.#bytes);
    this.#bytes = 0;
  }

  #block(shape: Shape, dtype: DTypeName): Block {
    const size = shapeSize(shape);
    const bytes = size * DType[dtype].bytes;
    const handle = bytes === 0 ? null : this.#host.storage.alloc(bytes, this.ctx, { name: this.#site });
    if (bytes !== 0) {
      this.#bytes += bytes;
      this.#host.countBytes(bytes);
    }
    const blob: TBlob = Object.freeze({
      ptr: handle?.dptr ?? null,
      byteOffset: handle?.byteOffset ?? 0,
      shape: Object.freeze([...shape]),
      dtype,
      size,
    });
    return { handle, blob };
  }

  /** Why these block shapes do not fit (undefined when they do). */
  #layoutError(storageShape: Shape, auxShapes: readonly Shape[]): string | undefined {
    const [rows = 0, ...rest] = this.shape;
    const nAux = this.stype === 'csr' ? 2 : 1;
    if (auxShapes.length !== nAux) return `${nAux} aux block(s) expected, got ${auxShapes.length}`;
    if (auxShapes.some((s) => s.length !== 1)) return 'aux blocks are 1-D';
    if (this.stype === 'csr') {
      const nnz = storageShape[0] ?? -1;
      if (storageShape.length !== 1) return `the storage shape is (nnz,), got ${shapeToString(storageShape)}`;
      if (auxShapes[0]?.[0] !== rows + 1) return `indptr has rows + 1 = ${rows + 1} entries`;
      if (auxShapes[1]?.[0] !== nnz) return `indices has nnz = ${nnz} entries`;
      if (nnz > rows * (rest[0] ?? 0)) return `nnz ${nnz} exceeds the array's size`;
      return undefined;
    }
    const k = storageShape[0] ?? -1;
    if (storageShape.length !== this.shape.length || storageShape.slice(1).some((d, i) => d !== rest[i]))
      return `the storage shape is (k, ${rest.join(', ')}), got ${shapeToString(storageShape)}`;
    if (auxShapes[0]?.[0] !== k) return `indices has k = ${k} entries`;
    if (k > rows) return `k = ${k} rows exceed the array's ${rows}`;
    return undefined;
  }

  #unallocated(): MXNetError {
    return new MXNetError(`the ${this.stype} array's blocks are not allocated yet`, {
      op: 'SparseStore',
      shapes: [this.shape],
      hint: 'read a sparse array only after the op writing it ran (inside an engine op holding its var)',
    });
  }
}
