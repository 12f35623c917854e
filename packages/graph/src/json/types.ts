/**
 * Options, results and version constants of symbol JSON, in one module so the reader, the
 * upgraders, the writer and the package index share them without importing each other.
 */
import type { Graph } from '../indexed.js';

/**
 * The `mxnet_version` we write by default and the loader version we emulate: MXNet 1.9.1's
 * `MXNET_VERSION` (`major*10000 + minor*100 + patch`). Files older than this are upgraded.
 */
export const MXNET_JSON_VERSION = 10901;

/**
 * The newest format we know: MXNet 2.0 (20000) writes 1.x's layout plus `is_np_shape`. Files up to
 * this version load silently; newer ones load with MXNet's "lower version of MXNet" warning.
 */
export const NEWEST_KNOWN_VERSION = 20000;

/** The version of a file without `mxnet_version` (MXNet 0.8.0). */
export const DEFAULT_FILE_VERSION = 800;

export interface LoadJSONOptions {
  /** File name for error messages. */
  readonly file?: string;
  /** Called with MXNet's warnings (upgrading an old file, a newer mxnet_version); default console.warn. */
  readonly warn?: (message: string) => void;
  /** np-shape semantics on (MXNet 2.0): `__shape__` of a file without `is_np_shape` is converted. */
  readonly npShape?: boolean;
}

export interface LoadedGraph {
  readonly graph: Graph;
  /** The file's `mxnet_version` (800 when missing). */
  readonly version: number;
  /** True when the file says `is_np_shape`. */
  readonly isNpShape: boolean;
}

export interface SaveJSONOptions {
  /** `mxnet_version` to write; default 10901 (what MXNet 1.9.1 writes). */
  readonly mxnetVersion?: number;
  /** Write `is_np_shape: ["int", 1]`. */
  readonly isNpShape?: boolean;
}
