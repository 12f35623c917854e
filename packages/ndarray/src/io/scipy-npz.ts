/**
 * SciPy's sparse `.npz` layout (`scipy.sparse.save_npz`/`load_npz`), at the host level: a zip of
 * top-level `.npy` members — `format` (a 0-d bytes string, `b'csr'`), `shape` (int64 `(2,)`),
 * `data`, and `indices`/`indptr` (csr, csc, bsr), `row`/`col` (coo) or `offsets` (dia); newer
 * SciPy adds `_is_array` for sparse arrays. SciPy compresses the members by default.
 *
 * Reading returns MXNet's form of what SciPy would load, whatever the stored format: a CSR array in
 * canonical form (column indices sorted within each row, duplicates summed, explicit zeros kept),
 * as `mx.nd.sparse.array(scipy_matrix)` makes (`sorted_indices()`, `sum_duplicates()`), with
 * int64 indices (MXNet's aux type). csr, csc and coo are read; bsr and dia are refused (MXNet has
 * no such storage), and so is any file that breaks the layout or SciPy's format rules — an
 * MXNetError naming the file, the member and the rule. Loading is bounded like every loader here:
 * the zip is checked strictly (zip-read.ts) and what conversion allocates is charged to the load's
 * {@link Budget}, so a tiny file cannot claim a billion rows.
 *
 * Writing produces what `scipy.sparse.save_npz(f, m, compressed=False)` does for a CSR matrix
 * (same members, order and dtypes; `format` as `|S3`), through the same stored zip writer as npz.
 * SciPy has no row_sparse format: those arrays are refused with a hint to cast to csr.
 */
import {
  DType,
  type DTypeName,
  fromBFloat16Bits,
  fromHalfBits,
  isIntegerDType,
  MXNetError,
  type StorageArray,
  shapeToString,
  toBFloat16Bits,
  toHalfBits,
} from '@mx/base';
import { ByteReader } from './bytes.js';
import { Budget, type LoadLimits } from './limits.js';
import { checkHostSparse } from './mxnet-sparse.js';
import { NPY_MAGIC, readNpy, saveNpy } from './npy.js';
import { parsePyLiteral } from './py-literal.js';
import { DEFAULT_SOURCE, fileError, type HostArray, type HostSparseArray } from './types.js';
import { readZip, writeZip } from './zip.js';

/** The formats `scipy.sparse.save_npz` writes. */
export type ScipySparseFormat = 'csr' | 'csc' | 'coo' | 'bsr' | 'dia';

/** A CSR host array with int64 index arrays, as {@link loadScipyNpz} returns it. */
export interface ScipyCsr extends HostSparseArray {
  readonly stype: 'csr';
  readonly indices: BigInt64Array;
  readonly indptr: BigInt64Array;
}

/** What {@link loadScipyNpz} read: the stored format and the canonical CSR array. */
export interface LoadedScipyNpz {
  /** The format the file stores (the array is CSR whatever it was). */
  readonly format: 'csr' | 'csc' | 'coo';
  readonly array: ScipyCsr;
}

const LOAD = 'loadScipyNpz';
const SAVE = 'saveScipyNpz';
const MEMBERS: Readonly<Record<ScipySparseFormat, readonly string[]>> = {
  csr: ['indices', 'indptr'],
  csc: ['indices', 'indptr'],
  bsr: ['indices', 'indptr'],
  coo: ['row', 'col'],
  dia: ['offsets'],
};

/**
 * True when zip member names are SciPy's sparse layout: a top-level `format.npy` beside the
 * members of one of its formats (for loaders of dense npz files, to point at the sparse reader).
 */
export function isScipySparseLayout(memberNames: readonly string[]): boolean {
  const names = new Set(memberNames);
  if (!names.has('format.npy') || !names.has('data.npy') || !names.has('shape.npy')) return false;
  return Object.values(MEMBERS).some((m) => m.every((n) => names.has(`${n}.npy`)));
}

/**
 * Reads a `scipy.sparse.save_npz` file (stored or compressed) as a canonical CSR array. `source`
 * names the file in errors; `limits` caps what the load may decode and allocate.
 */
