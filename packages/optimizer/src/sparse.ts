/**
 * What the optimizers share for row_sparse weights and gradients (MXNet 1.9.1 optimizer.py with
 * the storage rules of src/operator/optimizer_op*.h):
 *
 * - `fusedUpdate` runs a fused update op into the weight. A dense weight gets `out: weight`, as
 *   MXNet's Python passes (MXNet's kWriteInplace: a lazy update touches only the gradient's rows).
 *   A row_sparse weight cannot be written in place by the storage dispatch of @mx/ndarray, so its
 *   update is computed into a new array and cast into the weight: the same values, one more pass.
 * - `zeroState` creates a state of the requested storage type: row_sparse states store every row
 *   (zeros), because the kernels update them in place and cannot allocate rows (MXNet fills an
 *   empty one with zero rows on the first update).
 * - `LAZY_UPDATE_NOTE` is the text MXNet's storage inference logs once (`LogLazyUpdate`) when a
 *   lazy update applies: for sgd_update with wd ≠ 0, for sgd_mom_update and adam_update whenever
 *   the states have the weight's storage type.
 */
import type { Context, DTypeName } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';

/** MXNet's `LogLazyUpdate` text (optimizer_op-inl.h), logged once per optimizer. */
export const LAZY_UPDATE_NOTE =
  'Optimizer with lazy_update = True detected. Be aware that lazy update with row_sparse gradient is ' +
  'different from standard update, and may lead to different empirical results. See ' +
  'https://mxnet.apache.org/api/python/optimization/optimization.html for more details.';

/** The state storage types an optimizer creates (csr weights keep dense states). */
export type StateStorage = 'default' | 'row_sparse';

/** Dtypes a row_sparse state can hold (the others stay dense). */
const SPARSE_STATE_DTYPES: readonly DTypeName[] = ['float32', 'float64'];

/**
 * Run the fused update `op` on `inputs` (weight first) with `params` and put the result into
 * `weight`; states are written in place by the op.
 */
export function fusedUpdate(
  nd: Nd,
  op: string,
  inputs: readonly NDArray[],
  params: Readonly<Record<string, unknown>>,
  weight: NDArray,
): void {
  if (weight.stype === 'default') {
    nd.invoke(op, inputs, params, { out: weight });
    return;
  }
  const [result] = nd.invoke(op, inputs, params) as [NDArray];
  nd.invoke('cast_storage', [result], { stype: weight.stype }, { out: weight });
  result.dispose();
}

/** The storage type of a state for `weight` when MXNet would give it the weight's. */
export function stateStorageOf(weight: { readonly stype?: string }): StateStorage {
  return weight.stype === 'row_sparse' ? 'row_sparse' : 'default';
}

/** A zero state: dense, or row_sparse with every row stored. */
export function zeroState(
  nd: Nd,
  shape: readonly number[],
  dtype: DTypeName,
  ctx: Context,
  stype: StateStorage,
): NDArray {
  if (stype === 'row_sparse' && SPARSE_STATE_DTYPES.includes(dtype) && shape.length > 0) {
    const rows = shape[0] as number;
    const size = shape.reduce((a, b) => a * b, 1);
    return nd.sparse.rowSparseArray(
      {
        data: dtype === 'float64' ? new Float64Array(size) : new Float32Array(size),
        indices: BigInt64Array.from({ length: rows }, (_, i) => BigInt(i)),
      },
      { shape, dtype, ctx },
    );
  }
  return nd.zeros(shape, { ctx, dtype });
}
