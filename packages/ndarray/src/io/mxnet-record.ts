/**
 * One MXNet NDArray record (`NDArray::Save`/`Load` in src/ndarray/ndarray.cc), the unit of the list
 * file and of the raw bytes behind pickling (`MXNDArraySaveRawBytes`/`LoadFromRawBytes`).
 *
 * Versions, told apart by the first u32:
 * - V3 `0xF993FACA` (np-shape on, MXNet 2.0's default): ndim 0 is a scalar, ndim or a dim of -1 is
 *   "none" and ends the record; dense only.
 * - V2 `0xF993FAC9` (np-shape off): stype, sparse storage shape, shape; ndim 0 is "none" and ends
 *   the record. Under np-shape semantics (`npShape: 'global'`, MXNet's GlobalOn) MXNet reads it with
 *   V3's shape rules instead (ndim 0 a scalar, -1 "none"), and so do we.
 * - V1 `0xF993FAC8`: i64 TShape, ctx, dtype, data.  V0: that u32 *is* ndim, dims are u32.
 *   ndim 0, ndim -1 or a dim of -1 is "none" (what the MXNet versions that wrote these files meant).
 * Mixing semantics fails as in MXNet: V3 needs np-shape on; V0..V2 need it off, unless it is on
 * globally. Sparse records are parsed completely (so a reader never mis-steps) and then refused.
 *
 * Reading is split in two: {@link scanRecord} walks a record and validates every field without
 * allocating anything, so a list loader can check the whole file (and its size budget) before any
 * array exists; {@link materialise} then copies the data. A "none" record (MXNet's uninitialised
 * `NDArray()`) comes back as the explicit value `{ none: true, shape: [], dtype: 'float32', data:
 * Float32Array(0) }`; nothing writes one (MXNet itself cannot save an uninitialised NDArray:
 * `num_aux_data(kUndefinedStorage)` is fatal), and `nd.load` refuses it, as it has no such array.
 * The device of a record must be one MXNet can name: type cpu (1), gpu (2), cpu_pinned (3) or
 * cpu_shared (5), id in [0, 16) (MXNet's `Context::kMaxDevID`).
 */
import { ALL_DTYPES, DType, type DTypeName, dtypeFromFlag, MXNetError, shapeToString } from '@mx/base';
import { ByteReader, ByteWriter, bytesOfStorage, storageFromBytes } from './bytes.js';
import { Budget, type LoadLimits } from './limits.js';
import { CPU0, checkHostArray, elementCount, type HostArray, type HostContext, noneArray } from './types.js';

/** Largest ndim accepted for a V0 record (NumPy's limit); bigger first words are unknown magics. */
const MAX_V0_NDIM = 64;
/** MXNet's `Context::kMaxDevID`: device ids are below it. */
export const MAX_RECORD_DEVICE_ID = 16;
const DEVICE_NAMES: Readonly<Record<number, string>> = {
  1: 'cpu',
  2: 'gpu',
  3: 'cpu_pinned',
  5: 'cpu_shared',
};

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

/** A problem that leaves the record's layout intact, reported once the record's name is known. */
export interface RecordProblem {
  /** Corruption (reported with "corrupted:" and the offset) or an unsupported feature. */
  readonly corrupt: boolean;
  readonly message: string;
  readonly offset: number;
  readonly hint: string;
}

/** Where one record's parts are, found without allocating its data. */
export interface RecordLayout {
  /** Offset of the record's first byte. */
  readonly at: number;
  /** A "none" record (no context, dtype or data). */
  readonly none: boolean;
  readonly shape: number[];
  readonly dtype: DTypeName;
  readonly ctx: HostContext;
  /** Offset and length of the element data (dense records). */
  readonly dataAt: number;
  readonly dataBytes: number;
  /** Set for records that are well formed but cannot be loaded (sparse, unknown device). */
  readonly problem?: RecordProblem;
}

/** Walks the record at the reader's position, checking every field; allocates no array data. */
export function scanRecord(r: ByteReader, npShape: NpShapeMode): RecordLayout {
  const at = r.pos;
  const magic = r.u32('record magic or ndim');
  const known = magic === NDARRAY_V1_MAGIC || magic === NDARRAY_V2_MAGIC || magic === NDARRAY_V3_MAGIC;
  if (!known && magic > MAX_V0_NDIM) {
    throw r.corrupt(
      `unknown record magic 0x${magic.toString(16)} (not V1/V2/V3, too large for a V0 ndim)`,
      at,
    );
  }
  if (magic === NDARRAY_V3_MAGIC) {
    if (npShape === false) {
      throw r.corrupt(
        'ndarray was saved in np shape semantics, must be loaded in the same semantics',
        at,
        LOAD_NP_HINT,
      );
    }
  } else if (npShape === true) {
    throw r.corrupt(
      'ndarray was not saved in np shape semantics, but being loaded in np shape semantics',
      at,
      LOAD_LEGACY_HINT,
    );
  }
  if (magic === NDARRAY_V2_MAGIC || magic === NDARRAY_V3_MAGIC) {
    return scanV2V3(r, at, magic === NDARRAY_V3_MAGIC, npShape !== false);
  }
  // V1 and V0 (LegacyLoad): no storage type.
  const shape = magic === NDARRAY_V1_MAGIC ? readShape(r, true, true) : readV0Shape(r, magic);
  if (shape === null) return noneLayout(at);
  return scanBody(r, at, shape, null);
}

