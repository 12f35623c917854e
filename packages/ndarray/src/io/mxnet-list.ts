/**
 * MXNet's NDArray list file (`NDArray::Save/Load` for vectors, used by `nd.save`, `nd.load` and
 * 1.x Gluon `.params`): u64 0x112, u64 reserved (0), u64 N + N records, u64 K + K names
 * (u64 length + UTF-8 bytes). dmlc's vector serialisation. K is 0 (a list: `nd.save` of a list,
 * or of an empty dict) or N (a dict); MXNet checks exactly that, and returns a list when K is 0.
 *
 * Loading is strict and all or nothing. The whole input must be consumed exactly: trailing bytes
 * (which is what a name count damaged to 0, or a shrunk array count, leaves behind), shortfalls,
 * count mismatches, a non-zero reserved field, duplicate names and invalid devices or dtype flags
 * are MXNetErrors naming the file, the record (index, and name once the names are read: they
 * follow the records) and the byte offset. The file is scanned completely before any array data is
 * copied, so a corrupt file allocates nothing and a valid one is charged to the load's
 * {@link Budget} first.
 */
import { MXNetError } from '@mx/base';
import { ByteReader, ByteWriter } from './bytes.js';
import { Budget, type LoadLimits } from './limits.js';
import {
  layoutBytes,
  materialise,
  type NpShapeMode,
  type RecordLayout,
  refuseSparse,
  scanRecord,
  throwProblem,
  writeRecord,
} from './mxnet-record.js';
import { type ArrayCollection, entriesOf, type HostRecord, type LoadedList } from './types.js';

export const NDARRAY_LIST_MAGIC = 0x112;

/** Smallest possible record: a V0 record of ndim 0 is just its u32. */
const MIN_RECORD_BYTES = 4;

/**
 * Writes a list file: V3 records when `npShape` (default true, MXNet 2.0), V2 otherwise.
 * A dict stores its keys as names, in insertion order. Sparse arrays need V2 (`npShape: false`).
 */
export function saveMXNetList(
  arrays: ArrayCollection<HostRecord>,
  options: { npShape?: boolean } = {},
): Uint8Array {
  const op = 'saveMXNetList';
  const npShape = options.npShape ?? true;
  const { arrays: list, names } = entriesOf(arrays);
  const w = new ByteWriter();
  w.u64(NDARRAY_LIST_MAGIC);
  w.u64(0);
  w.u64(list.length);
  list.forEach((a, i) => {
    writeRecord(w, a, npShape, op, names === null ? `array ${i}` : `array "${names[i]}"`);
  });
  if (names === null) {
    w.u64(0);
  } else {
    const enc = new TextEncoder();
    w.u64(names.length);
    for (const n of names) {
      if (typeof n !== 'string') throw new MXNetError('array names must be strings', { op });
      const b = enc.encode(n);
      w.u64(b.length);
      w.bytes(b);
    }
  }
  return w.finish();
}

/** Options of {@link loadMXNetList}. */
export interface MXNetListLoadOptions extends LoadLimits {
  /** MXNet's np-shape switch: true (default) V3 only, false V0..V2 only, 'global' both. */
  readonly npShape?: NpShapeMode;
  /** Names the file in errors; default "<bytes>". */
  readonly source?: string;
  /**
   * Return csr/row_sparse records as {@link HostSparseArray}s (V2 records, `npShape: false`);
   * without it (the default) a sparse record is refused, so callers that only handle dense
   * arrays never see one.
   */
  readonly sparse?: boolean;
}

/**
 * Reads a list file. `npShape` follows MXNet's switch: true (default) accepts V3 records only,
 * false accepts V0/V1/V2 only, 'global' accepts both (MXNet's GlobalOn; sparse records, as in
 * MXNet, only with false). `sparse: true` returns sparse records too.
 */
export function loadMXNetList(
  bytes: Uint8Array,
  options?: MXNetListLoadOptions & { sparse?: false },
): LoadedList;
export function loadMXNetList(bytes: Uint8Array, options: MXNetListLoadOptions): LoadedList<HostRecord>;
export function loadMXNetList(bytes: Uint8Array, options: MXNetListLoadOptions = {}): LoadedList<HostRecord> {
  const op = 'loadMXNetList';
  const budget = new Budget(op, options.source, bytes.length, options);
  const r = new ByteReader(bytes, op, options.source);
  const npShape = options.npShape ?? true;
  r.where = 'list header';
  const magicLo = r.u32('list magic');
  const magicHi = r.u32('list magic');
  if (magicLo !== NDARRAY_LIST_MAGIC || magicHi !== 0) {
    throw r.corrupt(
      `invalid NDArray file format: magic 0x${magicHi.toString(16)}${magicLo.toString(16).padStart(8, '0')}, ` +
        'expected 0x112',
      0,
      'this is not an MXNet NDArray file (nor .npy/.npz)',
    );
  }
  const reservedAt = r.pos;
  const reserved = r.u64('reserved field');
  if (reserved !== 0) throw r.corrupt(`the reserved field is ${reserved}, MXNet writes 0`, reservedAt);
  const countAt = r.pos;
  const n = r.u64('array count');
  if (n * MIN_RECORD_BYTES > r.remaining) {
    throw r.corrupt(`array count ${n} does not fit in the ${r.remaining} bytes left`, countAt);
  }
  const layouts: RecordLayout[] = [];
  for (let i = 0; i < n; i++) {
    r.where = `record ${i}`;
    layouts.push(scanRecord(r, npShape));
  }
  r.where = 'names';
  const kAt = r.pos;
  const k = r.u64('name count');
  if (k !== 0 && k !== n) {
    throw r.corrupt(`invalid NDArray file format: ${k} names for ${n} arrays (must be 0 or ${n})`, kAt);
  }
  const names = k === 0 ? null : readNames(r, k);
  r.where = 'names';
  r.expectEnd(k === 0 ? `the name count 0 (a list file ends there)` : 'the last name');
  const what = (i: number) => (names === null ? `record ${i}` : `record ${i} ("${names[i]}")`);
  layouts.forEach((l, i) => {
    throwProblem(r, l, what(i));
    if (options.sparse !== true) refuseSparse(r, l, what(i), op);
  });
  let total = 0;
  for (const l of layouts) total += layoutBytes(l);
  budget.charge(total, `the array data of ${n} records`);
  return { arrays: layouts.map((l, i) => materialise(r, l, bytes, what(i))), names };
}

/** K names: u64 length + UTF-8 bytes each; invalid UTF-8 and duplicates are corruption. */
function readNames(r: ByteReader, k: number): string[] {
  const dec = new TextDecoder('utf-8', { fatal: true });
  const names: string[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < k; i++) {
    r.where = `name ${i}`;
    const lenAt = r.pos;
    const len = r.u64('name length');
    if (len > r.remaining)
      throw r.corrupt(`name length ${len} does not fit in the ${r.remaining} bytes left`, lenAt);
    const at = r.pos;
    const raw = r.take(len, 'name bytes');
    let name: string;
    try {
      name = dec.decode(raw);
    } catch {
      throw r.corrupt('name is not valid UTF-8', at);
    }
    const first = seen.get(name);
    if (first !== undefined) {
      throw r.corrupt(
        `duplicate name "${name}" (also record ${first}'s name): one array would shadow the other`,
        lenAt,
      );
    }
    seen.set(name, i);
    names.push(name);
  }
  return names;
}
