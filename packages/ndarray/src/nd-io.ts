/**
 * `nd.save`/`nd.load` and friends: NDArrays to and from MXNet's list format and NumPy's npy/npz,
 * through the host-level codecs in io/. Saving waits for pending writes (the data is read through
 * the engine like any read); loading creates arrays on the given device (MXNet puts GPU records
 * back on a GPU when one exists; here: on `ctx` if given, else on the recorded device when this
 * runtime serves it, else on the default device).
 *
 * Loading is strict and bounded (see io/): a damaged file is an MXNetError naming the file, the
 * record and the byte offset, what one load may decode is capped (`maxBytes`, `maxExpansion`), and
 * on any error every array the load already created is disposed. A "none" record (MXNet's
 * uninitialised `NDArray()`, only found in legacy files) is refused: this runtime has no
 * uninitialised arrays, and returning one would expose memory it never wrote.
 *
 * Sparse arrays (CSRNDArray, RowSparseNDArray) are saved as MXNet's V2 sparse records, which
 * need `npShape: false` (MXNet saves sparse arrays only without np-shape semantics), and loaded
 * back as sparse arrays (only with `npShape: false`, as in MXNet); npy/npz hold dense arrays only.
 *
 * Paths work in Node (through `process.getBuiltinModule('node:fs')`, so browser bundles never
 * import fs); `saveBytes`/`loadBytes` work everywhere.
 */
import { Context, type DTypeName, MXNetError } from '@mx/base';
import {
  type ArrayCollection,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_EXPANSION,
  type HostArray,
  type HostRecord,
  isHostSparse,
  loadAny,
  saveMXNetList,
  saveNpy,
  saveNpz,
} from './io/index.js';
import { NDArray } from './ndarray.js';
import type { Runtime } from './runtime.js';
import { isSparse } from './sparse/arrays.js';

export type ArrayFileFormat = 'mxnet' | 'npy' | 'npz';

export interface SaveOptions {
  /** Default from the path's extension (`.npy`, `.npz`), else `mxnet`. */
  readonly format?: ArrayFileFormat;
  /** MXNet format only: NumPy shape semantics (V3 records, the MXNet 2.0 default) or legacy (V2). Default true. */
  readonly npShape?: boolean;
}

export interface LoadOptions {
  /** Device for the loaded arrays. */
  readonly ctx?: Context;
  /**
   * MXNet format only: `true` reads NumPy-shape (V3) records only, `false` legacy (V0–V2) records
   * only, `'global'` (default) both — MXNet's GlobalOn, so MXNet 1.x `.params` files load too.
   */
  readonly npShape?: boolean | 'global';
  /**
   * Most bytes the load may decode: array data plus decompressed npz members. Default 2 GiB
   * ({@link DEFAULT_MAX_BYTES}); raise it for a trusted larger file.
   */
  readonly maxBytes?: number;
  /**
   * Most decoded bytes per byte of the file (plus 1 MiB). Default 1032
   * ({@link DEFAULT_MAX_EXPANSION}), DEFLATE's largest ratio, so only corrupt or hostile files meet
   * it; lower it for untrusted input.
   */
  readonly maxExpansion?: number;
}

/** What a file holds: a list when it stores no names, a record name → array otherwise. */
export type LoadedArrays = NDArray[] | Record<string, NDArray>;

