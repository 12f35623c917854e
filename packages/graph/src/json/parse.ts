/**
 * Reading symbol JSON text into a checked, plain description of the file (no ops resolved yet).
 *
 * MXNet reads with dmlc's JSONReader and `JSONObjectReadHelper`: unknown keys and missing required
 * keys are errors, `attr`/`attrs` (0.9–1.x) and `param` (0.8, merged without overwriting) are one
 * dictionary, `backward_source_id` is read and ignored, input entries are `[nid, index]` or
 * `[nid, index, version]`. We parse with `JSON.parse` (after escaping the raw control characters
 * dmlc's writer leaves in strings) and then check every value's type here, so everything after
 * this module works on validated data. Unlike MXNet, inputs and control deps must refer to earlier
 * nodes — which every MXNet-written file does (DFS post-order) and which rules out cycles.
 */
import { MXNetError } from '@mx/base';

/** One `[node_id, index, version]` entry of the file. */
export interface RawEntry {
  readonly nodeId: number;
  readonly index: number;
  readonly version: number;
}

/** One node of the file, as written. */
export interface RawNode {
  readonly id: number;
  /** Op name, `"null"` for a variable. */
  readonly op: string;
  readonly name: string;
  /** `attrs`/`attr` merged with `param` (0.8). */
  readonly attrs: Map<string, string>;
  readonly inputs: readonly RawEntry[];
  readonly controlDeps: readonly number[];
}

/** A graph attribute (`dmlc::any` written as `[type, value]`). */
export type GraphAttrValue = number | string | readonly number[] | readonly string[];

/** The whole file, checked. */
export interface RawGraph {
  readonly nodes: readonly RawNode[];
  readonly argNodes: readonly number[];
  readonly heads: readonly RawEntry[];
  readonly attrs: ReadonlyMap<string, GraphAttrValue>;
}

const GRAPH_KEYS = ['nodes', 'arg_nodes', 'heads', 'node_row_ptr', 'attrs'] as const;
const GRAPH_REQUIRED = ['nodes', 'arg_nodes', 'heads'] as const;
const NODE_KEYS = [
  'op',
  'name',
  'inputs',
  'attrs',
  'attr',
  'param',
  'control_deps',
  'subgraphs',
  'backward_source_id',
];
const NODE_REQUIRED = ['op', 'name', 'inputs'] as const;
const UINT32_MAX = 0xffffffff;

/** An MXNetError naming the file and the place in it. */
export function jsonError(
  file: string,
  where: string,
  message: string,
  ctx: { op?: string; hint?: string; cause?: unknown } = {},
): MXNetError {
  return new MXNetError(`${file}: ${where ? `${where}: ` : ''}${message}`, {
    op: ctx.op ?? 'loadJSON',
    ...(ctx.hint === undefined ? {} : { hint: ctx.hint }),
    ...(ctx.cause === undefined ? {} : { cause: ctx.cause }),
  });
}

/** A short description of a JSON value for messages (bounded length). */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isUint32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= UINT32_MAX;
}

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, pos: number): string {
  let line = 1;
  let last = -1;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return `line ${line}, column ${pos - last}`;
}

/**
 * dmlc's writer leaves control characters other than \r \n \t raw inside strings; JSON forbids
 * them. They are not JSON whitespace either, so escaping every one is exact.
 */
function escapeRawControls(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what we escape
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function parseText(text: string, file: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(escapeRawControls(body));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const pos = /position (\d+)/.exec(msg);
    const at = pos ? ` at ${lineColumn(body, Number(pos[1]))}` : '';
    throw jsonError(file, '', `malformed JSON${at}: ${msg}`, {
      hint: 'the file is not valid JSON (truncated or edited?); re-export it with MXNet or saveJSON',
      cause: e,
    });
  }
}

function checkKeys(
  obj: Record<string, unknown>,
  allowed: readonly string[],
  required: readonly string[],
  file: string,
  where: string,
): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) {
      throw jsonError(file, where, `unknown field ${describeValue(k)}`, {
        hint: `MXNet's reader rejects it too; the fields are ${allowed.join(', ')}`,
      });
    }
  }
  for (const k of required) {
    if (!(k in obj)) throw jsonError(file, where, `missing field "${k}"`, { hint: `add "${k}"` });
  }
}

