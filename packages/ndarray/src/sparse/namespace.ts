/**
 * The op functions of `nd.sparse` (MXNet's `mx.nd.sparse.<op>`, camelCased): MXNet registers a
 * `_sparse_<op>` alias for each storage-aware op and Python lists them under `mx.nd.sparse`
 * (`retain`, `dot`, `sum`, `mean`, `norm`, `slice`, `where`, `clip`, `elemwise_add`, ...), next to
 * the Python-level `add`/`subtract`/`multiply`/`divide`, which pick `elemwise_*` for equal shapes,
 * `broadcast_*` otherwise and the scalar ops for numbers. Each function is a thin, typed wrapper
 * over `Runtime.invoke` — the path every `nd.<op>` call takes, so storage dispatch, the dense
 * fallback, autograd recording and deferred compute behave exactly as for `nd.<op>`.
 *
 * `createSparseOps(rt)` builds them; `createSparseNd` (create.ts) spreads them into `nd.sparse`.
 * Not here, as in MXNet: `_square_sum` (MXNet's `mx.nd._internal`) and `getnnz`
 * (`mx.nd.contrib`), reachable as `nd._square_sum` and `nd._contrib_getnnz`.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { StorageType } from '@mx/ops';
import type { ClipParams, DotParams, MeanParams, NormParams, SliceParams, SumParams } from '../core-ops.js';
import type { OpInvokeOptions } from '../nd.js';
import { NDArray, type OpParams } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import type { CSRNDArray, RowSparseNDArray, WithStype } from './arrays.js';

/** An operand of `add`/`subtract`/`multiply`/`divide`: an array or a number. */
export type SparseOperand = NDArray | number;

/** `nd.sparse`'s op functions (MXNet `mx.nd.sparse.<op>`). */
export interface SparseOps {
  /**
   * The listed rows of a row_sparse array (MXNet `sparse.retain`): the result stores exactly those
   * rows (a row `data` does not store comes out as an explicit zero row). Indices: integers in
   * [0, rows) of any dtype, taken sorted and without repeats.
   */
  retain<D extends DTypeName>(
    data: RowSparseNDArray<D>,
    indices: NDArray,
    options?: OpInvokeOptions,
  ): RowSparseNDArray<D>;
  /** Matrix product with MXNet's sparse output storage rules (`csr·dense` → dense, `csrᵀ·dense` → row_sparse, ...). */
  dot(lhs: NDArray, rhs: NDArray, params?: DotParams & OpInvokeOptions): NDArray;
  /** `lhs + rhs`: `elemwise_add` for equal shapes, `broadcast_add` otherwise, `_plus_scalar` with a number. */
  add(lhs: SparseOperand, rhs: SparseOperand): NDArray;
  /** `lhs - rhs` (`elemwise_sub`, `broadcast_sub`, `_minus_scalar` / `_rminus_scalar`). */
  subtract(lhs: SparseOperand, rhs: SparseOperand): NDArray;
  /** `lhs * rhs` (`elemwise_mul`, `broadcast_mul`, `_mul_scalar`). */
  multiply(lhs: SparseOperand, rhs: SparseOperand): NDArray;
  /** `lhs / rhs` (`elemwise_div`, `broadcast_div`, `_div_scalar` / `_rdiv_scalar`). */
  divide(lhs: SparseOperand, rhs: SparseOperand): NDArray;
  /** `elemwise_add` with MXNet's storage rules (rsp + rsp → rsp, csr + csr → csr, ...). */
  elemwiseAdd(lhs: NDArray, rhs: NDArray, options?: OpInvokeOptions): NDArray;
  elemwiseSub(lhs: NDArray, rhs: NDArray, options?: OpInvokeOptions): NDArray;
  elemwiseMul(lhs: NDArray, rhs: NDArray, options?: OpInvokeOptions): NDArray;
  elemwiseDiv(lhs: NDArray, rhs: NDArray, options?: OpInvokeOptions): NDArray;
  /** Sum of the arrays (MXNet `add_n` / `ElementWiseSum`; row_sparse inputs give row_sparse). */
  addN(...arrays: NDArray[]): NDArray;
  /** Sum over axes; a CSR input over axis 0 or 1 runs a sparse kernel. The result is dense. */
  sum<D extends DTypeName>(data: NDArray<D>, params?: SumParams & OpInvokeOptions): NDArray<D>;
  /** Mean over axes; as `sum`. */
  mean<D extends DTypeName>(data: NDArray<D>, params?: MeanParams & OpInvokeOptions): NDArray<D>;
  /** The norm (default: L2 over all axes; sparse kernels for ord 2). The result is dense. */
  norm(data: NDArray, params?: NormParams & OpInvokeOptions): NDArray;
  /** A CSR slice is CSR when no step is given (MXNet's rule; a step gives a dense result). */
  slice<D extends DTypeName>(
    data: CSRNDArray<D>,
    params: Omit<SliceParams, 'step'> & { readonly step?: undefined } & OpInvokeOptions,
  ): CSRNDArray<D>;
  slice<D extends DTypeName>(data: NDArray<D>, params: SliceParams & OpInvokeOptions): NDArray<D>;
  /** `condition != 0 ? x : y`, dense; a CSR condition with dense x and y runs a sparse kernel. */
  where<D extends DTypeName>(
    condition: NDArray,
    x: NDArray<D>,
    y: NDArray<D>,
    options?: OpInvokeOptions,
  ): NDArray<D>;
  /** Clip into [a_min, a_max] (MXNet keeps a sparse input's storage type when 0 lies in the range). */
  clip<D extends DTypeName>(data: NDArray<D>, params: ClipParams & OpInvokeOptions): NDArray<D>;
  /** A copy in another storage type (MXNet `sparse.cast_storage`). */
  castStorage<D extends DTypeName, S extends StorageType>(data: NDArray<D>, stype: S): WithStype<S, D>;
  /** Zeros of `data`'s shape, dtype and storage type. */
  zerosLike<D extends DTypeName>(data: NDArray<D>, options?: OpInvokeOptions): NDArray<D>;
}

