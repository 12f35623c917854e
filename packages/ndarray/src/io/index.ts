/**
 * MXNet and NumPy array files at the host level: plain typed arrays in, bytes out, and back.
 * The NDArray layer (`nd.save`/`nd.load`, `npx.save`/`npx.load`, Gluon parameters) calls these.
 *
 * - MXNet list files (`nd.save`): {@link saveMXNetList}/{@link loadMXNetList}, records V0..V3;
 *   single raw records (pickling): {@link saveMXNetRecord}/{@link loadMXNetRecord}.
 * - NumPy: {@link saveNpy}/{@link loadNpy}, {@link saveNpz}/{@link loadNpz}.
 * - SciPy sparse matrices (`scipy.sparse.save_npz`): {@link saveScipyNpz}/{@link loadScipyNpz}.
 * - {@link loadAny} dispatches on the first bytes, as `MXNDArrayLoad`.
 * - {@link gunzip}: bounded gzip decompression (IDX files in @mx/io).
 *
 * Every loader is strict (the whole input must be exactly what its headers say) and bounded
 * ({@link LoadLimits}: what one load may decode is capped before it is allocated).
 */
import type { LoadLimits } from './limits.js';
import { loadMXNetList } from './mxnet-list.js';
import type { NpShapeMode } from './mxnet-record.js';
import { loadNpy } from './npy.js';
import { loadNpz } from './npz.js';
import type { HostRecord, LoadedList } from './types.js';

export { type GunzipOptions, gunzip, isGzip } from './gzip.js';
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_EXPANSION, type LoadLimits } from './limits.js';
export { loadMXNetList, type MXNetListLoadOptions, NDARRAY_LIST_MAGIC, saveMXNetList } from './mxnet-list.js';
export {
  loadMXNetRecord,
  type MXNetRecordLoadOptions,
  NDARRAY_V1_MAGIC,
  NDARRAY_V2_MAGIC,
  NDARRAY_V3_MAGIC,
  type NpShapeMode,
  saveMXNetRecord,
} from './mxnet-record.js';
export { loadNpy, saveNpy } from './npy.js';
export { loadNpz, saveNpz } from './npz.js';
export {
  isScipySparseLayout,
  type LoadedScipyNpz,
  loadScipyNpz,
  type ScipyCsr,
  type ScipySparseFormat,
  saveScipyNpz,
} from './scipy-npz.js';
export {
  type ArrayCollection,
  type HostArray,
  type HostContext,
  type HostRecord,
  type HostSparseArray,
  isHostSparse,
  type LoadedList,
} from './types.js';

/** Which format `bytes` is in, from its first four bytes (as `MXNDArrayLoad`). */
export function detectArrayFileFormat(bytes: Uint8Array): 'npz' | 'npy' | 'mxnet' {
  if (bytes.length >= 4) {
    const v = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    // A zip local header or an empty archive's end record, read in either byte order.
    if (v === 0x04034b50 || v === 0x06054b50 || v === 0x504b0304 || v === 0x504b0506) return 'npz';
    if (v === 0x4d554e93) return 'npy';
  }
  return 'mxnet';
}

/** Options of {@link loadAny}: `npShape` and `sparse` apply to MXNet lists. */
export type LoadAnyOptions = { npShape?: NpShapeMode; sparse?: boolean } & LoadLimits;

/**
 * Loads an array file of any supported format: npz (names from the archive), npy (one array, no
 * names) or an MXNet list. `options.npShape` applies to MXNet lists (default true, MXNet 2.0), and
 * so does `options.sparse` (return csr/row_sparse records instead of refusing them);
 * `maxBytes`/`maxExpansion` cap what the load may decode ({@link LoadLimits}).
 */
export function loadAny(
  bytes: Uint8Array,
  source?: string,
  options?: LoadAnyOptions & { sparse?: false },
): LoadedList;
export function loadAny(
  bytes: Uint8Array,
  source: string | undefined,
  options: LoadAnyOptions,
): LoadedList<HostRecord>;
export function loadAny(
  bytes: Uint8Array,
  source?: string,
  options: LoadAnyOptions = {},
): LoadedList<HostRecord> {
  const limits: LoadLimits = { maxBytes: options.maxBytes, maxExpansion: options.maxExpansion };
  switch (detectArrayFileFormat(bytes)) {
    case 'npz':
      return loadNpz(bytes, source, limits);
    case 'npy':
      return { arrays: [loadNpy(bytes, source, limits)], names: null };
    case 'mxnet':
      return loadMXNetList(bytes, { ...options, ...(source === undefined ? {} : { source }) });
  }
}