export function loadScipyNpz(bytes: Uint8Array, source?: string, limits?: LoadLimits): LoadedScipyNpz {
  const budget = new Budget(LOAD, source, bytes.length, limits);
  const file = source ?? DEFAULT_SOURCE;
  const members = new Map<string, Uint8Array>();
  for (const e of readZip(bytes, LOAD, source, budget)) {
    if (e.name.endsWith('.npy') && !e.name.includes('/')) members.set(e.name.slice(0, -4), e.data);
  }
  const fail = (message: string, hint?: string) => fileError(LOAD, source, message, hint);
  const formatBytes = members.get('format');
  if (formatBytes === undefined) {
    throw fail(
      'no format.npy member: this is not a scipy.sparse .npz file (scipy.sparse.load_npz refuses it too)',
      'dense arrays saved with numpy.savez or npx.savez load with nd.load',
    );
  }
  const format = readFormat(formatBytes, `${file}[format.npy]`);
  if (format === 'bsr' || format === 'dia') {
    throw fail(
      `format.npy: ${format} matrices are not supported (MXNet's sparse storage types are csr and row_sparse)`,
      'convert in SciPy and save again: scipy.sparse.save_npz(path, m.tocsr())',
    );
  }
  if (format !== 'csr' && format !== 'csc' && format !== 'coo') {
    throw fail(
      `format.npy: unknown sparse format "${format}"`,
      'scipy.sparse.save_npz writes csr, csc, coo, bsr or dia',
    );
  }
  const member = (name: string): HostArray => {
    const m = members.get(name);
    if (m === undefined)
      throw fail(`the ${format} layout needs the member ${name}.npy, and the file has none`);
    return readNpy(m, `${file}[${name}.npy]`, null);
  };
  const [rows, cols] = readShape(member('shape'), fail);
  const data = member('data');
  if (data.shape.length !== 1)
    throw fail(`data.npy: the values are 1-D (nnz,), got shape ${shapeToString(data.shape)}`);
  const index = (name: string) => indexValues(member(name), `${name}.npy`, fail);
  const nnz = data.data.length;
  let row: Float64Array;
  let col: Float64Array;
  if (format === 'coo') {
    row = index('row');
    col = index('col');
    if (row.length !== nnz || col.length !== nnz)
      throw fail(
        `row.npy, col.npy: one row and one column per value, got ${row.length} rows, ${col.length} columns and ${nnz} values`,
      );
    checkRange(row, rows, 'row.npy', 'row', fail);
    checkRange(col, cols, 'col.npy', 'column', fail);
  } else {
    // csc is csr of the transpose: indptr runs over columns, indices are rows.
    const [major, minor] = format === 'csr' ? [rows, cols] : [cols, rows];
    const indptr = index('indptr');
    const indices = index('indices');
    checkIndptr(indptr, major, nnz, indices.length, format === 'csr' ? 'rows' : 'columns', fail);
    checkRange(indices, minor, 'indices.npy', format === 'csr' ? 'column' : 'row', fail);
    const expanded = expand(indptr, nnz);
    [row, col] = format === 'csr' ? [expanded, indices] : [indices, expanded];
  }
  // What conversion allocates: the order and output indices (8 bytes each), indptr, the values.
  budget.charge(
    (rows + 1) * 8 + nnz * (16 + DType[data.dtype].bytes),
    `conversion of ${nnz} values of a ${rows}x${cols} ${format} matrix to canonical CSR`,
  );
  return { format, array: canonicalCsr(rows, cols, row, col, data) };
}

/**
 * Writes a CSR host array as `scipy.sparse.save_npz(f, m, compressed=False)` does: members
 * `indices`, `indptr`, `format` (`b'csr'`), `shape` (int64), `data`, stored. Index arrays keep
 * their dtype (int32 or int64; SciPy reads both).
 */
