/**
 * `_sparse_retain` and `_backward_sparse_retain` on cpu-wasm (MXNet `sparse_retain-inl.h`).
 *
 * Forward: the output stores exactly the requested rows; each is copied from the input when the
 * input stores it (binary search in its ascending indices) and zero otherwise — MXNet's
 * `SparseRetainRspThreadKernel`. An input with no stored rows, no rows at all, or an empty index
 * list gives an empty output (MXNet's `FillZerosRspImpl` shortcut). Backward: the head gradient's
 * rows at the indices (a dense head gradient, or a row_sparse one looked up the same way).
 *
 * The index array is device data, so its values are checked here: integers in [0, rows), taken
 * sorted and without repeats (MXNet writes them as given, which for unsorted or repeated indices
 * would be a malformed row_sparse array with the same dense value).
 */
import { type DTypeName, type Shape, shapeSize } from '@mx/base';
import { isSparseBlob, type OpRegistry, OpReq, type OpReqType, type SparseOutput } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import {
  type Blob,
  checkRange,
  findRow,
  indexNumbers,
  kernelError,
  type Sparse,
  viewOf,
  writeIndices,
} from './blocks.js';
import { CAST_STORAGE_DTYPES } from './cast-storage.js';

/** Data dtypes served (the kernels only copy rows); the index array may hold any of them too. */
export const RETAIN_DTYPES: readonly DTypeName[] = CAST_STORAGE_DTYPES;

/** The requested rows: every value an integer in [0, rows); sorted, repeats dropped. */
export function retainRows(op: string, rt: CpuWasmRuntime, idx: Blob, rows: number): ArrayLike<number> {
  const v = indexNumbers(rt, idx, true);
  let sorted = true;
  for (let i = 0; i < v.length; i++) {
    const r = v[i] as number;
    if (!Number.isInteger(r) || r < 0 || r >= rows) {
      throw kernelError(
        op,
        `sparse.retain: index ${r} at position ${i} is ${Number.isInteger(r) ? `outside [0, ${rows})` : 'not an integer'}`,
        `indices name rows of the row_sparse array: integers in [0, ${rows})`,
      );
    }
    if (i > 0 && r <= (v[i - 1] as number)) sorted = false;
  }
  if (sorted) return v;
  const s = Float64Array.from(v).sort();
  let n = 0;
  for (let i = 0; i < s.length; i++) if (n === 0 || s[i] !== s[n - 1]) s[n++] = s[i] as number;
  return s.subarray(0, n);
}

function checkReq(op: string, r: OpReqType): boolean {
  if (r === OpReq.null) return false;
  if (r === OpReq.add) throw kernelError(op, `${op} only supports req=write`, 'write into a new array');
  return true;
}

/**
 * Fill `out` (allocated for `want.length` rows of `rowSize`) with the rows of a source: `pos(r)`
 * gives the source row holding logical row r, or -1 for a zero row.
 */
function gatherRows(
  rt: CpuWasmRuntime,
  src: Blob,
  out: SparseOutput<number>,
  want: ArrayLike<number>,
  rowSize: number,
  pos: (r: number) => number,
): void {
  const x = viewOf(rt, src);
  const y = viewOf(rt, out.data);
  writeIndices(viewOf(rt, out.aux[0] as Blob), 0, want, 0, want.length);
  if (rowSize === 0) return;
  const zero = (y instanceof BigInt64Array ? 0n : 0) as never;
  for (let j = 0; j < want.length; j++) {
    const p = pos(want[j] as number);
    const at = j * rowSize;
    if (p < 0) y.fill(zero, at, at + rowSize);
    else
      (y as unknown as Float64Array).set(
        (x as unknown as Float64Array).subarray(p * rowSize, (p + 1) * rowSize),
        at,
      );
  }
}

export function installRetain(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel('_sparse_retain', 'cpu-wasm', {
    dtypes: RETAIN_DTYPES,
    computeEx(_attrs, _ctx, inputs, req, outputs) {
      const op = '_sparse_retain';
      if (!checkReq(op, req[0] as OpReqType)) return;
      const src = inputs[0] as Sparse;
      const out = outputs[0] as SparseOutput<number>;
      if (!isSparseBlob(src) || src.stype !== 'row_sparse' || !isSparseBlob(out))
        throw kernelError(op, 'sparse.retain takes and gives row_sparse arrays', "use tostype('row_sparse')");
      const rows = src.shape[0] as number;
      const rest: Shape = src.shape.slice(1);
      const want = retainRows(op, rt, inputs[1] as Blob, rows);
      const k = src.storageShape[0] as number;
      if (k === 0 || want.length === 0) {
        out.alloc([0, ...rest], [[0]]);
        return;
      }
      const have = indexNumbers(rt, src.aux[0] as Blob, true);
      checkRange(op, 'row_sparse indices', have, rows);
      out.alloc([want.length, ...rest], [[want.length]]);
      // A row_sparse input storing every row (MXNet's dense-input case) is indexed directly.
      const full = k === rows;
      gatherRows(rt, src.data, out, want, shapeSize(rest), (r) => (full ? r : findRow(have, k, r)));
    },
  });

  registry.registerKernel('_backward_sparse_retain', 'cpu-wasm', {
    dtypes: RETAIN_DTYPES,
    computeEx(_attrs, _ctx, inputs, req, outputs) {
      const op = '_backward_sparse_retain';
      if (!checkReq(op, req[0] as OpReqType)) return;
      const og = inputs[0] as Blob | Sparse;
      const out = outputs[0] as SparseOutput<number>;
      const rows = og.shape[0] as number;
      const rest: Shape = og.shape.slice(1);
      const want = retainRows(op, rt, inputs[1] as Blob, rows);
      if (want.length === 0) {
        out.alloc([0, ...rest], [[0]]);
        return;
      }
      let pos = (r: number) => r;
      let data: Blob;
      if (isSparseBlob(og)) {
        const k = og.storageShape[0] as number;
        const have = indexNumbers(rt, og.aux[0] as Blob, true);
        checkRange(op, 'row_sparse indices', have, rows);
        pos = (r) => findRow(have, k, r);
        data = og.data;
      } else data = og;
      out.alloc([want.length, ...rest], [[want.length]]);
      gatherRows(rt, data, out, want, shapeSize(rest), pos);
    },
  });
}
