/**
 * The byte format of `Updater.getStates` / `setStates`. MXNet pickles its Python state dict, which
 * nothing outside Python can read; this format is ours, documented here and in the README, and built
 * so that the arrays stay readable by MXNet tools:
 *
 *   offset 0   8 bytes   magic, ASCII "MXOPTST1" (the 1 is the format version)
 *   offset 8   u32 LE    H, the length of the header
 *   offset 12  H bytes   UTF-8 JSON header (below)
 *   then                 an MXNet NDArray list file (the `.params` / `nd.save` format, unnamed),
 *                        holding every state array in the order the header refers to them
 *
 * Header: `{ "format": "mx-optimizer-states", "version": 1, "states": [{ "index": 0 | "key",
 * "state": <tree> }, ...], "optimizer"?: { "name": "Adam", "progress": OptimizerProgress } }` where a
 * tree is `null`, `{ "array": k }` (the k-th array of the list) or an array of trees. `index` keeps
 * its JSON type (number or string), as MXNet's keys do. `optimizer` is present with
 * `dumpOptimizer`: the update counters (not the hyperparameters or the scheduler's state).
 *
 * Decoding checks everything (magic, version, lengths, JSON shape, array references) and throws an
 * MXNetError naming what is wrong; it creates nothing, so a bad file leaves the updater unchanged.
 */
import { MXNetError } from '@mx/base';
import { type HostArray, loadMXNetList, saveMXNetList } from '@mx/ndarray';
import type { ParamIndex } from './checks.js';
import type { OptimizerProgress } from './optimizer.js';

const MAGIC = 'MXOPTST1';
const FORMAT = 'mx-optimizer-states';
const OP = 'Updater.setStates';

/** A state with its arrays replaced by positions in the array list. */
export type StateTree = null | { readonly array: number } | readonly StateTree[];

export interface StatesFile {
  readonly states: readonly { readonly index: ParamIndex; readonly state: StateTree }[];
  readonly arrays: readonly HostArray[];
  readonly optimizer?: { readonly name: string; readonly progress: OptimizerProgress };
}

export function encodeStates(file: StatesFile): Uint8Array {
  const header = new TextEncoder().encode(
    JSON.stringify({ format: FORMAT, version: 1, states: file.states, optimizer: file.optimizer }),
  );
  const list = saveMXNetList(file.arrays);
  const out = new Uint8Array(12 + header.length + list.length);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, header.length, true);
  out.set(header, 12);
  out.set(list, 12 + header.length);
  return out;
}

function corrupt(why: string): never {
  throw new MXNetError(`not an optimizer states file: ${why}`, {
    op: OP,
    hint: 'pass bytes produced by Updater.getStates (MXNet pickles cannot be read)',
  });
}

function checkTree(t: unknown, count: number, used: Set<number>, where: string): StateTree {
  if (t === null) return null;
  if (Array.isArray(t)) return t.map((x, i) => checkTree(x, count, used, `${where}[${i}]`));
  if (typeof t === 'object' && Object.keys(t as object).length === 1 && 'array' in (t as object)) {
    const k = (t as { array: unknown }).array;
    if (!Number.isInteger(k) || (k as number) < 0 || (k as number) >= count) {
      corrupt(`${where} refers to array ${String(k)}, but the file holds ${count}`);
    }
    if (used.has(k as number)) corrupt(`${where} reuses array ${String(k)}`);
    used.add(k as number);
    return { array: k as number };
  }
  return corrupt(`${where} is neither null, {"array": k} nor a list`);
}

function checkProgress(p: unknown): OptimizerProgress {
  const o = p as Partial<OptimizerProgress> | null;
  if (
    o === null ||
    typeof o !== 'object' ||
    typeof o.numUpdate !== 'number' ||
    typeof o.learningRate !== 'number' ||
    !Array.isArray(o.indexUpdateCounts) ||
    !o.indexUpdateCounts.every(
      (e) =>
        Array.isArray(e) &&
        e.length === 2 &&
        ['number', 'string'].includes(typeof e[0]) &&
        typeof e[1] === 'number',
    ) ||
    (o.extra !== undefined && (o.extra === null || typeof o.extra !== 'object'))
  ) {
    corrupt('the optimizer progress is malformed');
  }
  return { ...(o as OptimizerProgress), extra: o.extra ?? {} };
}

export function decodeStates(bytes: Uint8Array): StatesFile {
  if (!(bytes instanceof Uint8Array)) corrupt(`expected a Uint8Array, got ${typeof bytes}`);
  if (bytes.length < 12) corrupt(`${bytes.length} bytes is shorter than the 12-byte preamble`);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== MAGIC) {
    if (magic.startsWith('MXOPTST'))
      corrupt(`format version ${magic.slice(7)} is not supported (this reader knows 1)`);
    corrupt('bad magic');
  }
  const h = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (12 + h > bytes.length) corrupt(`the header claims ${h} bytes but only ${bytes.length - 12} follow`);
  let header: {
    format?: unknown;
    version?: unknown;
    states?: unknown;
    optimizer?: { name?: unknown; progress?: unknown };
  };
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + h)));
  } catch (e) {
    throw new MXNetError('not an optimizer states file: the header is not valid JSON', { op: OP, cause: e });
  }
  if (header === null || typeof header !== 'object' || header.format !== FORMAT)
    corrupt('the header has no format tag');
  if (header.version !== 1) corrupt(`header version ${String(header.version)} is not supported`);
  if (!Array.isArray(header.states)) corrupt('the header has no states list');
  let arrays: HostArray[];
  try {
    arrays = loadMXNetList(bytes.subarray(12 + h), { source: 'optimizer states' }).arrays;
  } catch (e) {
    throw new MXNetError('not an optimizer states file: the array section is not an NDArray list', {
      op: OP,
      cause: e,
    });
  }
  const used = new Set<number>();
  const seen = new Set<ParamIndex>();
  const states = (header.states as unknown[]).map((e, i) => {
    const entry = e as { index?: unknown; state?: unknown } | null;
    const index = entry?.index;
    if (typeof index !== 'string' && !(typeof index === 'number' && Number.isInteger(index))) {
      corrupt(`states[${i}] has no integer or string index`);
    }
    if (seen.has(index as ParamIndex)) corrupt(`index ${String(index)} appears twice`);
    seen.add(index as ParamIndex);
    return {
      index: index as ParamIndex,
      state: checkTree(entry?.state ?? null, arrays.length, used, `states[${i}]`),
    };
  });
  if (used.size !== arrays.length) corrupt(`${arrays.length - used.size} array(s) belong to no state`);
  let optimizer: StatesFile['optimizer'];
  if (header.optimizer !== undefined && header.optimizer !== null) {
    if (typeof header.optimizer.name !== 'string') corrupt('the optimizer entry has no name');
    optimizer = { name: header.optimizer.name as string, progress: checkProgress(header.optimizer.progress) };
  }
  return { states, arrays, optimizer };
}
