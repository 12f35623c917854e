/**
 * `printSummary`: MXNet's `mx.viz.print_summary` table (Layer (type), Output Shape, Param #,
 * Previous Layer; then the total), returned as text instead of printed.
 *
 * The layout is MXNet's, column stops included (a 120-column line, stops at .44/.64/.74/1 of it,
 * cells cut and padded to their stop), and so is the choice of rows: op nodes, plus the first node
 * when it is a variable; a variable is listed as a previous layer only when MXNet's test lets it
 * through — MXNet checks membership in the set of the *numbers* of the first head `[node, index,
 * version]`, which in practice admits node 0 (the data). Shapes drop the batch axis.
 *
 * Parameter counts cover MXNet's four layer types (Convolution, FullyConnected, BatchNorm,
 * Embedding). With shapes they are the sizes of the layer's parameter inputs (weights, bias,
 * gamma/beta), which equals MXNet's formula wherever that formula is right; MXNet's formula
 * counts only `shape[1]` of the input of a FullyConnected, so it is wrong for a 4-D input that
 * FullyConnected flattens — here it is not. Without shapes, MXNet's formula with 0 inputs is kept.
 */
import { MXNetError, type Shape, shapeSize } from '@mx/base';
import { type GraphNode, IndexedGraph } from '@mx/graph';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { Symbol } from '../symbol/symbol.js';

export interface PrintSummaryOptions {
  /** Input shapes by name; without them the shape column is empty. */
  readonly shape?: Readonly<Record<string, Shape>>;
  /** Line width; default 120. */
  readonly lineLength?: number;
  /** Column stops, relative (≤ 1, scaled by lineLength) or absolute; default [.44, .64, .74, 1]. */
  readonly positions?: readonly number[];
}

/** Output shapes of every internal output, by output name (`fc1_output`, `data`). */
export function internalShapes(
  symbol: Symbol,
  shape: Readonly<Record<string, Shape>>,
  op: string,
): Map<string, Shape> {
  const internals = symbol.getInternals();
  const { outShapes } = internals.inferShape(shape);
  if (outShapes === undefined) {
    throw new MXNetError('Input shape is incomplete', {
      op,
      params: Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, `(${v.join(', ')})`])),
      hint: `give the shapes of the inputs inference cannot deduce (arguments: ${symbol.listArguments().join(', ')})`,
    });
  }
  const names = internals.listOutputs();
  return new Map(names.map((n, i) => [n, outShapes[i] as Shape]));
}

const PARAM_LAYERS = new Set(['Convolution', 'FullyConnected', 'BatchNorm', 'Embedding']);

/** MXNet's count from the attributes alone (its formula with no known input width). */
function countWithoutShapes(node: GraphNode): number {
  const p = node.parsed as Record<string, unknown>;
  switch (node.op?.name) {
    case 'Convolution':
      return p.no_bias === true ? 0 : Number(p.num_filter);
    case 'FullyConnected':
      return p.no_bias === true ? 0 : Number(p.num_hidden);
    case 'Embedding':
      return Number(p.input_dim) * Number(p.output_dim);
    default:
      return 0;
  }
}

/** The cells of one row cut and padded to the column stops (MXNet `print_row`). */
function row(fields: readonly (string | number)[], positions: readonly number[]): string {
  let line = '';
  fields.forEach((f, i) => {
    const stop = positions[i] as number;
    line = (line + String(f)).slice(0, stop);
    line += ' '.repeat(Math.max(0, stop - line.length));
  });
  return line;
}

/** MXNet's `print_summary` table of a symbol, as text (lines joined by `\n`). */
export function printSummary(symbol: Symbol, options: PrintSummaryOptions = {}): string {
  if (!(symbol instanceof Symbol)) {
    throw new MXNetError('printSummary: symbol must be a Symbol', { op: 'printSummary' });
  }
  const lineLength = options.lineLength ?? 120;
  let positions = options.positions ?? [0.44, 0.64, 0.74, 1];
  if ((positions[positions.length - 1] ?? 1) <= 1)
    positions = positions.map((p) => Math.trunc(lineLength * p));
  const shapes =
    options.shape === undefined ? undefined : internalShapes(symbol, options.shape, 'printSummary');
  const idx = new IndexedGraph(symbol.outputs);
  const aux = idx.mutableInputNodes;
  const head = idx.outputs[0];
  const headNumbers = new Set(head === undefined ? [] : [head.nodeId, head.index, head.version]);
  const lines = [
    '_'.repeat(lineLength),
    row(['Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'], positions),
  ];
  lines.push('='.repeat(lineLength));
  let total = 0;
  idx.nodes.forEach(({ node, inputs }, nid) => {
    if (node.op === null && nid > 0) return;
    const key = node.op === null ? node.name : `${node.name}_output`;
    const outShape = shapes?.get(key)?.slice(1) ?? [];
    const previous: string[] = [];
    if (node.op !== null) {
      for (const e of inputs) {
        const input = (idx.nodes[e.nodeId] as { node: GraphNode }).node;
        if (input.op !== null || headNumbers.has(e.nodeId)) previous.push(input.name);
      }
    }
    let params = 0;
    if (node.op !== null && PARAM_LAYERS.has(node.op.name)) {
      if (shapes === undefined) params = countWithoutShapes(node);
      else {
        for (const e of inputs.slice(1)) {
          const input = (idx.nodes[e.nodeId] as { node: GraphNode }).node;
          if (input.op !== null || aux.has(e.nodeId)) continue;
          const s = shapes.get(input.name);
          if (s !== undefined) params += shapeSize(s);
        }
      }
    }
    total += params;
    const type = node.op === null ? 'null' : node.op.name;
    lines.push(row([`${node.name}(${type})`, outShape.join('x'), params, previous[0] ?? ''], positions));
    for (const p of previous.slice(1)) lines.push(row(['', '', '', p], positions));
    lines.push((nid === idx.nodes.length - 1 ? '=' : '_').repeat(lineLength));
  });
  lines.push(`Total params: ${total}`, '_'.repeat(lineLength));
  return lines.join('\n');
}
