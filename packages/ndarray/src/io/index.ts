/**
 * MXNet and NumPy array files at the host level: plain typed arrays in, bytes out, and back.
 * The NDArray layer (`nd.save`/`nd.load`, `npx.save`/`npx.load`, Gluon parameters) calls these.
 *
 * - MXNet list files (`nd.save`): {@link saveMXNetList}/{@link loadMXNetList}, records V0..V3;
 *   single raw records (pickling): {@link saveMXNetRecord}/{@link loadMXNetRecord}.
 * - NumPy: {@link saveNpy}/{@link loadNpy}, {@link saveNpz}/{@link loadNpz}.
 * - {@link loadAny} dispatches on the first bytes, as `MXNDArrayLoad`.
 */
import { loadMXNetList } from './mxnet-list.js';
import type { NpShapeMode } from './mxnet-record.js';
import { loadNpy } from './npy.js';
import { loadNpz } from './npz.js';
import type { LoadedList } from './types.js';

export { loadMXNetList, NDARRAY_LIST_MAGIC, saveMXNetList } from './mxnet-list.js';
export {
  loadMXNetRecord,
  NDARRAY_V1_MAGIC,
  NDARRAY_V2_MAGIC,
  NDARRAY_V3_MAGIC,
  type NpShapeMode,
  saveMXNetRecord,
} from './mxnet-record.js';
export { loadNpy, saveNpy } from './npy.js';
export { loadNpz, saveNpz } from './npz.js';
export type { ArrayCollection, HostArray, HostContext, LoadedList } from './types.js';

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

/**
 * Loads an array file of any supported format: npz (names from the archive), npy (one array, no
 * names) or an MXNet list. `options.npShape` applies to MXNet lists (default true, MXNet 2.0).
 */
export function loadAny(
  bytes: Uint8Array,
  source?: string,
  options: { npShape?: NpShapeMode } = {},
): LoadedList {
  switch (detectArrayFileFormat(bytes)) {
    case 'npz':
      return loadNpz(bytes, source);
    case 'npy':
      return { arrays: [loadNpy(bytes, source)], names: null };
    case 'mxnet':
      return source === undefined
        ? loadMXNetList(bytes, options)
        : loadMXNetList(bytes, { ...options, source });
  }
}