/** Any op's params with the invoke options (typed per function in `SparseOps`). */
type Params = OpInvokeOptions & { readonly [key: string]: unknown };

/** The op functions of `nd.sparse`, calling `rt.invoke` as `nd.<op>` does. */
export function createSparseOps(rt: Runtime): SparseOps {
  const call = (op: string, inputs: NDArray[], params?: object): NDArray => {
    const { out, ctx, req, ...rest } = (params ?? {}) as Params;
    const outs = rt.invoke(op, inputs, rest as OpParams, {
      out,
      req,
      ctx: typeof ctx === 'string' ? rt.contextFromParam(ctx, op) : ctx,
    });
    return outs[0] as NDArray;
  };

  const arith =
    (name: string, same: string, broadcast: string, scalar: string, rScalar: string) =>
    (lhs: SparseOperand, rhs: SparseOperand): NDArray => {
      if (lhs instanceof NDArray && rhs instanceof NDArray) {
        const equal = lhs.ndim === rhs.ndim && lhs.shape.every((d, i) => d === rhs.shape[i]);
        return call(equal ? same : broadcast, [lhs, rhs]);
      }
      if (lhs instanceof NDArray && typeof rhs === 'number') return call(scalar, [lhs], { scalar: rhs });
      if (typeof lhs === 'number' && rhs instanceof NDArray) return call(rScalar, [rhs], { scalar: lhs });
      throw new MXNetError(`sparse.${name} needs at least one NDArray operand (and numbers otherwise)`, {
        op: `sparse.${name}`,
        hint: 'compute with plain numbers, or pass an NDArray',
      });
    };

  return {
    retain: (data, indices, options) => call('_sparse_retain', [data, indices], options) as never,
    dot: (lhs, rhs, params) => call('dot', [lhs, rhs], params),
    add: arith('add', 'elemwise_add', 'broadcast_add', '_plus_scalar', '_plus_scalar'),
    subtract: arith('subtract', 'elemwise_sub', 'broadcast_sub', '_minus_scalar', '_rminus_scalar'),
    multiply: arith('multiply', 'elemwise_mul', 'broadcast_mul', '_mul_scalar', '_mul_scalar'),
    divide: arith('divide', 'elemwise_div', 'broadcast_div', '_div_scalar', '_rdiv_scalar'),
    elemwiseAdd: (lhs, rhs, options) => call('elemwise_add', [lhs, rhs], options),
    elemwiseSub: (lhs, rhs, options) => call('elemwise_sub', [lhs, rhs], options),
    elemwiseMul: (lhs, rhs, options) => call('elemwise_mul', [lhs, rhs], options),
    elemwiseDiv: (lhs, rhs, options) => call('elemwise_div', [lhs, rhs], options),
    addN: (...arrays) => call('add_n', arrays, { num_args: arrays.length }),
    sum: (data, params) => call('sum', [data], params) as never,
    mean: (data, params) => call('mean', [data], params) as never,
    norm: (data, params) => call('norm', [data], params),
    slice: ((data: NDArray, params: SliceParams & OpInvokeOptions) =>
      call('slice', [data], params)) as SparseOps['slice'],
    where: (condition, x, y, options) => call('where', [condition, x, y], options) as never,
    clip: (data, params) => call('clip', [data], params) as never,
    castStorage: (data, stype) => data.tostype(stype),
    zerosLike: (data, options) => call('zeros_like', [data], options) as never,
  };
}