function noneLayout(at: number): RecordLayout {
  return { at, none: true, shape: [], dtype: 'float32', ctx: CPU0, dataAt: at, dataBytes: 0 };
}

function scanV2V3(r: ByteReader, at: number, v3: boolean, npSemantics: boolean): RecordLayout {
  const stypeAt = r.pos;
  const stype = r.i32('storage type');
  if (stype !== 0 && stype !== 1 && stype !== 2) {
    throw r.corrupt(
      `storage type ${stype}${stype === -1 ? ' (undefined)' : ''} cannot be loaded (MXNet fails on it too)`,
      stypeAt,
    );
  }
  const sparse = stype !== 0;
  // MXNet: only default storage under np-shape semantics.
  if ((v3 || npSemantics) && sparse) {
    throw r.corrupt(
      `only default storage is allowed in np shape semantics, found ${STYPE_NAMES[stype]}`,
      stypeAt,
    );
  }
  const storageShape = sparse ? readShape(r, false, false) : null;
  if (sparse && (storageShape === null || storageShape.length === 0)) {
    throw r.corrupt('sparse storage shape is empty', stypeAt + 4);
  }
  // np semantics: -1 means unknown ("none"), ndim 0 a scalar; legacy: ndim 0 is "none".
  const shape = readShape(r, npSemantics, !npSemantics);
  if (shape === null) return noneLayout(at);
  if (!sparse) return scanBody(r, at, shape, null);
  return scanBody(r, at, shape, { stype, storageShape: storageShape ?? [] });
}

/** Context, dtype flag and data (plus a sparse record's aux arrays) after the shape. */
function scanBody(
  r: ByteReader,
  at: number,
  shape: number[],
  sparse: { stype: number; storageShape: number[] } | null,
): RecordLayout {
  const ctxAt = r.pos;
  const devType = r.i32('context dev_type');
  const devId = r.i32('context dev_id');
  const ctx = devType === CPU0.devType && devId === CPU0.devId ? CPU0 : { devType, devId };
  let problem: RecordProblem | undefined;
  const device = DEVICE_NAMES[devType];
  if (device === undefined || devId < 0 || devId >= MAX_RECORD_DEVICE_ID) {
    problem = {
      corrupt: true,
      message: `invalid device: dev_type ${devType}, dev_id ${devId}`,
      offset: ctxAt,
      hint: `MXNet devices are cpu (1), gpu (2), cpu_pinned (3), cpu_shared (5) with ids 0..${MAX_RECORD_DEVICE_ID - 1}; the file is corrupt`,
    };
  }
  const dtype = readDType(r, 'dtype flag');
  if (sparse === null) {
    const dataAt = r.pos;
    const dataBytes = dataSize(r, dtype, shape, `${dtype} data for shape ${shapeToString(shape)}`);
    r.skip(dataBytes);
    return problem === undefined
      ? { at, none: false, shape, dtype, ctx, dataAt, dataBytes }
      : { at, none: false, shape, dtype, ctx, dataAt, dataBytes, problem };
  }
  // Sparse: aux dtypes and shapes, then the values (storage shape), then each aux array.
  const numAux = sparse.stype === 2 ? 2 : 1;
  const aux: { dtype: DTypeName; shape: number[] }[] = [];
  for (let i = 0; i < numAux; i++) {
    const auxType = readDType(r, `aux ${i} dtype flag`);
    aux.push({ dtype: auxType, shape: readShape(r, false, false) ?? [] });
  }
  r.skip(dataSize(r, dtype, sparse.storageShape, `${dtype} sparse values`));
  for (const [i, a] of aux.entries()) r.skip(dataSize(r, a.dtype, a.shape, `aux ${i} ${a.dtype} data`));
  return {
    at,
    none: false,
    shape,
    dtype,
    ctx,
    dataAt: r.pos,
    dataBytes: 0,
    problem: problem ?? {
      corrupt: false,
      message:
        `sparse arrays are not supported yet: ${STYPE_NAMES[sparse.stype]} array of shape ${shapeToString(shape)}, ` +
        `${dtype}, ${elementCount(sparse.storageShape)} stored values`,
      offset: at,
      hint: 'convert it to a dense array (tostype("default")) with MXNet before saving',
    },
  };
}

/** Bytes of `shape` x `dtype`; a truncation error unless they are all in the file. */
function dataSize(r: ByteReader, dtype: DTypeName, shape: readonly number[], what: string): number {
  const n = shape.includes(0) ? 0 : elementCount(shape) * DType[dtype].bytes;
  if (!Number.isSafeInteger(n)) {
    throw r.corrupt(`shape ${shapeToString(shape)} is too large for any file`, r.pos);
  }
  r.need(n, what);
  return n;
}

