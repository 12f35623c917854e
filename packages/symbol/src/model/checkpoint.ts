/**
 * Checkpoints (MXNet `mx.model.save_checkpoint` / `load_checkpoint`): `prefix-symbol.json` (the
 * graph as MXNet writes it) and `prefix-%04d.params` (an NDArray file with `arg:NAME` and
 * `aux:NAME` keys) — the pair Gluon's `export` writes too, so MXNet's files load here and ours load
 * in MXNet.
 *
 * The symbol side is structural: saving takes anything with `outputs`, and loading returns the
 * loaded Graph unless the caller passes `fromJSON` (the Symbol API's loader), so this module does
 * not depend on the Symbol class. Parameters are written with MXNet 1.x's legacy records by
 * default (what `nd.save` wrote before NumPy shape semantics), which every MXNet version loads.
 */
import { type Context, MXNetError } from '@mx/base';
import { Graph, loadJSON, saveJSON } from '@mx/graph';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { SymbolLike } from '../executor/graph.js';

export interface SaveCheckpointOptions {
  /** Write NumPy-shape (V3) records, as MXNet 2.0 with np shape on; default false (legacy V2 records). */
  readonly npShape?: boolean;
}

export interface LoadCheckpointOptions<S> {
  /** Build the symbol from the JSON text (e.g. the Symbol API's `fromJSON`); default: the loaded Graph. */
  readonly fromJSON?: (text: string, file: string) => S;
  /** Device for the parameters; default as `nd.load` decides (the recorded device when served). */
  readonly ctx?: Context;
  /** MXNet's warnings while loading the JSON (upgrading an old file); default console.warn. */
  readonly warn?: (message: string) => void;
}

export interface Checkpoint<S> {
  readonly symbol: S;
  /** `arg:` parameters by name. */
  readonly argParams: Record<string, NDArray>;
  /** `aux:` parameters by name. */
  readonly auxParams: Record<string, NDArray>;
}

interface TextFs {
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, data: string): void;
}

function fs(op: string): TextFs {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.('node:fs') as TextFs | undefined;
  if (mod === undefined) {
    throw new MXNetError('checkpoint files need Node.js', {
      op,
      hint: 'use saveJSON and nd.saveBytes / loadJSON and nd.loadBytes with your own storage',
    });
  }
  return mod;
}

/** `prefix-%04d.params` (MXNet pads the epoch to four digits). */
export function paramsFile(prefix: string, epoch: number): string {
  if (!Number.isInteger(epoch) || epoch < 0) {
    throw new MXNetError(`epoch must be a non-negative integer, got ${epoch}`, { op: 'checkpoint' });
  }
  return `${prefix}-${String(epoch).padStart(4, '0')}.params`;
}

/** `prefix-symbol.json`. */
export function symbolFile(prefix: string): string {
  return `${prefix}-symbol.json`;
}

/**
 * Save a checkpoint (MXNet `save_checkpoint`): the symbol's JSON (skipped when `symbol` is null)
 * and the parameters with `arg:`/`aux:` keys. Waits for the parameters' pending writes.
 */
export async function saveCheckpoint(
  rt: Runtime,
  prefix: string,
  epoch: number,
  symbol: SymbolLike | null,
  argParams: Readonly<Record<string, NDArray>>,
  auxParams: Readonly<Record<string, NDArray>>,
  options: SaveCheckpointOptions = {},
): Promise<void> {
  const file = paramsFile(prefix, epoch);
  const data: Record<string, NDArray> = {};
  for (const [k, v] of Object.entries(argParams)) data[`arg:${k}`] = v;
  for (const [k, v] of Object.entries(auxParams)) data[`aux:${k}`] = v;
  const json = symbol === null ? undefined : saveJSON(new Graph(symbol.outputs));
  const files = fs('saveCheckpoint');
  await rt.nd.save(file, data, { format: 'mxnet', npShape: options.npShape ?? false });
  if (json !== undefined) files.writeFileSync(symbolFile(prefix), json);
}

/**
 * Load a checkpoint (MXNet `load_checkpoint`): the symbol (the Graph, or what `fromJSON` makes of
 * the text) and the parameters split by their `arg:`/`aux:` prefix. Keys with another prefix are
 * skipped, as MXNet does; a key without one is an MXNetError naming the file.
 */
export async function loadCheckpoint<S = Graph>(
  rt: Runtime,
  prefix: string,
  epoch: number,
  options: LoadCheckpointOptions<S> = {},
): Promise<Checkpoint<S>> {
  const jsonFile = symbolFile(prefix);
  let text: string;
  try {
    text = fs('loadCheckpoint').readFileSync(jsonFile, 'utf8');
  } catch (e) {
    if (e instanceof MXNetError) throw e;
    throw new MXNetError(`cannot read ${jsonFile}: ${(e as Error).message}`, {
      op: 'loadCheckpoint',
      cause: e,
    });
  }
  const symbol = options.fromJSON
    ? options.fromJSON(text, jsonFile)
    : (loadJSON(text, rt.registry, { file: jsonFile, ...(options.warn ? { warn: options.warn } : {}) })
        .graph as S);
  const file = paramsFile(prefix, epoch);
  const loaded = await rt.nd.load(file, options.ctx === undefined ? {} : { ctx: options.ctx });
  const all: NDArray[] = Array.isArray(loaded) ? loaded : Object.values(loaded);
  if (Array.isArray(loaded)) {
    for (const a of all) a.dispose();
    throw new MXNetError(
      `${file} holds ${all.length} unnamed arrays; a checkpoint names them arg:NAME / aux:NAME`,
      {
        op: 'loadCheckpoint',
        hint: 'save parameters with saveCheckpoint (or nd.save with a record of arg:/aux: keys)',
      },
    );
  }
  const argParams: Record<string, NDArray> = {};
  const auxParams: Record<string, NDArray> = {};
  for (const [k, v] of Object.entries(loaded)) {
    const colon = k.indexOf(':');
    if (colon < 0) {
      for (const a of all) a.dispose();
      throw new MXNetError(`${file}: key "${k}" has no arg:/aux: prefix`, {
        op: 'loadCheckpoint',
        hint: 'a checkpoint names its parameters arg:NAME / aux:NAME',
      });
    }
    const kind = k.slice(0, colon);
    const name = k.slice(colon + 1);
    if (kind === 'arg') argParams[name] = v;
    else if (kind === 'aux') auxParams[name] = v;
    else v.dispose();
  }
  return { symbol, argParams, auxParams };
}
