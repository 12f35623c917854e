/**
 * The vocabulary between operator definitions, backends and the NDArray layer (MXNet's
 * `op_attr_types.h`): dense blobs, write requests, the op context and kernel signatures.
 *
 * A blob is a *contiguous* row-major window into one device allocation: `ptr` is the allocation's
 * device pointer (opaque: a byte offset into wasm memory, a GPUBuffer, a CUDA address) and
 * `byteOffset` where the window starts. MXNet's TBlob is dense in the same way; non-contiguous views
 * (transposes, strided slices) are produced by operators, never handed to kernels. That keeps every
 * kernel a loop over `size` elements and every backend's addressing one add.
 */
import type { Context, DTypeName, Shape } from '@mx/base';

/** MXNet's `OpReqType`: what a kernel does with an output. */
export const OpReq = Object.freeze({
  /** Do not touch the output. */
  null: 0,
  /** Overwrite the output (it does not alias an input). */
  write: 1,
  /** Overwrite the output, which may alias an input (in-place). */
  inplace: 2,
  /** Add the result into the output (gradient accumulation). */
  add: 3,
});
export type OpReqType = (typeof OpReq)[keyof typeof OpReq];

/** A dense, contiguous, row-major array window on a device (MXNet's TBlob). */
export interface TBlob<P = unknown> {
  /** The device allocation's pointer (backend-specific), or null for a zero-size array. */
  readonly ptr: P | null;
  /** Byte offset of the first element inside the allocation. */
  readonly byteOffset: number;
  readonly shape: Shape;
  readonly dtype: DTypeName;
  /** Number of elements (product of shape; 1 for a scalar). */
  readonly size: number;
}

/** Resources a kernel receives, in the order the op's `resourceRequest` listed them. */
export type RequestedResource = unknown;

/** Why and how an op runs (MXNet's `OpContext`). */
export interface OpContext {
  /** Training mode (Dropout, BatchNorm behave differently). */
  readonly isTrain: boolean;
  /** Gradients will be computed for this op's inputs. */
  readonly needGrad: boolean;
  /** Device the op runs on. */
  readonly ctx: Context;
  /** Resources requested by the op (`resourceRequest`), in order. */
  readonly requested: readonly RequestedResource[];
  /**
   * For kernels registered with `execType: 'async'`: call exactly once when the work is done
   * (MXNet's `async_on_complete`). Undefined for synchronous kernels.
   */
  readonly onComplete?: (error?: unknown) => void;
  /** Register a function that blocks until an async kernel finishes (see the engine's RunContext). */
  readonly setBlockingWait?: (wait: () => void) => void;
}

/** Parsed parameters of an op call (the `parsed` field of MXNet's NodeAttrs). */
export type Attrs = Readonly<Record<string, unknown>>;

/** A dense kernel (MXNet `FCompute<xpu>`). */
export type FCompute<A extends Attrs = Attrs, P = unknown> = (
  attrs: A,
  ctx: OpContext,
  inputs: readonly TBlob<P>[],
  req: readonly OpReqType[],
  outputs: readonly TBlob<P>[],
) => void;

/** The non-dense storage types (MXNet `kRowSparseStorage`, `kCSRStorage`). */
export type SparseStorageType = 'row_sparse' | 'csr';

/**
 * A sparse array as a kernel sees it (MXNet's NDArray with `storage_type() != kDefaultStorage`
 * inside `FComputeEx`): the logical `shape` and `dtype`, the data block of `storageShape` (`[nnz]`
 * for CSR, `[k, ...shape.slice(1)]` for row_sparse) and the aux blocks — CSR: `[indptr (rows+1),
 * indices (nnz)]`, row_sparse: `[indices (k)]` (MXNet's `csr::kIndPtr`, `csr::kIdx`,
 * `rowsparse::kIdx`), each int64 or int32 (`auxTypes`). Read only while the op holding the array's
 * variable runs: a later op may reallocate the blocks.
 */
export interface SparseBlob<P = unknown> {
  readonly stype: SparseStorageType;
  readonly shape: Shape;
  readonly dtype: DTypeName;
  readonly storageShape: Shape;
  readonly data: TBlob<P>;
  readonly aux: readonly TBlob<P>[];
  readonly auxTypes: readonly DTypeName[];
}

/**
 * A sparse output of a `computeEx` kernel (MXNet's `CheckAndAlloc`): its nnz is known only while
 * the kernel runs, so the kernel calls `alloc(storageShape, auxShapes)` once — which (re)allocates
 * the blocks in the array's pooled storage — and then writes `data` and `aux` (same meaning as in
 * `SparseBlob`). Reading `data`/`aux`/`storageShape` before `alloc` throws. Allocation may grow
 * device memory: take typed views of inputs *after* `alloc`.
 */
