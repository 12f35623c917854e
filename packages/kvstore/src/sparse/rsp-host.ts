/**
 * Row_sparse arithmetic on host copies, shared by the stores (through the engine ops of
 * rsp-ops.ts) and the distributed server (which holds its values on the host anyway). Plain
 * functions over typed arrays, so they are tested directly and cost no engine round trip:
 *
 * - `uniqueRows`: MXNet's `KVStoreLocal::Unique` (row ids of a row_sparse_pull, sorted and unique);
 * - `sumRows`: MXNet's ElementwiseSum of row_sparse arrays — the union of the rows, each element
 *   summed in input order in the values' dtype (float32 rounds at every step, integers wrap);
 * - `retainRows`: MXNet's `SparseRetainOpForwardRspImpl` — every requested row, zeros where the
 *   source stores none, and an empty result when the source or the request is empty;
 * - dense ↔ row_sparse conversions (cast_storage's rule: a row is stored when an element is
 *   nonzero) and the server's row gather.
 *
 * Row ids are held in Float64Arrays (exact integers far beyond any table that fits in memory).
 */
import {
  type DTypeInfo,
  fromBFloat16Bits,
  fromHalfBits,
  type StorageArray,
  toBFloat16Bits,
  toHalfBits,
} from '@mx/base';

/** A row_sparse value on the host: stored rows (strictly ascending) and their values, row-major. */
export interface HostRsp {
  readonly rows: Float64Array;
  /** `rows.length × unit` values in the dtype's storage. */
  readonly data: StorageArray;
}

/** Every row of a table with `n` rows: 0, 1, …, n - 1. */
export function allRows(n: number): Float64Array {
  const rows = new Float64Array(n);
  for (let i = 0; i < n; i++) rows[i] = i;
  return rows;
}

/** The distinct values of `ids`, ascending (MXNet's Unique of row_sparse_pull's row ids). */
export function uniqueRows(ids: ArrayLike<number | bigint>): Float64Array {
  const sorted = Float64Array.from(ids as ArrayLike<number>, (x) => Number(x)).sort();
  let k = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[k - 1]) sorted[k++] = sorted[i] as number;
  }
  return sorted.slice(0, k);
}

function emptyData(dtype: DTypeInfo, n: number): StorageArray {
  return new dtype.storage(n) as StorageArray;
}

/** `out[o..o+unit) += src[s..s+unit)` in the dtype (float16/bfloat16 summed in float32, rounded back). */
function addRow(
  out: StorageArray,
  o: number,
  src: StorageArray,
  s: number,
  unit: number,
  dtype: DTypeInfo,
): void {
  const a = out as unknown as number[];
  const b = src as unknown as number[];
  if (dtype.name === 'float16') {
    for (let c = 0; c < unit; c++)
      a[o + c] = toHalfBits(Math.fround(fromHalfBits(a[o + c] as number) + fromHalfBits(b[s + c] as number)));
  } else if (dtype.name === 'bfloat16') {
    for (let c = 0; c < unit; c++)
      a[o + c] = toBFloat16Bits(
        Math.fround(fromBFloat16Bits(a[o + c] as number) + fromBFloat16Bits(b[s + c] as number)),
      );
  } else if (dtype.bigint) {
    const x = out as unknown as bigint[];
    const y = src as unknown as bigint[];
    for (let c = 0; c < unit; c++) x[o + c] = (x[o + c] as bigint) + (y[s + c] as bigint);
  } else {
    // Typed-array stores round (float32) or wrap (integers) as the C++ addition does.
    for (let c = 0; c < unit; c++) a[o + c] = (a[o + c] as number) + (b[s + c] as number);
  }
}

