/**
 * `nd.sparse.saveNpz`/`loadNpz`: CSR arrays to and from SciPy's sparse `.npz` layout
 * (`scipy.sparse.save_npz`/`load_npz`), over the host codec in io/scipy-npz.ts.
 *
 * Loading gives what `mx.nd.sparse.array(scipy.sparse.load_npz(f))` gives in MXNet: a CSRNDArray
 * in canonical form (sorted column indices, duplicates summed) with int64 indices, from a csr,
 * csc or coo file; it goes through `csrMatrix`, so nothing is allocated before every check passed
 * and a refusal (bsr/dia files, a data dtype sparse arrays cannot hold) names the file. Saving
 * takes a CSRNDArray (read after its pending writes); SciPy has no row_sparse format, so a
 * RowSparseNDArray is refused with the cast to make, as is a dense array. Like SciPy's
 * `save_npz`, a path without the `.npz` extension gets it appended.
 *
 * Paths work in Node (`process.getBuiltinModule('node:fs')`, never imported, so browser bundles
 * stay free of fs); the `Bytes` variants work everywhere.
 */
import { type Context, isMXNetError, MXNetError, nodeBuiltin } from '@mx/base';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_EXPANSION,
  type LoadLimits,
  loadScipyNpz,
  type ScipyCsr,
  saveScipyNpz,
} from '../io/index.js';
import { DEFAULT_SOURCE } from '../io/types.js';
import { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { type CSRNDArray, isSparse } from './arrays.js';

/** Options of `nd.sparse.loadNpz`: the device, and the caps of every loader ({@link LoadLimits}). */
export interface SparseNpzLoadOptions extends LoadLimits {
  /** Device of the loaded array; default the runtime's default device. */
  readonly ctx?: Context;
}

/** SciPy `.npz` files of sparse matrices (`scipy.sparse.save_npz`/`load_npz`). */
export interface SparseNpzIO {
  /**
   * Writes a CSRNDArray as `scipy.sparse.save_npz(path, m, compressed=False)` does (SciPy and
   * `loadNpz` read it); `.npz` is appended to a path without it, as SciPy does. Resolves to the
   * path written. Node only.
   */
  saveNpz(path: string, array: NDArray): Promise<string>;
  /** The bytes `saveNpz` writes. */
  saveNpzBytes(array: NDArray): Promise<Uint8Array>;
  /**
   * Reads a `scipy.sparse.save_npz` file (csr, csc or coo; compressed or not) as a canonical
   * CSRNDArray with int64 indices. Node only.
   */
  loadNpz(path: string, options?: SparseNpzLoadOptions): Promise<CSRNDArray>;
  /** `loadNpz` from bytes; `source` names them in errors. */
  loadNpzBytes(bytes: Uint8Array, options?: SparseNpzLoadOptions, source?: string): CSRNDArray;
}

interface NodeFs {
  readFileSync(path: string): Uint8Array;
  writeFileSync(path: string, data: Uint8Array): void;
}

const fs = (op: string) =>
  nodeBuiltin<NodeFs>('node:fs', op, 'use nd.sparse.saveNpzBytes / loadNpzBytes and your own storage');

/** The SciPy npz functions of `nd.sparse`, bound to `rt`. */
export function createSparseNpz(rt: Runtime): SparseNpzIO {
  const saveNpzBytes = async (array: NDArray): Promise<Uint8Array> => {
    const op = 'sparse.saveNpz';
    if (!(array instanceof NDArray)) throw new MXNetError('expected a CSRNDArray', { op });
    if (array.stype === 'row_sparse') {
      throw new MXNetError(
        `scipy.sparse has no row_sparse format: ${array.describe()} cannot be saved as a SciPy .npz`,
        {
          op,
          shapes: [array.shape],
          hint: "cast it to csr first (x.tostype('csr'), 2-D arrays), or keep it row_sparse with nd.save (MXNet's format)",
        },
      );
    }
    if (!isSparse(array)) {
      throw new MXNetError(`scipy.sparse.save_npz saves sparse matrices, and ${array.describe()} is dense`, {
        op,
        shapes: [array.shape],
        hint: "cast it first (x.tostype('csr'), 2-D arrays), or save a dense .npz with nd.save(path, x, { format: 'npz' })",
      });
    }
    const parts = await array.parts();
    try {
      return saveScipyNpz({ ...parts, dtype: array.dtype });
    } catch (e) {
      throw rethrow(e, op, array.describe());
    }
  };

  const loadNpzBytes = (
    bytes: Uint8Array,
    options: SparseNpzLoadOptions = {},
    source?: string,
  ): CSRNDArray => {
    const op = 'sparse.loadNpz';
    let array: ScipyCsr;
    try {
      array = loadScipyNpz(bytes, source, {
        maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
        maxExpansion: options.maxExpansion ?? DEFAULT_MAX_EXPANSION,
      }).array;
    } catch (e) {
      throw rethrow(e, op); // the message names the file already
    }
    const { data, indices, indptr, shape, dtype } = array;
    try {
      return rt.nd.sparse.csrMatrix(
        { data: data as Float32Array, indices, indptr },
        { shape, dtype, ctx: options.ctx },
      );
    } catch (e) {
      throw rethrow(e, op, source ?? DEFAULT_SOURCE);
    }
  };

  return {
    saveNpzBytes,
    loadNpzBytes,
    async saveNpz(path, array) {
      const file = path.endsWith('.npz') ? path : `${path}.npz`;
      const bytes = await saveNpzBytes(array);
      fs('sparse.saveNpz').writeFileSync(file, bytes);
      return file;
    },
    async loadNpz(path, options) {
      let bytes: Uint8Array;
      try {
        bytes = fs('sparse.loadNpz').readFileSync(path);
      } catch (e) {
        if (isMXNetError(e)) throw e;
        throw new MXNetError(`cannot read ${path}: ${(e as Error).message}`, {
          op: 'sparse.loadNpz',
          cause: e,
        });
      }
      return loadNpzBytes(bytes, options, path);
    },
  };
}

/** An MXNetError from a nested call, restated for `op` (prefixed with what it concerned). */
function rethrow(e: unknown, op: string, what?: string): unknown {
  if (!isMXNetError(e)) return e;
  return new MXNetError(what === undefined ? e.reason : `${what}: ${e.reason}`, {
    op,
    ...(e.hint === undefined ? {} : { hint: e.hint }),
    cause: e,
  });
}