/**
 * TShape: i32 ndim + ndim x i64. Returns null for "none": ndim -1 or a dim of -1 when `unknownIsNone`
 * (np semantics, V1), ndim 0 when `zeroIsNone` (legacy semantics). Other negatives are corruption.
 */
function readShape(r: ByteReader, unknownIsNone: boolean, zeroIsNone: boolean): number[] | null {
  const at = r.pos;
  const ndim = r.i32('shape ndim');
  if (ndim === -1 && unknownIsNone) return null;
  if (ndim < 0) throw r.corrupt(`shape ndim ${ndim} is negative`, at);
  r.need(ndim * 8, `${ndim} shape dims`);
  const shape: number[] = [];
  let none = ndim === 0 && zeroIsNone;
  for (let i = 0; i < ndim; i++) {
    const dimAt = r.pos;
    const d = r.i64('shape dim');
    if (d === -1 && unknownIsNone) none = true;
    else if (d < 0) throw r.corrupt(`shape dim ${i} is ${d}`, dimAt);
    shape.push(d);
  }
  return none ? null : shape;
}

/** V0: the magic word was ndim (0 is "none"); u32 dims follow. */
function readV0Shape(r: ByteReader, ndim: number): number[] | null {
  r.need(ndim * 4, `${ndim} V0 shape dims`);
  const shape: number[] = [];
  for (let i = 0; i < ndim; i++) shape.push(r.u32('V0 shape dim'));
  return ndim === 0 ? null : shape;
}

function readDType(r: ByteReader, what: string): DTypeName {
  const at = r.pos;
  const flag = r.i32(what);
  if (flag < 0 || flag >= ALL_DTYPES.length) {
    throw r.corrupt(`unknown dtype flag ${flag} (MXNet's flags are 0..${ALL_DTYPES.length - 1})`, at);
  }
  return dtypeFromFlag(flag).name;
}

/** The host array of a scanned record, its data copied out of `bytes`. */
export function materialise(layout: RecordLayout, bytes: Uint8Array): HostArray {
  if (layout.none) return noneArray();
  const data = storageFromBytes(
    layout.dtype,
    bytes.subarray(layout.dataAt, layout.dataAt + layout.dataBytes),
    false,
  );
  return { shape: layout.shape, dtype: layout.dtype, data, ctx: layout.ctx };
}

/** Throws the record's deferred problem, if any, naming it as `what`. */
export function throwProblem(r: ByteReader, layout: RecordLayout, what: string): void {
  if (layout.problem === undefined) return;
  const p = layout.problem;
  r.where = what;
  throw p.corrupt ? r.corrupt(p.message, p.offset, p.hint) : r.error(p.message, p.hint);
}

/**
 * Appends one record: V3 when `npShape` (MXNet 2.0's default), else V2. Checks `a` first and
 * refuses what MXNet cannot write: scalars in V2 (ndim 0 means "none" there) and "none" arrays.
 */
export function writeRecord(w: ByteWriter, a: HostArray, npShape: boolean, op: string, what: string): void {
  checkHostArray(op, a, what);
  if (a.none === true) {
    throw new MXNetError(`${what} is a "none" array (an uninitialised NDArray); it cannot be saved`, {
      op,
      hint: 'MXNet cannot save an uninitialised NDArray either: drop it, or give it a value first',
    });
  }
  if (!npShape && a.shape.length === 0) {
    throw new MXNetError(
      `${what} is zero-dimensional (shape ()); legacy (npShape: false, V2) records cannot store it: ` +
        'there ndim 0 means an uninitialised "none" array',
      { op, hint: 'save with npShape: true (V3 records, the default) or reshape it to (1,)' },
    );
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

/**
 * MXNDArrayLoadFromRawBytes: one record with no list header. Unlike MXNet, the record must end
 * exactly where the bytes end (pickled state never has trailing bytes).
 */
export function loadMXNetRecord(
  bytes: Uint8Array,
  options: { npShape?: NpShapeMode; source?: string } & LoadLimits = {},
): HostArray {
  const op = 'loadMXNetRecord';
  const budget = new Budget(op, options.source, bytes.length, options);
  const r = new ByteReader(bytes, op, options.source);
  r.where = 'record 0';
  const layout = scanRecord(r, options.npShape ?? true);
  r.expectEnd('the record');
  throwProblem(r, layout, 'record 0');
  budget.charge(layout.dataBytes, 'record 0');
  return materialise(layout, bytes);
}

/** MXNDArraySaveRawBytes: one record with no list header. */
export function saveMXNetRecord(a: HostArray, options: { npShape?: boolean } = {}): Uint8Array {
  const w = new ByteWriter();
  writeRecord(w, a, options.npShape ?? true, 'saveMXNetRecord', 'array');
  return w.finish();
}
