/**
 * One MXNet NDArray record (`NDArray::Save`/`Load` in src/ndarray/ndarray.cc), the unit of the list
 * file and of the raw bytes behind pickling (`MXNDArraySaveRawBytes`/`LoadFromRawBytes`).
 *
 * Versions, told apart by the first u32:
 * - V3 `0xF993FACA` (np-shape on, MXNet 2.0's default): ndim 0 is a scalar, ndim or a dim of -1 is
 *   "none" and ends the record; dense only.
 * - V2 `0xF993FAC9` (np-shape off): stype, sparse storage shape, ndim 0 = "none" ends the record.
 * - V1 `0xF993FAC8`: i64 TShape, ctx, dtype, data.  V0: that u32 *is* ndim, dims are u32.
 * Mixing semantics fails as in MXNet: V3 needs np-shape on; V0..V2 need it off, unless it is on
 * globally (`npShape: 'global'`, MXNet's GlobalOn).
 * Sparse records are parsed completely (so a reader never mis-steps) and then refused.
 */
import { ALL_DTYPES, DType, type DTypeName, dtypeFromFlag, MXNetError, shapeToString } from '@mx/base';
import { ByteReader, ByteWriter, bytesOfStorage } from './bytes.js';
import { CPU0, checkHostArray, elementCount, type HostArray, type HostContext, noneArray } from './types.js';

/** Largest ndim accepted for a V0 record (NumPy's limit); bigger first words are unknown magics. */
const MAX_V0_NDIM = 64;

export const NDARRAY_V1_MAGIC = 0xf993fac8;
export const NDARRAY_V2_MAGIC = 0xf993fac9;
export const NDARRAY_V3_MAGIC = 0xf993faca;

/** MXNet's np-shape switch as seen by a load: off, on (thread-local, the 2.0 default) or GlobalOn. */
export type NpShapeMode = boolean | 'global';

const STYPE_NAMES: Readonly<Record<number, string>> = {
  [-1]: 'undefined',
  0: 'default',
  1: 'row_sparse',
  2: 'csr',
};

const LOAD_NP_HINT =
  'the file was written with np-shape semantics (V3 records); load it with npShape: true (the default)';
const LOAD_LEGACY_HINT =
  'the file was written without np-shape semantics (legacy V0/V1/V2 records); load it with npShape: false, ' +
  "or npShape: 'global'";

/** Reads one record at the reader's position. Returns the array (possibly "none"). */
export function readRecord(r: ByteReader, npShape: NpShapeMode): HostArray {
  const magicAt = r.pos;
  const magic = r.u32('record magic or ndim');
  const known = magic === NDARRAY_V1_MAGIC || magic === NDARRAY_V2_MAGIC || magic === NDARRAY_V3_MAGIC;
  if (!known && magic > MAX_V0_NDIM) {
    throw r.corrupt(
      `unknown record magic 0x${magic.toString(16)} (not V1/V2/V3, too large for a V0 ndim)`,
      magicAt,
    );
  }
  if (magic === NDARRAY_V3_MAGIC) {
    if (npShape === false) {
      throw r.error(
        'ndarray was saved in np shape semantics, must be loaded in the same semantics',
        LOAD_NP_HINT,
      );
    }
  } else if (npShape === true) {
    throw r.error(
      'ndarray was not saved in np shape semantics, but being loaded in np shape semantics',
      LOAD_LEGACY_HINT,
    );
  }
  if (magic === NDARRAY_V2_MAGIC || magic === NDARRAY_V3_MAGIC)
    return readV2V3(r, magic === NDARRAY_V3_MAGIC, npShape !== false);
  // V1 and V0 (LegacyLoad): no storage type.
  const shape = magic === NDARRAY_V1_MAGIC ? readShape(r, false) : readV0Shape(r, magic);
  if (shape === null || shape.length === 0) return noneArray();
  const ctx = readContext(r);
  const dtype = readDType(r, 'dtype flag');
  const data = r.array(dtype, elementCount(shape), `${dtype} data`);
  return { shape, dtype, data, ctx };
}