function stringDict(v: unknown, file: string, where: string): Map<string, string> {
  if (!isObject(v)) {
    throw jsonError(file, where, `must be an object of strings, got ${describeValue(v)}`);
  }
  const out = new Map<string, string>();
  for (const k of Object.keys(v)) {
    const value = v[k];
    if (typeof value !== 'string') {
      throw jsonError(
        file,
        where,
        `the value of ${describeValue(k)} must be a string, got ${describeValue(value)}`,
        {
          hint: 'attribute values are strings in symbol JSON, e.g. "num_hidden": "128"',
        },
      );
    }
    out.set(k, value);
  }
  return out;
}

function uintArray(v: unknown, file: string, where: string): number[] {
  if (!Array.isArray(v))
    throw jsonError(file, where, `must be an array of node ids, got ${describeValue(v)}`);
  return v.map((x, i) => {
    if (!isUint32(x)) {
      throw jsonError(file, `${where}[${i}]`, `must be a non-negative integer, got ${describeValue(x)}`);
    }
    return x;
  });
}

function parseEntry(v: unknown, file: string, where: string): RawEntry {
  if (!Array.isArray(v) || v.length < 2 || v.length > 3) {
    throw jsonError(
      file,
      where,
      `must be [node_id, index] or [node_id, index, version], got ${describeValue(v)}`,
    );
  }
  for (let i = 0; i < v.length; i++) {
    if (!isUint32(v[i])) {
      throw jsonError(file, where, `element ${i} must be a non-negative integer, got ${describeValue(v[i])}`);
    }
  }
  return { nodeId: v[0] as number, index: v[1] as number, version: (v[2] as number | undefined) ?? 0 };
}

/** Check that `nid`, referenced from node `from`, names an earlier node. */
function checkEarlier(nid: number, from: number, count: number, file: string, where: string): void {
  if (nid < from) return;
  if (nid >= count) {
    throw jsonError(file, where, `refers to node ${nid}, but the file has ${count} node(s)`, {
      hint: 'the node ids are out of range: the file is truncated or corrupt',
    });
  }
  const what = nid === from ? 'the node itself' : `node ${nid}, which comes after it`;
  throw jsonError(file, where, `refers to ${what} (a cycle or a forward reference)`, {
    hint: 'nodes must be listed after their inputs, as MXNet writes them (DFS post-order)',
  });
}

function parseNode(v: unknown, id: number, count: number, file: string): RawNode {
  let where = `node ${id}`;
  if (!isObject(v)) throw jsonError(file, where, `must be an object, got ${describeValue(v)}`);
  if (typeof v.name === 'string') where = `node ${id} ${describeValue(v.name)}`;
  checkKeys(v, NODE_KEYS, NODE_REQUIRED, file, where);
  const { op, name, inputs } = v;
  if (typeof op !== 'string') throw jsonError(file, where, `"op" must be a string, got ${describeValue(op)}`);
  if (typeof name !== 'string')
    throw jsonError(file, where, `"name" must be a string, got ${describeValue(name)}`);
  if (!Array.isArray(inputs)) {
    throw jsonError(file, where, `"inputs" must be an array, got ${describeValue(inputs)}`);
  }
  let attrs = new Map<string, string>();
  let param: Map<string, string> | undefined;
  let controlDeps: number[] = [];
  for (const k of Object.keys(v)) {
    // dmlc clears the dictionary on each read, so of `attr` and `attrs` the later one wins.
    if (k === 'attrs' || k === 'attr') attrs = stringDict(v[k], file, `${where} "${k}"`);
    else if (k === 'param') param = stringDict(v[k], file, `${where} "param"`);
    else if (k === 'control_deps') controlDeps = uintArray(v[k], file, `${where} "control_deps"`);
    else if (k === 'backward_source_id') {
      const b = v[k];
      if (typeof b !== 'number' || !Number.isInteger(b)) {
        throw jsonError(file, where, `"backward_source_id" must be an integer, got ${describeValue(b)}`);
      }
    } else if (k === 'subgraphs') {
      const s = v[k];
      if (!Array.isArray(s))
        throw jsonError(file, where, `"subgraphs" must be an array, got ${describeValue(s)}`);
      if (s.length > 0) {
        throw jsonError(
          file,
          where,
          `has ${s.length} subgraph(s): control-flow and fused subgraph ops are not supported`,
          {
            op,
            hint: 'export the model without control flow (_foreach, _while_loop, _cond) or subgraph fusion',
          },
        );
      }
    }
  }
  // 0.8 `param` joins the dictionary without overwriting (std::unordered_map::insert).
  if (param) for (const [k, val] of param) if (!attrs.has(k)) attrs.set(k, val);
  const entries = inputs.map((e, i) => {
    const ewhere = `${where} input ${i}`;
    const entry = parseEntry(e, file, ewhere);
    checkEarlier(entry.nodeId, id, count, file, ewhere);
    return entry;
  });
  controlDeps.forEach((d, i) => {
    checkEarlier(d, id, count, file, `${where} control_deps[${i}]`);
  });
  if (op === 'null' && (entries.length > 0 || controlDeps.length > 0)) {
    throw jsonError(file, where, 'is a variable ("op": "null") but has inputs or control deps', {
      hint: 'variables take no inputs',
    });
  }
  return { id, op, name, attrs, inputs: entries, controlDeps };
}

