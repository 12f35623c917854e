/**
 * MXNet's NDArray list file (`NDArray::Save/Load` for vectors, used by `nd.save`, `nd.load` and
 * 1.x Gluon `.params`): u64 0x112, u64 reserved, u64 N + N records, u64 K + K names
 * (u64 length + UTF-8 bytes). K is 0 (a list) or N (a dict). dmlc's vector serialisation.
 *
 * Loading is all or nothing: any problem raises an MXNetError naming the file, the record and the
 * byte offset; nothing is returned partially.
 */
import { MXNetError } from '@mx/base';
import { ByteReader, ByteWriter } from './bytes.js';
import { type NpShapeMode, readRecord, writeRecord } from './mxnet-record.js';
import { type ArrayCollection, entriesOf, type HostArray, type LoadedList } from './types.js';

export const NDARRAY_LIST_MAGIC = 0x112;

/** Smallest possible record: a V0 record of ndim 0 is just its u32. */
const MIN_RECORD_BYTES = 4;

/**
 * Writes a list file: V3 records when `npShape` (default true, MXNet 2.0), V2 otherwise.
 * A dict stores its keys as names, in insertion order.
 */
export function saveMXNetList(arrays: ArrayCollection, options: { npShape?: boolean } = {}): Uint8Array {
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

/**
 * Reads a list file. `npShape` follows MXNet's switch: true (default) accepts V3 records only,
 * false accepts V0/V1/V2 only, 'global' accepts both (MXNet's GlobalOn).
 */
export function loadMXNetList(
  bytes: Uint8Array,
  options: { npShape?: NpShapeMode; source?: string } = {},
): LoadedList {
  const r = new ByteReader(bytes, 'loadMXNetList', options.source);
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
  r.u64('reserved field');
  const countAt = r.pos;
  const n = r.u64('array count');
  if (n * MIN_RECORD_BYTES > r.remaining) {
    throw r.corrupt(`array count ${n} does not fit in the ${r.remaining} bytes left`, countAt);
  }
  const arrays: HostArray[] = [];
  for (let i = 0; i < n; i++) {
    r.where = `record ${i}`;
    arrays.push(readRecord(r, npShape));
  }
  r.where = 'names';
  const kAt = r.pos;
  const k = r.u64('name count');
  if (k !== 0 && k !== n) {
    throw r.corrupt(`invalid NDArray file format: ${k} names for ${n} arrays`, kAt);
  }
  if (k === 0) return { arrays, names: null };
  const dec = new TextDecoder('utf-8', { fatal: true });
  const names: string[] = [];
  for (let i = 0; i < k; i++) {
    r.where = `name ${i}`;
    const len = r.u64('name length');
    const at = r.pos;
    const raw = r.take(len, 'name bytes');
    try {
      names.push(dec.decode(raw));
    } catch {
      throw r.corrupt('name is not valid UTF-8', at);
    }
  }
  return { arrays, names };
}
