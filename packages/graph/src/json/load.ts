/**
 * `loadJSON`: MXNet's `MXSymbolCreateFromJSON` — nnvm's LoadJSON, the `LoadLegacyJSON` upgraders,
 * then `ConvertShapeAttrToNumPyCompatible` — producing a `Graph` of `GraphNode`s.
 *
 * The pipeline is parse (checked structure) → resolve every op (MXNet's reader looks up every node's
 * op, reachable or not) → keep the nodes reachable from the heads → upgrade → build GraphNodes in
 * file order. Every failure is an MXNetError naming the file and the node; nothing is shared with
 * the caller until the graph is complete, so a bad file changes nothing.
 */
import { MXNetError } from '@mx/base';
import type { Op, OpRegistry } from '@mx/ops';
import { Graph } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';
import {
  boundedInputCount,
  convertShapesToNumpy,
  parseWorkParams,
  type UpgradeContext,
  upgradeLegacy,
  type WorkEntry,
  type WorkNode,
} from './legacy.js';
import { describeValue, type GraphAttrValue, jsonError, parseSymbolJSON, type RawGraph } from './parse.js';
import {
  DEFAULT_FILE_VERSION,
  type LoadedGraph,
  type LoadJSONOptions,
  MXNET_JSON_VERSION,
  NEWEST_KNOWN_VERSION,
} from './types.js';

/** Names longer than this get no "did you mean" (its edit distances would cost too much). */
const MAX_HINTED_NAME = 64;
/** Input-name lists longer than this are not spelled out in messages. */
const MAX_LISTED_INPUTS = 32;

function where(node: { id: number; name: string }): string {
  return node.id < 0 ? `variable ${describeValue(node.name)}` : `node ${node.id} ${describeValue(node.name)}`;
}

/** MXNet's `v1.2.0` spelling of an `mxnet_version` number (C++ integer division). */
function versionString(v: number): string {
  return `${Math.trunc(v / 10000)}.${Math.trunc(v / 100) % 100}.${v % 100}`;
}

function intAttr(raw: RawGraph, key: string, file: string): number | undefined {
  const v = raw.attrs.get(key);
  if (v === undefined) return undefined;
  if (typeof v !== 'number') {
    throw jsonError(file, `"attrs" "${key}"`, `must be ["int", N], got ${describeValue(v)}`);
  }
  return v;
}

function resolveOp(raw: RawGraph['nodes'][number], registry: OpRegistry, file: string): Op | null {
  if (raw.op === 'null') return null;
  const op = registry.find(raw.op);
  if (op !== undefined) return op;
  let hint = 'this operator is not available in @mx; see registry.list() for the registered ones';
  if (raw.op.length <= MAX_HINTED_NAME) {
    try {
      registry.get(raw.op);
    } catch (e) {
      if (e instanceof MXNetError && e.hint !== undefined) hint = e.hint;
    }
  }
  throw jsonError(file, where(raw), `operator ${describeValue(raw.op)} is not registered`, {
    op: raw.op,
    hint,
  });
}

/** Ids of the nodes reachable from the heads (references only point backwards: one sweep). */
function reachable(raw: RawGraph): boolean[] {
  const seen = new Array<boolean>(raw.nodes.length).fill(false);
  for (const h of raw.heads) seen[h.nodeId] = true;
  for (let i = raw.nodes.length - 1; i >= 0; i--) {
    if (!seen[i]) continue;
    const n = raw.nodes[i] as RawGraph['nodes'][number];
    for (const e of n.inputs) seen[e.nodeId] = true;
    for (const d of n.controlDeps) seen[d] = true;
  }
  return seen;
}

/** Strip the `node <name>: ` prefix GraphNode's errors carry (our messages name the node already). */
function reasonOf(e: MXNetError, name: string): string {
  const prefix = `node ${name}: `;
  return e.reason.startsWith(prefix) ? e.reason.slice(prefix.length) : e.reason;
}

