/**
 * mx.viz: `printSummary` tables for an MLP and LeNet (parameter counts worked out by hand from
 * the layer sizes, columns at MXNet's stops 52/76/88/120 of a 120-character line) and the DOT text
 * of `plotNetwork` (MXNet's labels, colours, hidden weights, edge shapes).
 */
import { MXNetError } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { type Symbol, SymbolApi } from '../symbol/index.js';
import { plotNetwork, printSummary } from './index.js';

const registry = createOpRegistry();

/** One table row: cells padded to MXNet's column stops (52, 76, 88, 120). */
const cols = (a: string, b: string, c: number | string, d: string) =>
  a.padEnd(52) + b.padEnd(24) + String(c).padEnd(12) + d.padEnd(32);
const rule = (ch: string) => ch.repeat(120);

function mlp(sym: SymbolApi): Symbol {
  let net = sym.FullyConnected(sym.var('data'), { num_hidden: 128, name: 'fc1' });
  net = sym.Activation(net, { act_type: 'relu', name: 'relu1' });
  net = sym.FullyConnected(net, { num_hidden: 64, name: 'fc2' });
  net = sym.Activation(net, { act_type: 'relu', name: 'relu2' });
  net = sym.FullyConnected(net, { num_hidden: 10, name: 'fc3' });
  return sym.SoftmaxOutput(net, { name: 'softmax' });
}

/** LeNet as in MXNet's MNIST tutorial. */
function lenet(sym: SymbolApi): Symbol {
  let net = sym.Convolution(sym.var('data'), { kernel: [5, 5], num_filter: 20, name: 'conv1' });
  net = sym.Activation(net, { act_type: 'tanh', name: 'tanh1' });
  net = sym.Pooling(net, { pool_type: 'max', kernel: [2, 2], stride: [2, 2], name: 'pool1' });
  net = sym.Convolution(net, { kernel: [5, 5], num_filter: 50, name: 'conv2' });
  net = sym.Activation(net, { act_type: 'tanh', name: 'tanh2' });
  net = sym.Pooling(net, { pool_type: 'max', kernel: [2, 2], stride: [2, 2], name: 'pool2' });
  net = sym.Flatten(net, { name: 'flatten' });
  net = sym.FullyConnected(net, { num_hidden: 500, name: 'fc1' });
  net = sym.Activation(net, { act_type: 'tanh', name: 'tanh3' });
  net = sym.FullyConnected(net, { num_hidden: 10, name: 'fc2' });
  return sym.SoftmaxOutput(net, { name: 'softmax' });
}