export interface SparseOutput<P = unknown> {
  readonly stype: SparseStorageType;
  readonly shape: Shape;
  readonly dtype: DTypeName;
  readonly auxTypes: readonly DTypeName[];
  alloc(storageShape: Shape, auxShapes: readonly Shape[]): void;
  readonly storageShape: Shape;
  readonly data: TBlob<P>;
  readonly aux: readonly TBlob<P>[];
}

/** True for a sparse kernel argument (`SparseBlob`/`SparseOutput`), false for a dense `TBlob`. */
export function isSparseBlob<P>(
  x: TBlob<P> | SparseBlob<P> | SparseOutput<P>,
): x is SparseBlob<P> | SparseOutput<P> {
  return 'stype' in x;
}

/**
 * A kernel over arrays of any storage type (MXNet `FComputeEx<xpu>`): each input is a dense `TBlob`
 * or a `SparseBlob`, each output a dense `TBlob` or a `SparseOutput` to allocate, as the op's
 * `inferStorageType` decided. Backends see no NDArray.
 */
export type FComputeEx<A extends Attrs = Attrs, P = unknown> = (
  attrs: A,
  ctx: OpContext,
  inputs: readonly (TBlob<P> | SparseBlob<P>)[],
  req: readonly OpReqType[],
  outputs: readonly (TBlob<P> | SparseOutput<P>)[],
) => void;

/**
 * An output of a kernel whose op has a data-dependent shape (`OpDef.dynamicShape`: boolean_mask,
 * nonzero): the kernel works out the shape from its inputs, calls `alloc(shape)` exactly once
 * (the `SparseOutput.alloc` contract) and writes the returned blob. Allocation may grow device
 * memory: take typed views of the inputs *after* `alloc`. Reading `blob` before `alloc` throws.
 */
export interface DynamicOutput<P = unknown> {
  readonly dtype: DTypeName;
  alloc(shape: Shape): TBlob<P>;
  readonly blob: TBlob<P>;
}

/**
 * A kernel of a dynamic-shape op (MXNet's `FComputeEx` that calls `NDArray::Init(shape)` on its
 * output): dense inputs, one `DynamicOutput` per output. It runs synchronously once its inputs are
 * ready, on the calling thread, so data-dependent errors reach the caller before anything is written.
 */
export type FComputeDynamic<A extends Attrs = Attrs, P = unknown> = (
  attrs: A,
  ctx: OpContext,
  inputs: readonly TBlob<P>[],
  req: readonly OpReqType[],
  outputs: readonly DynamicOutput<P>[],
) => void;

/** A backend's kernel for one op. */
export interface Kernel<A extends Attrs = Attrs, P = unknown> {
  readonly compute?: FCompute<A, P>;
  readonly computeEx?: FComputeEx<A, P>;
  /** The kernel of an op with `OpDef.dynamicShape` (its only entry point on that op). */
  readonly computeDynamic?: FComputeDynamic<A, P>;
  /**
   * Which storage-type signatures `computeEx` serves (inputs, then outputs, as inferred); default
   * all. The NDArray layer falls back to the dense `compute` on densified inputs otherwise.
   */
  readonly computeExStorage?: (
    attrs: A,
    inStypes: readonly ('default' | SparseStorageType)[],
    outStypes: readonly ('default' | SparseStorageType)[],
  ) => boolean;
  /** `sync` (default): done when compute returns. `async`: done when `ctx.onComplete` is called. */
  readonly execType?: 'sync' | 'async';
  /**
   * An `async` kernel whose wait is I/O (a network round trip), not computation: the engine runs it
   * with MXNet's `kAsync` property, so it holds no worker slot while in flight and any number of
   * them overlap (a distributed store's push and pull of many keys), as MXNet's own do.
   */
  readonly ioBound?: boolean;
  /** Dtypes this kernel computes in (checked before pushing); default: the backend's compute dtypes. */
  readonly dtypes?: readonly DTypeName[];
  /**
   * Per-slot dtype rule, checked before pushing when `dtypes` alone cannot say it (softmax: float
   * data and output, integer lengths): returns why these dtypes are refused, or undefined. A kernel
   * must not refuse at run time what this could have refused at the call.
   */
  readonly checkDTypes?: (
    attrs: A,
    inTypes: readonly DTypeName[],
    outTypes: readonly DTypeName[],
  ) => string | undefined;
}