/** The sum of row_sparse values (MXNet ElementwiseSum on row_sparse inputs): union of the rows. */
export function sumRows(parts: readonly HostRsp[], unit: number, dtype: DTypeInfo): HostRsp {
  let total = 0;
  for (const p of parts) total += p.rows.length;
  const all = new Float64Array(total);
  let at = 0;
  for (const p of parts) {
    all.set(p.rows, at);
    at += p.rows.length;
  }
  const rows = uniqueRows(all);
  const data = emptyData(dtype, rows.length * unit);
  for (const p of parts) {
    // Both row lists ascend: one pointer walks the union.
    let u = 0;
    for (let j = 0; j < p.rows.length; j++) {
      const r = p.rows[j] as number;
      while (rows[u] !== r) u++;
      addRow(data, u * unit, p.data, j * unit, unit, dtype);
    }
  }
  return { rows, data };
}

/**
 * MXNet's sparse_retain of `src` at `want` (sorted, unique, each below the table's row count):
 * the result stores every wanted row (zeros where `src` has none); it is empty when `src` stores
 * no row, nothing is wanted, or the table has no rows.
 */
export function retainRows(
  src: HostRsp,
  want: Float64Array,
  unit: number,
  numRows: number,
  dtype: DTypeInfo,
): HostRsp {
  if (src.rows.length === 0 || want.length === 0 || numRows === 0) {
    return { rows: new Float64Array(0), data: emptyData(dtype, 0) };
  }
  const data = emptyData(dtype, want.length * unit);
  const d = data as unknown as { set(a: ArrayLike<unknown>, o: number): void };
  let s = 0;
  for (let i = 0; i < want.length; i++) {
    const r = want[i] as number;
    while (s < src.rows.length && (src.rows[s] as number) < r) s++;
    if (s < src.rows.length && src.rows[s] === r) {
      d.set(src.data.subarray(s * unit, (s + 1) * unit) as ArrayLike<unknown>, i * unit);
    }
  }
  return { rows: want.slice(), data };
}

/** The dense table (`numRows × unit`) of a row_sparse value: zeros where no row is stored. */
export function rowsToDense(src: HostRsp, numRows: number, unit: number, dtype: DTypeInfo): StorageArray {
  const out = emptyData(dtype, numRows * unit);
  const o = out as unknown as { set(a: ArrayLike<unknown>, o: number): void };
  for (let j = 0; j < src.rows.length; j++) {
    o.set(src.data.subarray(j * unit, (j + 1) * unit) as ArrayLike<unknown>, (src.rows[j] as number) * unit);
  }
  return out;
}

/** The rows of a dense table holding a nonzero element (cast_storage's dense → row_sparse rule). */
export function denseToRows(dense: StorageArray, numRows: number, unit: number, dtype: DTypeInfo): HostRsp {
  const keep: number[] = [];
  const v = dense as unknown as ArrayLike<number | bigint>;
  // float16/bfloat16 are stored as bits: only +0 (0x0000) and -0 (0x8000) are zero.
  const bits = dtype.name === 'float16' || dtype.name === 'bfloat16';
  for (let r = 0; r < numRows; r++) {
    for (let c = r * unit; c < (r + 1) * unit; c++) {
      const x = v[c] as number | bigint;
      // NaN counts as nonzero (x != 0 in C++).
      if (bits ? ((x as number) & 0x7fff) !== 0 : x !== 0 && x !== 0n) {
        keep.push(r);
        break;
      }
    }
  }
  return { rows: Float64Array.from(keep), data: gatherRows(dense, keep, unit, dtype) };
}

/** The values of `rows` of a dense table, concatenated (the server's row_sparse pull answer). */
export function gatherRows(
  table: StorageArray,
  rows: ArrayLike<number>,
  unit: number,
  dtype: DTypeInfo,
): StorageArray {
  const out = emptyData(dtype, rows.length * unit);
  const o = out as unknown as { set(a: ArrayLike<unknown>, o: number): void };
  for (let j = 0; j < rows.length; j++) {
    const r = rows[j] as number;
    o.set(table.subarray(r * unit, (r + 1) * unit) as ArrayLike<unknown>, j * unit);
  }
  return out;
}