/** Build the GraphNodes, producers first; checks input counts and output indices. */
function build(order: readonly WorkNode[], ctx: UpgradeContext): Map<WorkNode, GraphNode> {
  const built = new Map<WorkNode, GraphNode>();
  const get = (w: WorkNode): GraphNode => {
    let g = built.get(w);
    if (g === undefined) {
      // Only variables are built on demand (an upgrader's aux variables); ops come in order.
      g = GraphNode.variable(w.name, Object.fromEntries(w.attrs));
      built.set(w, g);
    }
    return g;
  };
  const toEntry = (consumer: WorkNode, e: WorkEntry, i: number): NodeEntry => {
    const producer = get(e.node);
    const n = producer.numOutputs();
    if (e.index >= n) {
      throw ctx.fail(
        consumer,
        `input ${i} refers to output ${e.index} of ${where(e.node)}, which has ${n} output(s)`,
        'the output index is out of range: the file is corrupt or was written for a different operator',
      );
    }
    return entry(producer, e.index, e.version);
  };
  for (const w of order) {
    if (w.op === null) {
      get(w);
      continue;
    }
    const inputs = w.inputs.map((e, i) => toEntry(w, e, i));
    const deps = w.controlDeps.map(get);
    const parsed = parseWorkParams(w, ctx);
    const n = boundedInputCount(w, parsed, ctx);
    if (n !== inputs.length) {
      const names = n <= MAX_LISTED_INPUTS ? ` (${w.op.listInputNames(parsed).join(', ')})` : '';
      throw ctx.fail(
        w,
        `has ${inputs.length} input(s); ${w.op.name} with these parameters takes ${n}${names}`,
        'the inputs do not match the operator: the file is corrupt or from an incompatible version',
      );
    }
    try {
      built.set(w, GraphNode.create(w.op, w.name, Object.fromEntries(w.attrs), inputs, deps));
    } catch (e) {
      if (e instanceof MXNetError) throw ctx.fail(w, reasonOf(e, w.name), e.hint, e);
      throw e;
    }
  }
  return built;
}

/**
 * Parse symbol JSON of any MXNet version (0.8 through 2.0) into a graph, applying MXNet's legacy
 * upgraders to files older than 1.9.1 and, with `npShape`, converting legacy `__shape__` values.
 * Warns like MXNet when upgrading an old file or reading one newer than 2.0.
 *
 * @throws MXNetError naming the file and node for malformed JSON, wrong types, unknown fields or
 *   operators, bad attributes, out-of-range or forward references and output indices.
 */
export function loadJSON(text: string, registry: OpRegistry, options: LoadJSONOptions = {}): LoadedGraph {
  const file = options.file ?? 'symbol JSON';
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const raw = parseSymbolJSON(text, file);
  const version = intAttr(raw, 'mxnet_version', file) ?? DEFAULT_FILE_VERSION;
  const npFlag = intAttr(raw, 'is_np_shape', file);
  const ops = raw.nodes.map((n) => resolveOp(n, registry, file));

  const ctx: UpgradeContext = {
    fail: (node, message, hint, cause) =>
      jsonError(file, where(node), message, {
        op: node.op?.name ?? 'null',
        ...(hint === undefined ? {} : { hint }),
        ...(cause === undefined ? {} : { cause }),
      }),
    limit: text.length,
  };

  const live = reachable(raw);
  const work: (WorkNode | undefined)[] = new Array(raw.nodes.length);
  const order: WorkNode[] = [];
  raw.nodes.forEach((n, i) => {
    if (!live[i]) return;
    const w: WorkNode = {
      id: n.id,
      op: ops[i] ?? null,
      name: n.name,
      attrs: new Map(n.attrs),
      inputs: n.inputs.map((e) => ({ node: work[e.nodeId] as WorkNode, index: e.index, version: e.version })),
      controlDeps: n.controlDeps.map((d) => work[d] as WorkNode),
    };
    work[i] = w;
    order.push(w);
  });

  if (version > NEWEST_KNOWN_VERSION) {
    warn(
      `Warning: loading symbol saved by MXNet version ${version} with lower version of MXNet v${NEWEST_KNOWN_VERSION}. ` +
        'May cause undefined behavior. Please update MXNet if you encounter any issue',
    );
  } else if (version < MXNET_JSON_VERSION) {
    warn(`Loading symbol saved by previous version v${versionString(version)}. Attempting to upgrade...`);
  }
  upgradeLegacy(order, version, ctx);

  if (options.npShape === true && !npFlag) {
    const variables = new Set<WorkNode>();
    for (const w of order) {
      if (w.op === null) variables.add(w);
      for (const e of w.inputs) if (e.node.op === null) variables.add(e.node);
    }
    convertShapesToNumpy(variables);
  }

  const built = build(order, ctx);
  const outputs = raw.heads.map((h, i) => {
    const w = work[h.nodeId] as WorkNode;
    const g = built.get(w) as GraphNode;
    if (h.index >= g.numOutputs()) {
      throw jsonError(
        file,
        `"heads"[${i}]`,
        `refers to output ${h.index} of ${where(w)}, which has ${g.numOutputs()} output(s)`,
        {
          op: w.op?.name ?? 'null',
        },
      );
    }
    return entry(g, h.index, h.version);
  });
  const graph = new Graph(outputs);
  for (const [k, v] of raw.attrs) graph.attrs.set(k, v as GraphAttrValue);
  graph.attrs.set('mxnet_version', version);
  return { graph, version, isNpShape: npFlag !== undefined && npFlag !== 0 };
}
