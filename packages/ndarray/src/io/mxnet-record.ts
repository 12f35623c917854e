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
 * globally. Sparse records (csr, row_sparse: V2 only, mxnet-sparse.ts) are read by the loaders
 * called with `sparse: true`; the others parse them completely (so a reader never mis-steps) and
 * then refuse them.
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
import { DType, type DTypeName, MXNetError, shapeToString } from '@mx/base';
import { ByteReader, ByteWriter, bytesOfStorage, storageFromBytes } from './bytes.js';
import { Budget, type LoadLimits } from './limits.js';
import {
  checkHostSparse,
  materialiseSparse,
  type SparseLayout,
  scanSparseData,
  sparseValueRule,
  writeSparseBody,
} from './mxnet-sparse.js';
import { dataSize, readDType, readShape } from './record-fields.js';
import {
  CPU0,
  checkHostArray,
  elementCount,
  type HostArray,
  type HostContext,
  type HostRecord,
  type HostSparseArray,
  isHostSparse,
  noneArray,
} from './types.js';

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
  /** Offset and length of the element data (dense records) or of the stored values (sparse). */
  readonly dataAt: number;
  readonly dataBytes: number;
  /** A sparse record's storage type, storage shape and aux arrays. */
  readonly sparse?: SparseLayout;
  /** Set for records whose layout is intact but which cannot be loaded (unknown device, sparse rules). */
  readonly problem?: RecordProblem;
}

/** Bytes a record's arrays take once copied (values plus a sparse record's aux arrays). */
export function layoutBytes(l: RecordLayout): number {
  let n = l.dataBytes;
  for (const a of l.sparse?.aux ?? []) n += a.bytes;
  return n;
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
      'sparse records load only with npShape: false (MXNet refuses them under np-shape semantics too)',
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
  const stype = sparse.stype === 2 ? 'csr' : 'row_sparse';
  const s = scanSparseData(r, stype, sparse.storageShape, shape, dtype);
  const rule = s.sparse.rule;
  if (problem === undefined && rule !== undefined) {
    problem = {
      corrupt: rule.corrupt,
      message: rule.message,
      offset: at,
      hint: rule.corrupt
        ? 'the file is corrupt: its sizes do not describe one sparse array'
        : 'convert the array to int64 indices with MXNet before saving',
    };
  }
  const layout = {
    at,
    none: false,
    shape,
    dtype,
    ctx,
    dataAt: s.dataAt,
    dataBytes: s.dataBytes,
    sparse: s.sparse,
  };
  return problem === undefined ? layout : { ...layout, problem };
}

/**
 * Throws unless a sparse record may be loaded here: callers that cannot hold sparse arrays
 * (`sparse` false) refuse them, naming the record `what`.
 */
export function refuseSparse(r: ByteReader, layout: RecordLayout, what: string, op: string): void {
  if (layout.sparse === undefined) return;
  r.where = what;
  throw r.error(
    `${op} reads dense arrays only, and this is a ${layout.sparse.stype} array of shape ${shapeToString(layout.shape)}, ` +
      `${layout.dtype}, ${elementCount(layout.sparse.storageShape)} stored values`,
    `pass sparse: true (nd.load does) to read sparse records, or convert the array with tostype("default") before saving`,
  );
}

/** V0: the magic word was ndim (0 is "none"); u32 dims follow. */
function readV0Shape(r: ByteReader, ndim: number): number[] | null {
  r.need(ndim * 4, `${ndim} V0 shape dims`);
  const shape: number[] = [];
  for (let i = 0; i < ndim; i++) shape.push(r.u32('V0 shape dim'));
  return ndim === 0 ? null : shape;
}

/**
 * The host array of a scanned record, its data copied out of `bytes`. A sparse record's index
 * values are checked here (MXNet's full `check_format`), the error naming the record `what`.
 */
export function materialise(
  r: ByteReader,
  layout: RecordLayout,
  bytes: Uint8Array,
  what: string,
): HostRecord {
  if (layout.none) return noneArray();
  if (layout.sparse !== undefined) {
    const { shape, dtype, ctx, dataAt, dataBytes } = layout;
    const a = materialiseSparse(layout.sparse, shape, dtype, ctx, dataAt, dataBytes, bytes);
    const why = sparseValueRule(a);
    if (why !== undefined) {
      r.where = what;
      throw r.corrupt(why, layout.at, 'the file is corrupt: its indices do not describe one sparse array');
    }
    return a;
  }
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
export function writeRecord(w: ByteWriter, a: HostRecord, npShape: boolean, op: string, what: string): void {
  if (isHostSparse(a)) {
    checkHostSparse(op, a, what);
    if (npShape) {
      throw new MXNetError(
        `${what} is a ${a.stype} array: only arrays of default storage can be saved in np shape semantics (V3 records)`,
        { op, hint: 'save with npShape: false (V2 records, which hold sparse arrays), as MXNet 1.x does' },
      );
    }
    w.u32(NDARRAY_V2_MAGIC);
    writeSparseBody(w, a, a.ctx ?? CPU0);
    return;
  }
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

/** Options of {@link loadMXNetRecord}. */
export interface MXNetRecordLoadOptions extends LoadLimits {
  readonly npShape?: NpShapeMode;
  readonly source?: string;
  /** Return sparse records as {@link HostSparseArray}s; without it they are refused. */
  readonly sparse?: boolean;
}

/**
 * MXNDArrayLoadFromRawBytes: one record with no list header. Unlike MXNet, the record must end
 * exactly where the bytes end (pickled state never has trailing bytes).
 */
export function loadMXNetRecord(
  bytes: Uint8Array,
  options?: MXNetRecordLoadOptions & { sparse?: false },
): HostArray;
export function loadMXNetRecord(bytes: Uint8Array, options: MXNetRecordLoadOptions): HostRecord;
export function loadMXNetRecord(bytes: Uint8Array, options: MXNetRecordLoadOptions = {}): HostRecord {
  const op = 'loadMXNetRecord';
  const budget = new Budget(op, options.source, bytes.length, options);
  const r = new ByteReader(bytes, op, options.source);
  r.where = 'record 0';
  const layout = scanRecord(r, options.npShape ?? true);
  r.expectEnd('the record');
  throwProblem(r, layout, 'record 0');
  if (options.sparse !== true) refuseSparse(r, layout, 'record 0', op);
  budget.charge(layoutBytes(layout), 'record 0');
  return materialise(r, layout, bytes, 'record 0');
}

/** MXNDArraySaveRawBytes: one record with no list header (sparse records need `npShape: false`). */
export function saveMXNetRecord(a: HostRecord, options: { npShape?: boolean } = {}): Uint8Array {
  const w = new ByteWriter();
  writeRecord(w, a, options.npShape ?? true, 'saveMXNetRecord', 'array');
  return w.finish();
}