function parseGraphAttr(v: unknown, file: string, where: string): GraphAttrValue {
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string') {
    throw jsonError(file, where, `must be [type, value], got ${describeValue(v)}`, {
      hint: 'graph attributes are written like "mxnet_version": ["int", 10901]',
    });
  }
  const [type, value] = v as [string, unknown];
  const ok =
    type === 'int'
      ? typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 0x7fffffff
      : type === 'str'
        ? typeof value === 'string'
        : type === 'list_int'
          ? Array.isArray(value) && value.every((x) => typeof x === 'number' && Number.isInteger(x))
          : type === 'list_str'
            ? Array.isArray(value) && value.every((x) => typeof x === 'string')
            : undefined;
  if (ok === undefined) {
    throw jsonError(file, where, `unknown attribute type ${describeValue(type)}`, {
      hint: 'MXNet registers the types int, str, list_int and list_str',
    });
  }
  if (!ok) throw jsonError(file, where, `is not a valid ${type}: ${describeValue(value)}`);
  return value as GraphAttrValue;
}

/** Parse and check symbol JSON text (structure and types; ops are resolved by the loader). */
export function parseSymbolJSON(text: string, file: string): RawGraph {
  if (typeof text !== 'string') {
    throw jsonError(file, '', `symbol JSON must be a string, got ${describeValue(text)}`);
  }
  const root = parseText(text, file);
  if (!isObject(root)) {
    throw jsonError(file, '', `symbol JSON must be an object with "nodes", got ${describeValue(root)}`);
  }
  checkKeys(root, GRAPH_KEYS, GRAPH_REQUIRED, file, '');
  const jnodes = root.nodes;
  if (!Array.isArray(jnodes))
    throw jsonError(file, '', `"nodes" must be an array, got ${describeValue(jnodes)}`);
  const count = jnodes.length;
  const nodes = jnodes.map((n, i) => parseNode(n, i, count, file));
  const argNodes = uintArray(root.arg_nodes, file, '"arg_nodes"');
  argNodes.forEach((nid, i) => {
    if (nid >= count)
      throw jsonError(file, `"arg_nodes"[${i}]`, `refers to node ${nid}, but the file has ${count}`);
    if ((nodes[nid] as RawNode).op !== 'null') {
      throw jsonError(file, `"arg_nodes"[${i}]`, `node ${nid} is not a variable`, {
        hint: 'arg_nodes lists the variables ("op": "null")',
      });
    }
  });
  if (!Array.isArray(root.heads)) {
    throw jsonError(file, '', `"heads" must be an array, got ${describeValue(root.heads)}`);
  }
  const heads = root.heads.map((e, i) => {
    const entry = parseEntry(e, file, `"heads"[${i}]`);
    checkEarlier(entry.nodeId, count, count, file, `"heads"[${i}]`);
    return entry;
  });
  if ('node_row_ptr' in root) uintArray(root.node_row_ptr, file, '"node_row_ptr"');
  const attrs = new Map<string, GraphAttrValue>();
  if ('attrs' in root) {
    const a = root.attrs;
    if (!isObject(a)) throw jsonError(file, '', `"attrs" must be an object, got ${describeValue(a)}`);
    for (const k of Object.keys(a)) attrs.set(k, parseGraphAttr(a[k], file, `"attrs" ${describeValue(k)}`));
  }
  return { nodes, argNodes, heads, attrs };
}