function readV2V3(r: ByteReader, v3: boolean, npSemantics: boolean): HostArray {
  const stypeAt = r.pos;
  const stype = r.i32('storage type');
  if (!(stype in STYPE_NAMES)) throw r.corrupt(`unknown storage type ${stype}`, stypeAt);
  const sparse = stype === 1 || stype === 2;
  // MXNet: only default storage under np-shape semantics (a V3 "none" has stype -1 and fails too).
  if ((v3 && stype !== 0) || (npSemantics && sparse)) {
    throw r.corrupt(
      `only default storage is allowed in np shape semantics, found ${STYPE_NAMES[stype]}`,
      stypeAt,
    );
  }
  const storageShape = sparse ? readShape(r, false) : null;
  if (sparse && (storageShape === null || storageShape.length === 0)) {
    throw r.corrupt('sparse storage shape is empty', stypeAt + 4);
  }
  const shape = readShape(r, v3);
  if (shape === null || (!v3 && shape.length === 0)) return noneArray();
  const ctx = readContext(r);
  const dtype = readDType(r, 'dtype flag');
  if (!sparse) {
    const data = r.array(dtype, elementCount(shape), `${dtype} data`);
    return { shape, dtype, data, ctx };
  }
  // Sparse: aux dtypes and shapes, then the values (storage shape), then each aux array.
  const numAux = stype === 2 ? 2 : 1;
  const aux: { dtype: DTypeName; shape: number[] }[] = [];
  for (let i = 0; i < numAux; i++) {
    const auxType = readDType(r, `aux ${i} dtype flag`);
    const auxShape = readShape(r, false) ?? [];
    aux.push({ dtype: auxType, shape: auxShape });
  }
  r.array(dtype, elementCount(storageShape ?? []), `${dtype} sparse values`);
  for (const [i, a] of aux.entries()) r.array(a.dtype, elementCount(a.shape), `aux ${i} ${a.dtype} data`);
  throw r.error(
    `sparse arrays are not supported yet: ${STYPE_NAMES[stype]} array of shape ${shapeToString(shape)}, ` +
      `${dtype}, ${elementCount(storageShape ?? [])} stored values`,
    'convert it to a dense array (tostype("default")) with MXNet before saving',
  );
}

/**
 * TShape: i32 ndim + ndim x i64. Returns null for "none": ndim -1, or (np semantics) any dim -1.
 * Other negative values are corruption.
 */
function readShape(r: ByteReader, np: boolean): number[] | null {
  const at = r.pos;
  const ndim = r.i32('shape ndim');
  if (ndim === -1) return null;
  if (ndim < -1) throw r.corrupt(`shape ndim ${ndim} is negative`, at);
  r.need(ndim * 8, `${ndim} shape dims`);
  const shape: number[] = [];
  let none = false;
  for (let i = 0; i < ndim; i++) {
    const dimAt = r.pos;
    const d = r.i64('shape dim');
    if (d === -1 && np) none = true;
    else if (d < 0) throw r.corrupt(`shape dim ${i} is ${d}`, dimAt);
    shape.push(d);
  }
  return none ? null : shape;
}

function readV0Shape(r: ByteReader, ndim: number): number[] {
  r.need(ndim * 4, `${ndim} V0 shape dims`);
  const shape: number[] = [];
  for (let i = 0; i < ndim; i++) shape.push(r.u32('V0 shape dim'));
  return shape;
}

function readContext(r: ByteReader): HostContext {
  const devType = r.i32('context dev_type');
  const devId = r.i32('context dev_id');
  return devType === CPU0.devType && devId === CPU0.devId ? CPU0 : { devType, devId };
}

function readDType(r: ByteReader, what: string): DTypeName {
  const at = r.pos;
  const flag = r.i32(what);
  if (!Number.isInteger(flag) || flag < 0 || flag >= ALL_DTYPES.length)
    throw r.corrupt(`unknown dtype flag ${flag}`, at);
  return dtypeFromFlag(flag).name;
}

/**
 * Appends one record: V3 when `npShape` (MXNet 2.0's default), else V2. Checks `a` first and
 * refuses what MXNet refuses: scalars in V2 (ndim 0 means "none" there) and "none" in V3.
 */
export function writeRecord(w: ByteWriter, a: HostArray, npShape: boolean, op: string, what: string): void {
  checkHostArray(op, a, what);
  if (a.none === true) {
    if (npShape) {
      throw new MXNetError(`${what} is a "none" array; np-shape (V3) records cannot store one`, {
        op,
        hint: 'save with npShape: false (legacy V2 records) or drop the uninitialised array',
      });
    }
    w.u32(NDARRAY_V2_MAGIC);
    w.i32(-1);
    w.i32(0);
    return;
  }
  if (!npShape && a.shape.length === 0) {
    throw new MXNetError(`${what} is a scalar (shape ()); legacy (V2) records cannot store ndim 0`, {
      op,
      hint: 'save with npShape: true (V3 records) or reshape it to (1,)',
    });
  }
  w.u32(npShape ? NDARRAY_V3_MAGIC : NDARRAY_V2_MAGIC);
  w.i32(0);
  w.i32(a.shape.length);
  for (const d of a.shape) w.i64(d);
  const ctx = a.ctx ?? CPU0;
  w.i32(ctx.devType);
  w.i32(ctx.devId);
  w.i32(DType[a.dtype].flag);
  w.bytes(bytesOfStorage(a.data));
}

/** MXNDArrayLoadFromRawBytes: one record with no list header; trailing bytes are ignored, as MXNet. */
export function loadMXNetRecord(
  bytes: Uint8Array,
  options: { npShape?: NpShapeMode; source?: string } = {},
): HostArray {
  const r = new ByteReader(bytes, 'loadMXNetRecord', options.source);
  r.where = 'record 0';
  return readRecord(r, options.npShape ?? true);
}

/** MXNDArraySaveRawBytes: one record with no list header. */
export function saveMXNetRecord(a: HostArray, options: { npShape?: boolean } = {}): Uint8Array {
  const w = new ByteWriter();
  writeRecord(w, a, options.npShape ?? true, 'saveMXNetRecord', 'array');
  return w.finish();
}