export function saveScipyNpz(a: HostSparseArray): Uint8Array {
  if (a.stype !== 'csr') {
    throw new MXNetError(
      `scipy.sparse has no ${String(a.stype)} format, so a ${a.stype} array cannot be saved as a SciPy .npz`,
      {
        op: SAVE,
        hint: "cast it to csr first (x.tostype('csr'), 2-D arrays only), or keep row_sparse with nd.save (MXNet's format)",
      },
    );
  }
  checkHostSparse(SAVE, a, 'the CSR array');
  if (a.dtype === 'bfloat16') {
    throw new MXNetError('SciPy has no bfloat16: a bfloat16 CSR array cannot be saved as a SciPy .npz', {
      op: SAVE,
      hint: "cast it first: x.astype('float32')",
    });
  }
  const indptr = a.indptr as StorageArray;
  const [rows, cols] = a.shape as [number, number];
  const aux = (x: StorageArray): HostArray => ({
    shape: [x.length],
    dtype: x instanceof Int32Array ? 'int32' : 'int64',
    data: x,
  });
  return writeZip(
    [
      { name: 'indices.npy', data: saveNpy(aux(a.indices)) },
      { name: 'indptr.npy', data: saveNpy(aux(indptr)) },
      { name: 'format.npy', data: bytesNpy('csr') },
      {
        name: 'shape.npy',
        data: saveNpy({ shape: [2], dtype: 'int64', data: BigInt64Array.of(BigInt(rows), BigInt(cols)) }),
      },
      { name: 'data.npy', data: saveNpy({ shape: [a.data.length], dtype: a.dtype, data: a.data }) },
    ],
    SAVE,
  );
}

/** A 0-d `|S<n>` array holding ASCII `text`, as `numpy.save(f, b'csr')`. */
function bytesNpy(text: string): Uint8Array {
  let dict = `{'descr': '|S${text.length}', 'fortran_order': False, 'shape': (), }`;
  dict += `${' '.repeat(64 - ((10 + dict.length + 1) % 64))}\n`;
  const out = new Uint8Array(10 + dict.length + text.length);
  out.set(NPY_MAGIC, 0);
  out[6] = 1;
  new DataView(out.buffer).setUint16(8, dict.length, true);
  for (let i = 0; i < dict.length; i++) out[10 + i] = dict.charCodeAt(i);
  for (let i = 0; i < text.length; i++) out[10 + dict.length + i] = text.charCodeAt(i);
  return out;
}

/**
 * The string in the `format` member: a 0-d (or one-element) `|S<n>` bytes array, or `<U<n>`/
 * `>U<n>` unicode (older SciPy), as `load_npz` reads with `.item()`. The npy reader proper holds
 * numeric arrays only, so this small reader parses the header itself, as strictly.
 */
function readFormat(bytes: Uint8Array, source: string): string {
  const r = new ByteReader(bytes, LOAD, source);
  r.where = 'npy header';
  if (!r.take(6, 'npy magic').every((b, i) => b === NPY_MAGIC[i]))
    throw r.corrupt('missing the \\x93NUMPY magic', 0, 'this is not a .npy file');
  const version = r.take(2, 'npy version');
  const major = version[0] as number;
  const minor = version[1] as number;
  if (major < 1 || major > 3 || minor !== 0)
    throw r.corrupt(`unsupported npy format version ${major}.${minor}`, 6);
  const hlen = major === 1 ? r.u16('header length') : r.u32('header length');
  const headerAt = r.pos;
  const raw = r.take(hlen, 'header text');
  let text = '';
  if (major !== 3)
    for (const b of raw) text += String.fromCharCode(b); // latin-1
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      throw r.corrupt('bad header: a version 3.0 header must be UTF-8', headerAt);
    }
  }
  const bad = (why: string) => r.corrupt(`bad format header: ${why}`, headerAt);
  let v: ReturnType<typeof parsePyLiteral>;
  try {
    v = parsePyLiteral(text);
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (v.kind !== 'dict' || v.entries.size !== 3)
    throw bad("expected a dict of 'descr', 'fortran_order', 'shape'");
  const descr = v.entries.get('descr');
  const shape = v.entries.get('shape');
  if (v.entries.get('fortran_order')?.kind !== 'bool' || shape?.kind !== 'tuple')
    throw bad("'fortran_order' must be True/False and 'shape' a tuple");
  const m = descr?.kind === 'str' ? /^([|<>=]?)([SU])(\d+)$/.exec(descr.value) : null;
  if (m === null) {
    throw bad(
      `format must be a bytes or str array (descr '|S3' or '<U3'), got descr ${descr?.kind === 'str' ? `'${descr.value}'` : `(a ${descr?.kind})`}`,
    );
  }
  const one = shape.items.every((d) => d.kind === 'int' && d.value === 1);
  if (!one)
    throw bad(
      `format must hold one string, got shape (${shape.items.map((d) => (d.kind === 'int' ? d.value : '?')).join(', ')})`,
    );
  const width = Number(m[3]);
  const unicode = m[2] === 'U';
  r.where = 'format string';
  const body = r.take(unicode ? width * 4 : width, `a ${width}-character string`);
  r.expectEnd('the format string');
  let s = '';
  for (let i = 0; i < width; i++) {
    const c = unicode
      ? new DataView(body.buffer, body.byteOffset + 4 * i, 4).getUint32(0, m[1] !== '>')
      : (body[i] as number);
    if (c === 0) break; // NumPy strips trailing NULs
    if (c > 0x7f) throw bad('format is not ASCII');
    s += String.fromCharCode(c);
  }
  return s;
}

