/**
 * `plotNetwork`: MXNet's `mx.viz.plot_network` as Graphviz DOT text (MXNet returns a
 * `graphviz.Digraph`; its `.source` is this text). Render it with `dot -Tsvg`, or any DOT viewer.
 *
 * MXNet's drawing rules: one box per op (colour and label per op type: Convolution
 * `kernel/stride, filters`, FullyConnected `num_hidden`, Activation `act_type`, Pooling
 * `pool_type, kernel/stride`...), an oval per input variable, parameters (`*_weight`, `*_bias`,
 * `*_gamma`, `*_moving_mean`...) hidden with their edges when `hideWeights` (the default), edges
 * drawn from each op back to its inputs and labelled with the input's shape (batch axis dropped)
 * and dtype when given. Statements are written as the Python graphviz package writes them
 * (`\t<name> [label=... <attrs sorted>]`, IDs quoted only when needed); a label's line break is the
 * DOT escape `\n` rather than a raw newline. An edge's shape is that of the output it reads (MXNet
 * always takes the last output of a `num_outputs` op).
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { type GraphNode, IndexedGraph } from '@mx/graph';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { outputName, Symbol } from '../symbol/symbol.js';
import { internalShapes } from './summary.js';

export interface PlotNetworkOptions {
  /** Graph name; default `plot`. */
  readonly title?: string;
  /** Input shapes by name: edges are labelled with shapes. */
  readonly shape?: Readonly<Record<string, Shape>>;
  /** Input dtypes by name: edges are labelled with dtypes. */
  readonly dtype?: Readonly<Record<string, DTypeName>>;
  /** Graphviz node attributes overriding the defaults (`{ shape: 'oval', fixedsize: 'false' }`). */
  readonly nodeAttrs?: Readonly<Record<string, string>>;
  /** Hide parameter variables (names ending in `_weight`, `_bias`, ...); default true. */
  readonly hideWeights?: boolean;
  /** Where the duplicate-name warning goes; default `symbol.api.warn`. */
  readonly warn?: (message: string) => void;
}