describe('printSummary', () => {
  it('prints the MLP table of mx.viz.print_summary', () => {
    const text = printSummary(mlp(new SymbolApi(registry)), { shape: { data: [100, 784] } });
    const layers: [string, string, number, string][] = [
      ['data(null)', '784', 0, ''],
      ['fc1(FullyConnected)', '128', 784 * 128 + 128, 'data'],
      ['relu1(Activation)', '128', 0, 'fc1'],
      ['fc2(FullyConnected)', '64', 128 * 64 + 64, 'relu1'],
      ['relu2(Activation)', '64', 0, 'fc2'],
      ['fc3(FullyConnected)', '10', 64 * 10 + 10, 'relu2'],
      ['softmax(SoftmaxOutput)', '10', 0, 'fc3'],
    ];
    const expected = [
      rule('_'),
      cols('Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'),
      rule('='),
    ];
    for (const [i, l] of layers.entries())
      expected.push(cols(...l), rule(i === layers.length - 1 ? '=' : '_'));
    expected.push(`Total params: ${784 * 128 + 128 + 128 * 64 + 64 + 64 * 10 + 10}`, rule('_'));
    expect(text).toBe(expected.join('\n'));
  });

  it('counts LeNet parameters and shapes layer by layer', () => {
    const text = printSummary(lenet(new SymbolApi(registry)), { shape: { data: [64, 1, 28, 28] } });
    const rows = text.split('\n').filter((l) => /^\w+\(/.test(l));
    const cells = rows.map((r) => [
      r.slice(0, 52).trim(),
      r.slice(52, 76).trim(),
      Number(r.slice(76, 88)),
      r.slice(88).trim(),
    ]);
    expect(cells).toEqual([
      ['data(null)', '1x28x28', 0, ''],
      ['conv1(Convolution)', '20x24x24', 20 * 1 * 5 * 5 + 20, 'data'],
      ['tanh1(Activation)', '20x24x24', 0, 'conv1'],
      ['pool1(Pooling)', '20x12x12', 0, 'tanh1'],
      ['conv2(Convolution)', '50x8x8', 50 * 20 * 5 * 5 + 50, 'pool1'],
      ['tanh2(Activation)', '50x8x8', 0, 'conv2'],
      ['pool2(Pooling)', '50x4x4', 0, 'tanh2'],
      ['flatten(Flatten)', '800', 0, 'pool2'],
      ['fc1(FullyConnected)', '500', 800 * 500 + 500, 'flatten'],
      ['tanh3(Activation)', '500', 0, 'fc1'],
      ['fc2(FullyConnected)', '10', 500 * 10 + 10, 'tanh3'],
      ['softmax(SoftmaxOutput)', '10', 0, 'fc2'],
    ]);
    expect(text).toContain(`Total params: ${520 + 25050 + 400500 + 5010}`);
  });

  it('counts BatchNorm gamma and beta, grouped convolutions, FullyConnected over a 4-D input', () => {
    const sym = new SymbolApi(registry);
    let net = sym.Convolution(sym.var('data'), {
      kernel: [3, 3],
      num_filter: 8,
      num_group: 2,
      no_bias: true,
      name: 'c',
    });
    net = sym.BatchNorm(net, { name: 'bn' });
    net = sym.FullyConnected(net, { num_hidden: 5, name: 'fc' });
    const text = printSummary(net, { shape: { data: [2, 4, 6, 6] } });
    const params = Object.fromEntries(
      text
        .split('\n')
        .filter((l) => /^\w+\(/.test(l))
        .map((r) => [r.slice(0, 52).trim(), Number(r.slice(76, 88))]),
    );
    // MXNet counts 4 input features for fc (shape[1] only); the weight is (5, 8*4*4).
    expect(params).toEqual({
      'data(null)': 0,
      'c(Convolution)': 8 * 2 * 3 * 3,
      'bn(BatchNorm)': 2 * 8,
      'fc(FullyConnected)': 5 * 128 + 5,
    });
  });

  it('without shapes: empty shape column, MXNet counts from the attributes alone', () => {
    const text = printSummary(mlp(new SymbolApi(registry)));
    expect(text.split('\n')[5]).toBe(cols('fc1(FullyConnected)', '', 128, 'data'));
    expect(text).toContain('Total params: 202');
  });

  it('lists further previous layers on rows of their own; custom widths', () => {
    const sym = new SymbolApi(registry);
    const a = sym.relu(sym.var('data'), { name: 'a' });
    const b = sym.sigmoid(a, { name: 'b' });
    const text = printSummary(sym.elemwise_add(a, b, { name: 'sum' }), {
      lineLength: 40,
      positions: [10, 20, 30, 40],
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('_'.repeat(40));
    expect(lines[1]).toBe('Layer (typOutput ShaParam #   Previous L');
    expect(lines.slice(-5)).toEqual([
      'sum(elemwi          0         a         ',
      '                              b         ',
      '='.repeat(40),
      'Total params: 0',
      '_'.repeat(40),
    ]);
  });

  it('refuses non-symbols and incomplete shapes', () => {
    expect(() => printSummary({} as Symbol)).toThrow(/must be a Symbol/);
    const net = mlp(new SymbolApi(registry, { warn: () => {} }));
    expect(() => printSummary(net, { shape: { softmax_label: [100] } })).toThrow(MXNetError);
    expect(() => printSummary(net, { shape: { softmax_label: [100] } })).toThrow(/Input shape is incomplete/);
  });
});

describe('plotNetwork', () => {
  it('draws the MLP: ovals for inputs, labelled boxes, weights hidden, edges with shapes', () => {
    const dot = plotNetwork(mlp(new SymbolApi(registry)), { shape: { data: [100, 784] } });
    const box = 'fixedsize=true height=0.8034 shape=box style=filled width=1.3';
    expect(dot.split('\n')).toEqual([
      'digraph plot {',
      '\tdata [label=data fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]',
      `\tfc1 [label="FullyConnected\\n128" fillcolor="#fb8072" ${box}]`,
      `\trelu1 [label="Activation\\nrelu" fillcolor="#ffffb3" ${box}]`,
      `\tfc2 [label="FullyConnected\\n64" fillcolor="#fb8072" ${box}]`,
      `\trelu2 [label="Activation\\nrelu" fillcolor="#ffffb3" ${box}]`,
      `\tfc3 [label="FullyConnected\\n10" fillcolor="#fb8072" ${box}]`,
      '\tsoftmax_label [label=softmax_label fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]',
      `\tsoftmax [label=softmax fillcolor="#fccde5" ${box}]`,
      '\tfc1 -> data [label=784 arrowtail=open dir=back]',
      '\trelu1 -> fc1 [label=128 arrowtail=open dir=back]',
      '\tfc2 -> relu1 [label=128 arrowtail=open dir=back]',
      '\trelu2 -> fc2 [label=64 arrowtail=open dir=back]',
      '\tfc3 -> relu2 [label=64 arrowtail=open dir=back]',
      '\tsoftmax -> fc3 [label=10 arrowtail=open dir=back]',
      '\tsoftmax -> softmax_label [label="" arrowtail=open dir=back]',
      '}',
      '',
    ]);
  });

  it('labels convolutions and pooling, colours by op type, keeps weight edges when asked', () => {
    const sym = new SymbolApi(registry);
    let net = sym.Convolution(sym.var('data'), { kernel: [5, 5], num_filter: 20, name: 'conv1' });
    net = sym.BatchNorm(net, { name: 'bn1' });
    net = sym.Pooling(net, { pool_type: 'avg', kernel: [2, 2], stride: [2, 2], name: 'pool1' });
    net = sym.Pooling(net, { global_pool: true, name: 'gp' });
    net = sym.Concat(net, net, { name: 'cat' });
    const dot = plotNetwork(net, { hideWeights: false, dtype: { data: 'float32' }, title: 'my net' });
    expect(dot.startsWith('digraph "my net" {\n')).toBe(true);
    expect(dot).toContain('\tconv1 [label="Convolution\\n5x5/1, 20" fillcolor="#fb8072"');
    expect(dot).toContain('\tbn1 [label=bn1 fillcolor="#bebada"');
    expect(dot).toContain('\tpool1 [label="Pooling\\navg, 2x2/2x2" fillcolor="#80b1d3"');
    expect(dot).toContain('\tgp [label="Pooling\\nmax, []/1" fillcolor="#80b1d3"');
    expect(dot).toContain('\tcat [label=cat fillcolor="#fdb462"');
    // Weights get no node of their own but keep their edges.
    expect(dot).not.toContain('\tconv1_weight [');
    expect(dot).toContain('\tconv1 -> conv1_weight [label="(float32)" arrowtail=open dir=back]');
    expect(dot).toContain('\tbn1 -> bn1_moving_mean [label="(float32)" arrowtail=open dir=back]');
    expect(dot.match(/\tcat -> gp /g)).toHaveLength(2);
  });

  it('applies node attributes, warns about repeated names, refuses non-symbols', () => {
    const warnings: string[] = [];
    const sym = new SymbolApi(registry, { warn: (m) => warnings.push(m) });
    const twice = sym.elemwise_add(sym.var('x'), sym.relu(sym.var('x'), { name: 'r' }), { name: 'add' });
    const dot = plotNetwork(twice, { nodeAttrs: { shape: 'oval', fixedsize: 'false' } });
    expect(dot).toContain(
      '\tr [label=r fillcolor="#fccde5" fixedsize=false height=0.8034 shape=oval style=filled width=1.3]',
    );
    expect(warnings).toEqual([
      'There are multiple variables with the same name in your graph, this may result in cyclic graph. Repeated names: x',
    ]);
    expect(() => plotNetwork('net' as unknown as Symbol)).toThrow(/must be a Symbol/);
  });
});
