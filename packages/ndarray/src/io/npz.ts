/**
 * NumPy `.npz` archives, as `npx.savez`/`npx.load`: a ZIP of `.npy` entries, stored without
 * compression, named `<key>.npy` (positional arrays `arr_0`, `arr_1`, ...).
 *
 * Loading keeps the archive's order and skips entries that are not `.npy` (as MXNet). Folders that
 * match SciPy's or MXNet's sparse layouts (`<name>/data.npy`, `indices.npy`, `indptr.npy`, ...) are
 * reported as unsupported rather than loaded as unrelated dense pieces. The archive is checked
 * strictly (zip-read.ts: directory and local headers agree, members tile the file, CRCs match) and
 * its declared sizes are charged to the load's {@link Budget} before anything is inflated; every
 * member must be a strict `.npy` (npy.ts).
 */
import { Budget, type LoadLimits } from './limits.js';
import { readNpy, saveNpy } from './npy.js';
import { isScipySparseLayout } from './scipy-npz.js';
import { type ArrayCollection, DEFAULT_SOURCE, entriesOf, fileError, type HostArray } from './types.js';
import { readZip, writeZip } from './zip.js';

/** Writes an uncompressed `.npz`; a list is named `arr_0`, `arr_1`, ... */
export function saveNpz(arrays: ArrayCollection): Uint8Array {
  const { arrays: list, names } = entriesOf(arrays);
  const entries = list.map((a, i) => ({
    name: `${names === null ? `arr_${i}` : names[i]}.npy`,
    data: saveNpy(a),
  }));
  return writeZip(entries, 'saveNpz');
}

const SPARSE_LAYOUTS: readonly { readonly format: string; readonly files: readonly string[] }[] = [
  { format: 'csr/csc/bsr', files: ['data', 'indices', 'indptr', 'format', 'shape'] },
  { format: 'row_sparse', files: ['data', 'indices', 'format', 'shape'] },
  { format: 'coo', files: ['data', 'row', 'col', 'format', 'shape'] },
  { format: 'dia', files: ['data', 'offsets', 'format', 'shape'] },
];

/**
 * Reads a `.npz`: arrays and their names (entry names without `.npy`), in archive order. `limits`
 * caps the bytes it may decode (see {@link LoadLimits}).
 */
export function loadNpz(
  bytes: Uint8Array,
  source?: string,
  limits?: LoadLimits,
): { arrays: HostArray[]; names: string[] } {
  const budget = new Budget('loadNpz', source, bytes.length, limits);
  const all = readZip(bytes, 'loadNpz', source, budget);
  if (isScipySparseLayout(all.map((e) => e.name))) {
    throw fileError(
      'loadNpz',
      source,
      'this is a scipy.sparse matrix (scipy.sparse.save_npz layout)',
      'load it with nd.sparse.loadNpz',
    );
  }
  const entries = all.filter((e) => e.name.endsWith('.npy'));
  const folders = new Map<string, Set<string>>();
  for (const e of entries) {
    const slash = e.name.lastIndexOf('/');
    if (slash < 0) continue;
    const dir = e.name.slice(0, slash);
    const set = folders.get(dir) ?? new Set<string>();
    set.add(e.name.slice(slash + 1, -4));
    folders.set(dir, set);
  }
  for (const [dir, files] of folders) {
    const layout = SPARSE_LAYOUTS.find(
      (l) => l.files.length === files.size && l.files.every((f) => files.has(f)),
    );
    if (layout !== undefined) {
      throw fileError(
        'loadNpz',
        source,
        `sparse arrays are not supported yet: "${dir}" holds a ${layout.format} sparse array (${layout.files.map((f) => `${dir}/${f}.npy`).join(', ')})`,
        'convert it to a dense array before saving',
      );
    }
  }
  const arrays: HostArray[] = [];
  const names: string[] = [];
  for (const e of entries) {
    const name = e.name.slice(0, -4);
    // The member's bytes were charged by readZip; the array is a copy of them.
    arrays.push(readNpy(e.data, `${source ?? DEFAULT_SOURCE}[${e.name}]`, null));
    names.push(name);
  }
  return { arrays, names };
}