/** The `(rows, cols)` of the `shape` member: 2 integers >= 0 (SciPy matrices are 2-D). */
function readShape(a: HostArray, fail: (m: string, h?: string) => MXNetError): [number, number] {
  if (!isIntegerDType(DType[a.dtype])) throw fail(`shape.npy: holds ${a.dtype}, expected integers`);
  const dims = Array.from(a.data as ArrayLike<number | bigint>, Number);
  if (a.shape.length !== 1 || dims.length !== 2) {
    throw fail(
      `shape.npy: a sparse matrix is 2-D, got shape (${dims.join(', ')})`,
      'MXNet CSR arrays are 2-D; reshape in SciPy (1-D sparse arrays: m.reshape(1, -1)) and save again',
    );
  }
  if (!dims.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw fail(`shape.npy: dims must be integers >= 0, got (${dims.join(', ')})`);
  return dims as [number, number];
}

/** An index member as numbers: integers of a 1-D integer array, safe-integer range. */
function indexValues(a: HostArray, name: string, fail: (m: string) => MXNetError): Float64Array {
  if (!isIntegerDType(DType[a.dtype])) throw fail(`${name}: index arrays hold integers, got ${a.dtype}`);
  if (a.shape.length !== 1) throw fail(`${name}: index arrays are 1-D, got shape ${shapeToString(a.shape)}`);
  const out = new Float64Array(a.data.length);
  const src = a.data as ArrayLike<number | bigint>;
  for (let i = 0; i < out.length; i++) {
    const v = Number(src[i]);
    if (!Number.isSafeInteger(v))
      throw fail(`${name}: ${name.slice(0, -4)}[${i}] = ${String(src[i])} is out of range`);
    out[i] = v;
  }
  return out;
}

/** SciPy's compressed-format rules on `indptr` (MXNet's `csr_indptr_check`). */
function checkIndptr(
  indptr: Float64Array,
  major: number,
  nnz: number,
  nIndices: number,
  what: string,
  fail: (m: string) => MXNetError,
): void {
  if (indptr.length !== major + 1)
    throw fail(`indptr.npy: has ${what} + 1 = ${major + 1} entries, got ${indptr.length}`);
  if (nIndices !== nnz)
    throw fail(`indices.npy: one index per value, got ${nIndices} indices and ${nnz} values in data.npy`);
  if (indptr[0] !== 0) throw fail(`indptr.npy: indptr[0] must be 0, got ${indptr[0]}`);
  for (let i = 0; i < major; i++) {
    if ((indptr[i + 1] as number) < (indptr[i] as number))
      throw fail(
        `indptr.npy: must be non-decreasing, indptr[${i + 1}] = ${indptr[i + 1]} < indptr[${i}] = ${indptr[i]}`,
      );
  }
  if (indptr[major] !== nnz)
    throw fail(
      `indptr.npy: the last entry must equal the number of values (${nnz} in data.npy), got ${indptr[major]}`,
    );
}

function checkRange(
  ix: Float64Array,
  bound: number,
  name: string,
  what: string,
  fail: (m: string) => MXNetError,
): void {
  for (let i = 0; i < ix.length; i++) {
    const v = ix[i] as number;
    if (v < 0 || v >= bound) throw fail(`${name}: ${what} ${v} at [${i}] is outside [0, ${bound})`);
  }
}

/** The major index of each value of a compressed format (indptr already checked). */
function expand(indptr: Float64Array, nnz: number): Float64Array {
  const out = new Float64Array(nnz);
  for (let r = 0; r + 1 < indptr.length; r++) out.fill(r, indptr[r] as number, indptr[r + 1] as number);
  return out;
}

/** Adds two stored values of `dtype` as NumPy does (in the dtype: wrap, round, bool or). */
function adder(dtype: DTypeName): (a: number | bigint, b: number | bigint) => number | bigint {
  if (DType[dtype].bigint) return (a, b) => (a as bigint) + (b as bigint);
  if (dtype === 'bool') return (a, b) => (a as number) | (b as number);
  if (dtype === 'float16')
    return (a, b) => toHalfBits(Math.fround(fromHalfBits(a as number) + fromHalfBits(b as number)));
  if (dtype === 'bfloat16')
    return (a, b) =>
      toBFloat16Bits(Math.fround(fromBFloat16Bits(a as number) + fromBFloat16Bits(b as number)));
  return (a, b) => (a as number) + (b as number); // the typed store rounds (float32) or wraps (ints)
}

/**
 * Canonical CSR of (row, col, value) triples: ordered by row, then column, then position in the
 * file; duplicates summed in the data dtype (SciPy's `sum_duplicates`), explicit zeros kept.
 */
function canonicalCsr(
  rows: number,
  cols: number,
  row: Float64Array,
  col: Float64Array,
  values: HostArray,
): ScipyCsr {
  const nnz = row.length;
  // Stable counting sort by row.
  const ptr = new Float64Array(rows + 1);
  for (let k = 0; k < nnz; k++) (ptr[(row[k] as number) + 1] as number)++;
  for (let r = 0; r < rows; r++) ptr[r + 1] = (ptr[r + 1] as number) + (ptr[r] as number);
  const order = new Float64Array(nnz);
  const next = ptr.slice(0, rows);
  for (let k = 0; k < nnz; k++) order[(next[row[k] as number] as number)++] = k;
  const src = values.data as unknown as ArrayLike<number | bigint>;
  const add = adder(values.dtype);
  const data = new DType[values.dtype].storage(nnz) as unknown as (number | bigint)[];
  const indices = new BigInt64Array(nnz);
  const indptr = new BigInt64Array(rows + 1);
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const start = ptr[r] as number;
    const end = ptr[r + 1] as number;
    let seg: ArrayLike<number> = order.subarray(start, end);
    let sorted = true;
    for (let j = start + 1; j < end && sorted; j++)
      sorted = (col[order[j - 1] as number] as number) <= (col[order[j] as number] as number);
    if (!sorted) seg = Array.from(seg).sort((a, b) => (col[a] as number) - (col[b] as number) || a - b);
    let last = -1;
    for (let j = 0; j < seg.length; j++) {
      const k = seg[j] as number;
      const c = col[k] as number;
      if (c === last) data[n - 1] = add(data[n - 1] as number | bigint, src[k] as number | bigint);
      else {
        data[n] = src[k] as number | bigint;
        indices[n++] = BigInt(c);
        last = c;
      }
    }
    indptr[r + 1] = BigInt(n);
  }
  const out = (data as unknown as StorageArray).slice(0, n) as StorageArray;
  return {
    stype: 'csr',
    shape: [rows, cols],
    dtype: values.dtype,
    storageShape: [n],
    data: out,
    indices: indices.slice(0, n),
    indptr,
  };
}
