/**
 * `saveJSON`: nnvm's SaveJSON as MXNet 1.x calls it (`Symbol2Graph` + `SaveJSON`), byte for byte.
 *
 * Nodes in DFS post-order (the IndexedGraph order), `attrs` only when non-empty with keys in
 * `std::map` order (UTF-8 byte order), inputs and heads as `[node_id, index, version]`,
 * `arg_nodes` = every variable, `node_row_ptr` = prefix sums of output counts, then the graph
 * attributes MXNet writes: `mxnet_version` and, under np-shape, `is_np_shape`. Those two come out
 * of a libstdc++ `unordered_map` (MXNet's Linux builds), which iterates them as `is_np_shape`,
 * `mxnet_version` — checked against g++'s unordered_map with the same insertions.
 */
import { MXNetError } from '@mx/base';
import type { Graph, IndexedEntry, IndexedNode } from '../indexed.js';
import { MXNET_JSON_VERSION, type SaveJSONOptions } from './types.js';
import { DmlcJsonWriter } from './writer.js';

/** `std::map<std::string, ...>` key order: UTF-8 bytes, i.e. code points. */
export function compareUtf8(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(j) as number;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return (i < a.length ? 1 : 0) - (j < b.length ? 1 : 0);
}

function writeEntries(w: DmlcJsonWriter, entries: readonly IndexedEntry[]): void {
  // `std::vector<JSONNode::Entry>`: Entry is a POD, so one line up to 10 entries.
  w.beginArray(entries.length > 10);
  for (const e of entries) {
    w.item();
    w.beginArray(false);
    for (const v of [e.nodeId, e.index, e.version]) {
      w.item();
      w.number(v);
    }
    w.endArray();
  }
  w.endArray();
}

function writeNode(w: DmlcJsonWriter, n: IndexedNode): void {
  w.beginObject(true);
  w.key('op');
  w.string(n.node.op === null ? 'null' : n.node.op.name);
  w.key('name');
  w.string(n.node.name);
  const attrs = n.node.attrs;
  const keys = Object.keys(attrs).sort(compareUtf8);
  if (keys.length > 0) {
    w.key('attrs');
    w.stringMap(keys.map((k) => [k, attrs[k] as string] as const));
  }
  w.key('inputs');
  writeEntries(w, n.inputs);
  if (n.controlDeps.length > 0) {
    w.key('control_deps');
    w.numbers(n.controlDeps);
  }
  w.endObject();
}

function writeIntAttr(w: DmlcJsonWriter, key: string, value: number): void {
  w.key(key);
  w.beginArray(false);
  w.item();
  w.string('int');
  w.item();
  w.number(value);
  w.endArray();
}

/**
 * MXNet's JSON for a graph, byte-for-byte what MXNet 1.x writes (nodes in DFS post-order). No
 * trailing newline, like `Symbol.save`/`tojson`.
 *
 * @throws MXNetError for a graph with a cycle or an output index out of range, or a bad version.
 */
export function saveJSON(graph: Graph, options: SaveJSONOptions = {}): string {
  const version = options.mxnetVersion ?? MXNET_JSON_VERSION;
  if (!Number.isInteger(version) || Math.abs(version) > 0x7fffffff) {
    throw new MXNetError(`mxnetVersion must be a 32-bit integer, got ${version}`, {
      op: 'saveJSON',
      hint: 'pass major*10000 + minor*100 + patch, e.g. 10901 for MXNet 1.9.1',
    });
  }
  const idx = graph.indexed;
  const w = new DmlcJsonWriter();
  w.beginObject(true);
  w.key('nodes');
  w.beginArray(true);
  for (const n of idx.nodes) {
    w.item();
    writeNode(w, n);
  }
  w.endArray();
  w.key('arg_nodes');
  w.numbers(idx.inputNodes);
  w.key('node_row_ptr');
  w.numbers(idx.rowPtr);
  w.key('heads');
  writeEntries(w, idx.outputs);
  w.key('attrs');
  w.beginObject(options.isNpShape === true);
  if (options.isNpShape === true) writeIntAttr(w, 'is_np_shape', 1);
  writeIntAttr(w, 'mxnet_version', version);
  w.endObject();
  w.endObject();
  return w.toString();
}