const COLORS = [
  '#8dd3c7',
  '#fb8072',
  '#ffffb3',
  '#bebada',
  '#80b1d3',
  '#fdb462',
  '#b3de69',
  '#fccde5',
] as const;
const WEIGHT_LIKE = [
  '_weight',
  '_bias',
  '_beta',
  '_gamma',
  '_moving_var',
  '_moving_mean',
  '_running_var',
  '_running_mean',
];
const ID = /^([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$/;
const KEYWORDS = new Set(['node', 'edge', 'graph', 'digraph', 'subgraph', 'strict']);

/** A DOT ID as the graphviz package writes it: bare when valid, else quoted. */
function quote(id: string): string {
  if (ID.test(id) && !KEYWORDS.has(id.toLowerCase())) return id;
  return `"${id.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** `label=... k=v ...` with the other attributes sorted by key (graphviz `a_list`). */
function attrList(label: string, attrs: Readonly<Record<string, string>>): string {
  const rest = Object.keys(attrs)
    .sort()
    .map((k) => `${quote(k)}=${quote(attrs[k] as string)}`);
  return [`label=${quote(label)}`, ...rest].join(' ');
}

/** The numbers of a tuple attribute joined by `x` (`(5, 5)` → `5x5`; MXNet `_str2tuple`). */
const dims = (text: string) => (text.match(/\d+/g) ?? []).join('x');

/** An attribute as the user wrote it, else the op's parsed value in MXNet's text form. */
function attrOf(node: GraphNode, key: string): string | undefined {
  const given = node.attrs[key];
  if (given !== undefined) return given;
  const spec = node.op?.params[key];
  const value = (node.parsed as Record<string, unknown>)[key];
  return spec === undefined || value === undefined ? undefined : spec.format(value);
}

function nodeStyle(node: GraphNode): { label: string; color: string } {
  const op = node.op?.name ?? 'null';
  switch (op) {
    case 'Convolution': {
      const stride = node.attrs.stride;
      return {
        label: `Convolution\n${dims(attrOf(node, 'kernel') ?? '')}/${stride === undefined ? '1' : dims(stride)}, ${attrOf(node, 'num_filter')}`,
        color: COLORS[1],
      };
    }
    case 'FullyConnected':
      return { label: `FullyConnected\n${attrOf(node, 'num_hidden')}`, color: COLORS[1] };
    case 'BatchNorm':
      return { label: node.name, color: COLORS[3] };
    case 'Activation':
      return { label: `Activation\n${attrOf(node, 'act_type')}`, color: COLORS[2] };
    case 'LeakyReLU':
      return { label: `LeakyReLU\n${node.attrs.act_type ?? 'Leaky'}`, color: COLORS[2] };
    case 'Pooling': {
      const kernel = node.attrs.kernel;
      const stride = node.attrs.stride;
      return {
        label: `Pooling\n${attrOf(node, 'pool_type')}, ${kernel === undefined ? '[]' : dims(kernel)}/${stride === undefined ? '1' : dims(stride)}`,
        color: COLORS[4],
      };
    }
    case 'Concat':
    case 'Flatten':
    case 'Reshape':
      return { label: node.name, color: COLORS[5] };
    case 'Softmax':
      return { label: node.name, color: COLORS[6] };
    default:
      return { label: op === 'Custom' ? (node.attrs.op_type ?? node.name) : node.name, color: COLORS[7] };
  }
}

/** MXNet's `plot_network` drawing of a symbol, as Graphviz DOT source. */
export function plotNetwork(symbol: Symbol, options: PlotNetworkOptions = {}): string {
  if (!(symbol instanceof Symbol)) {
    throw new MXNetError('plotNetwork: symbol must be a Symbol', { op: 'plotNetwork' });
  }
  const shapes =
    options.shape === undefined ? undefined : internalShapes(symbol, options.shape, 'plotNetwork');
  let types: Map<string, DTypeName> | undefined;
  if (options.dtype !== undefined) {
    const internals = symbol.getInternals();
    const { outTypes } = internals.inferType(options.dtype);
    if (outTypes === undefined) throw new MXNetError('Input type is incomplete', { op: 'plotNetwork' });
    const names = internals.listOutputs();
    types = new Map(names.map((n, i) => [n, outTypes[i] as DTypeName]));
  }
  const idx = new IndexedGraph(symbol.outputs);
  const names = idx.nodes.map((n) => n.node.name);
  const repeated = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  if (repeated.length > 0) {
    (options.warn ?? symbol.api.warn)(
      `There are multiple variables with the same name in your graph, this may result in cyclic graph. Repeated names: ${repeated.join(',')}`,
    );
  }
  const base = {
    shape: 'box',
    fixedsize: 'true',
    width: '1.3',
    height: '0.8034',
    style: 'filled',
    ...(options.nodeAttrs ?? {}),
  };
  const hideWeights = options.hideWeights ?? true;
  const hidden = new Set<string>();
  const lines: string[] = [];
  for (const { node } of idx.nodes) {
    const attrs: Record<string, string> = { ...base };
    let label = node.name;
    if (node.op === null) {
      if (WEIGHT_LIKE.some((s) => node.name.endsWith(s))) {
        if (hideWeights) hidden.add(node.name);
        continue;
      }
      attrs.shape = 'oval';
      attrs.fillcolor = COLORS[0];
    } else {
      const style = nodeStyle(node);
      label = style.label;
      attrs.fillcolor = style.color;
    }
    lines.push(`\t${quote(node.name)} [${attrList(label, attrs)}]`);
  }
  for (const { node } of idx.nodes) {
    if (node.op === null) continue;
    for (const e of node.inputs) {
      if (hidden.has(e.node.name)) continue;
      const key = outputName(e);
      let label = '';
      const s = shapes?.get(key);
      if (s !== undefined) label = s.slice(1).join('x');
      const t = types?.get(key);
      if (t !== undefined) label += `(${t})`;
      lines.push(
        `\t${quote(node.name)} -> ${quote(e.node.name)} [${attrList(label, { arrowtail: 'open', dir: 'back' })}]`,
      );
    }
  }
  return `digraph ${quote(options.title ?? 'plot')} {\n${lines.map((l) => `${l}\n`).join('')}}\n`;
}