const DEV_TYPES: Record<number, string> = { 1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared' };

function formatOf(path: string | undefined, options: SaveOptions): ArrayFileFormat {
  if (options.format) return options.format;
  if (path?.endsWith('.npy')) return 'npy';
  if (path?.endsWith('.npz')) return 'npz';
  return 'mxnet';
}

interface NodeFs {
  readFileSync(path: string): Uint8Array;
  writeFileSync(path: string, data: Uint8Array): void;
}

function nodeFs(op: string): NodeFs {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
  if (!fs) {
    throw new MXNetError('file paths need Node.js', {
      op,
      hint: 'use nd.saveBytes / nd.loadBytes and your own storage',
    });
  }
  return fs;
}

async function toHost(a: NDArray): Promise<HostArray> {
  return { shape: a.shape, dtype: a.dtype, data: await a.data() };
}

/** Host form for the MXNet format: sparse arrays keep their parts. */
async function toHostRecord(a: NDArray): Promise<HostRecord> {
  if (!isSparse(a)) return toHost(a);
  const p = await a.parts();
  return { ...p, dtype: a.dtype };
}

/** Serialise arrays (waits for their pending writes). */
export async function saveBytes(
  data: NDArray | readonly NDArray[] | Readonly<Record<string, NDArray>>,
  options: SaveOptions = {},
  path?: string,
): Promise<Uint8Array> {
  const format = formatOf(path, options);
  if (format === 'npy') {
    if (!(data instanceof NDArray)) {
      throw new MXNetError('the npy format holds exactly one array', {
        op: 'nd.save',
        hint: "pass one NDArray, or use format 'npz'",
      });
    }
    return saveNpy(await toHost(data));
  }
  const conv = format === 'npz' ? toHost : toHostRecord;
  let host: ArrayCollection<HostRecord>;
  if (data instanceof NDArray) host = [await conv(data)];
  else if (Array.isArray(data)) host = await Promise.all((data as readonly NDArray[]).map(conv));
  else {
    const entries = await Promise.all(
      Object.entries(data as Readonly<Record<string, NDArray>>).map(
        async ([k, v]) => [k, await conv(v)] as const,
      ),
    );
    host = Object.fromEntries(entries);
  }
  return format === 'npz'
    ? saveNpz(host as ArrayCollection)
    : saveMXNetList(host, { npShape: options.npShape ?? true });
}

/** Arrays from bytes in any supported format (detected from the content, as MXNDArrayLoad). */
export function loadBytes(
  rt: Runtime,
  bytes: Uint8Array,
  options: LoadOptions = {},
  source?: string,
): LoadedArrays {
  const loaded = loadAny(bytes, source, {
    npShape: options.npShape ?? 'global',
    sparse: true,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    maxExpansion: options.maxExpansion ?? DEFAULT_MAX_EXPANSION,
  });
  loaded.arrays.forEach((h, i) => {
    if (isHostSparse(h) || h.none !== true) return;
    const name = loaded.names === null ? '' : ` ("${loaded.names[i]}")`;
    throw new MXNetError(
      `${source ?? '<bytes>'}: record ${i}${name} is a "none" array (MXNet's uninitialised NDArray()), ` +
        'which has no shape, dtype or data to load',
      {
        op: 'nd.load',
        hint: 'load the file with MXNet and save it without the uninitialised array, or read it with loadMXNetList (none records come back with none: true)',
      },
    );
  });
  const created: NDArray[] = [];
  try {
    for (const h of loaded.arrays) {
      let ctx = options.ctx;
      if (ctx === undefined) {
        const dev = h.ctx && DEV_TYPES[h.ctx.devType];
        const recorded = dev ? Context.fromString(`${dev}(${h.ctx?.devId ?? 0})`) : rt.defaultContext;
        ctx = hasBackend(rt, recorded) ? recorded : rt.defaultContext;
      }
      if (isHostSparse(h)) {
        const { data, indices, indptr, shape, dtype } = h;
        const o = { shape, ctx, dtype };
        type Parts = { data: Float32Array; indices: BigInt64Array; indptr: BigInt64Array };
        created.push(
          h.stype === 'csr'
            ? rt.nd.sparse.csrMatrix({ data, indices, indptr } as Parts, o)
            : rt.nd.sparse.rowSparseArray({ data, indices } as Omit<Parts, 'indptr'>, o),
        );
        continue;
      }
      const a = rt.empty(h.shape, h.dtype as DTypeName, ctx);
      created.push(a);
      if (a.size > 0) rt.write(a, h.data);
    }
  } catch (e) {
    for (const a of created) a.dispose();
    throw e;
  }
  if (loaded.names === null) return created;
  return Object.fromEntries(loaded.names.map((n, i) => [n, created[i] as NDArray]));
}

function hasBackend(rt: Runtime, ctx: Context): boolean {
  try {
    rt.backendFor(ctx);
    return true;
  } catch {
    return false;
  }
}

export async function saveFile(
  path: string,
  data: NDArray | readonly NDArray[] | Readonly<Record<string, NDArray>>,
  options: SaveOptions = {},
): Promise<void> {
  const bytes = await saveBytes(data, options, path);
  nodeFs('nd.save').writeFileSync(path, bytes);
}

export async function loadFile(rt: Runtime, path: string, options: LoadOptions = {}): Promise<LoadedArrays> {
  const fs = nodeFs('nd.load');
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(path);
  } catch (e) {
    throw new MXNetError(`cannot read ${path}: ${(e as Error).message}`, { op: 'nd.load', cause: e });
  }
  return loadBytes(rt, bytes, options, path);
}
