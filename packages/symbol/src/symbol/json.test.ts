/**
 * Symbol JSON against files MXNet wrote (@mx/graph's src/__fixtures__): an MLP built with `sym.*` is
 * byte for byte the JSON MXNet 1.4 wrote for the same network; MXNet's test_load_000800 (a 0.8
 * file against the same network built with attribute scopes); a Gluon export loaded and shape
 * inferred (expected shapes worked out by hand from the layer sizes); round trips, files, pickling.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { type Symbol, SymbolApi } from './index.js';

const FIXTURES = new URL('../../../graph/src/__fixtures__/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

const registry = createOpRegistry();
const api = () => new SymbolApi(registry, { warn: () => {} });

function mlp(sym: SymbolApi): Symbol {
  const data = sym.var('data');
  let net = sym.FullyConnected(data, { num_hidden: 128, name: 'fc1' });
  net = sym.Activation(net, { name: 'relu1', act_type: 'relu' });
  net = sym.FullyConnected(net, { num_hidden: 64, name: 'fc2' });
  net = sym.Activation(net, { name: 'relu2', act_type: 'relu' });
  net = sym.FullyConnected(net, { num_hidden: 10, name: 'fc3' });
  return sym.SoftmaxOutput(net, { name: 'softmax' });
}

/** MXNet tests/python/common/models.py `conv`. */
function conv(sym: SymbolApi): Symbol {
  const data = sym.Variable('data');
  const conv1 = sym.Convolution({ data, name: 'conv1', num_filter: 32, kernel: [3, 3], stride: [2, 2] });
  const bn1 = sym.BatchNorm({ data: conv1, name: 'bn1' });
  const act1 = sym.Activation({ data: bn1, name: 'relu1', act_type: 'relu' });
  const mp1 = sym.Pooling({ data: act1, name: 'mp1', kernel: [2, 2], stride: [2, 2], pool_type: 'max' });
  const conv2 = sym.Convolution({ data: mp1, name: 'conv2', num_filter: 32, kernel: [3, 3], stride: [2, 2] });
  const bn2 = sym.BatchNorm({ data: conv2, name: 'bn2' });
  const act2 = sym.Activation({ data: bn2, name: 'relu2', act_type: 'relu' });
  const mp2 = sym.Pooling({ data: act2, name: 'mp2', kernel: [2, 2], stride: [2, 2], pool_type: 'max' });
  const fl = sym.Flatten({ data: mp2, name: 'flatten' });
  const fc2 = sym.FullyConnected({ data: fl, name: 'fc2', num_hidden: 10 });
  return sym.SoftmaxOutput({ data: fc2, name: 'sm' });
}

describe('symbol JSON', () => {
  it('an MLP built with sym.* is byte for byte what MXNet 1.4 wrote for it', () => {
    const expected = fixture('mlp_symbol.json');
    expect(mlp(api()).toJSON({ mxnetVersion: 10400 })).toBe(expected);
    // ...and loads back to the same arguments and the same text.
    const loaded = api().fromJSON(expected);
    expect(loaded.listArguments()).toEqual([
      'data',
      'fc1_weight',
      'fc1_bias',
      'fc2_weight',
      'fc2_bias',
      'fc3_weight',
      'fc3_bias',
      'softmax_label',
    ]);
    expect(loaded.toJSON({ mxnetVersion: 10400 })).toBe(expected);
  });

  it('a BatchNorm writes its state inputs with version 1 and their __init__', () => {
    const json = JSON.parse(api().BatchNorm(api().var('x'), { name: 'bn' }).toJSON()) as {
      nodes: { name: string; attrs?: Record<string, string>; inputs: number[][] }[];
    };
    expect(json.nodes.map((n) => n.name)).toEqual([
      'x',
      'bn_gamma',
      'bn_beta',
      'bn_moving_mean',
      'bn_moving_var',
      'bn',
    ]);
    expect(json.nodes[5]?.inputs).toEqual([
      [0, 0, 0],
      [1, 0, 0],
      [2, 0, 0],
      [3, 0, 1],
      [4, 0, 1],
    ]);
    expect(json.nodes[3]?.attrs).toEqual({ __init__: '["zero", {}]' });
    expect(json.nodes[4]?.attrs).toEqual({ __init__: '["one", {}]' });
  });

  it('test_load_000800: the 0.8 file has the hidden attributes the scoped build gives', () => {
    const sym = api();
    const act1 = sym.attrScope({ ctx_group: 'stage1' }, () => {
      const data = sym.Variable('data', { lrMult: 0.2 });
      const weight = sym.Variable('fc1_weight', { lrMult: 1.2 });
      const fc1 = sym.FullyConnected({ data, weight, name: 'fc1', num_hidden: 128, wd_mult: 0.3 });
      return sym.Activation({ data: fc1, name: 'relu1', act_type: 'relu' });
    });
    const sym1 = sym.attrScope({ ctx_group: 'stage2' }, () => {
      const fc2 = sym.FullyConnected({ data: act1, name: 'fc2', num_hidden: 64, lr_mult: 0.01 });
      const act2 = sym.Activation({ data: fc2, name: 'relu2', act_type: 'relu' });
      const fc3 = sym.FullyConnected({ data: act2, name: 'fc3', num_hidden: 10 });
      const bn = sym.BatchNorm(fc3, { name: 'batchnorm0' });
      return sym.SoftmaxOutput({ data: bn, name: 'softmax' });
    });
    const warnings: string[] = [];
    const sym2 = new SymbolApi(registry, { warn: (m) => warnings.push(m) }).fromJSON(
      fixture('save_000800.json'),
    );
    expect(warnings.join('\n')).toMatch(/previous version v0\.8\.0/);
    const attr1 = sym1.attrDict();
    const attr2 = sym2.attrDict();
    let compared = 0;
    for (const [node, v1] of Object.entries(attr1)) {
      expect(Object.keys(attr2), node).toContain(node);
      for (const [k, v] of Object.entries(v1)) {
        if (!(k.startsWith('__') && k.endsWith('__'))) continue;
        expect([node, k, attr2[node]?.[k]]).toEqual([node, k, v]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(25); // every node has __ctx_group__, several more
    expect(sym2.listArguments()).toEqual(sym1.listArguments());
    expect(sym2.listAuxiliaryStates()).toEqual(sym1.listAuxiliaryStates());
    expect(sym2.listOutputs()).toEqual(sym1.listOutputs());
  });

  it('a Gluon export (MXNet 1.6) loads and infers its parameter shapes from the data shape', () => {
    const net = api().fromJSON(fixture('fashion-mnist-symbol.json'));
    const p = 'hybridsequential16_';
    expect(net.listArguments()).toEqual([
      'data',
      `${p}conv0_weight`,
      `${p}conv0_bias`,
      `${p}dense0_weight`,
      `${p}dense0_bias`,
      `${p}dense1_weight`,
      `${p}dense1_bias`,
    ]);
    // 28x28 -> conv 4x4 (no pad) 25x25 -> max pool 2/2 12x12; 8 channels -> 8*12*12 = 1152 inputs.
    const { argShapes, outShapes, auxShapes } = net.inferShape({ data: [5, 1, 28, 28] });
    expect(argShapes).toEqual([[5, 1, 28, 28], [8, 1, 4, 4], [8], [16, 1152], [16], [10, 16], [10]]);
    expect(outShapes).toEqual([[5, 10]]);
    expect(auxShapes).toEqual([]);
  });

  it('a VGG-style MXNet 1.2 file writes back the same nodes and heads', () => {
    // Written by an MKL-DNN build, whose Pooling had a hidden workspace output: node_row_ptr differs.
    const text = fixture('model1_v10200.json');
    const net = api().fromJSON(text);
    const mine = JSON.parse(net.toJSON({ mxnetVersion: 10200 })) as Record<string, unknown>;
    const theirs = JSON.parse(text) as Record<string, unknown>;
    for (const key of ['nodes', 'arg_nodes', 'heads', 'attrs']) expect(mine[key], key).toEqual(theirs[key]);
    expect(net.listArguments().slice(0, 3)).toEqual(['data', 'conv1_1_weight', 'conv1_1_bias']);
  });

  it('test_symbol_pickle / saveload: JSON and files round-trip mlp2 and the conv net', async () => {
    const sym = api();
    for (const m of [mlp(sym), conv(sym)]) {
      expect(sym.fromJSON(m.toJSON()).toJSON()).toBe(m.toJSON());
    }
    const dir = mkdtempSync(join(tmpdir(), 'mx-symbol-'));
    try {
      const file = join(dir, 'net-symbol.json');
      const net = conv(sym);
      await net.save(file);
      const back = await sym.load(file);
      expect(back.toJSON()).toBe(net.toJSON());
      expect(back.listAuxiliaryStates()).toEqual([
        'bn1_moving_mean',
        'bn1_moving_var',
        'bn2_moving_mean',
        'bn2_moving_var',
      ]);
      await expect(sym.load(join(dir, 'missing.json'))).rejects.toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('building on a loaded symbol continues its variable versions and keeps it unchanged', () => {
    const sym = api();
    const loaded = sym.fromJSON(conv(api()).toJSON());
    const before = loaded.toJSON();
    const more = sym.FullyConnected(loaded, { num_hidden: 2, name: 'extra' });
    expect(more.listArguments().slice(-2)).toEqual(['extra_weight', 'extra_bias']);
    expect(loaded.toJSON()).toBe(before);
    expect(JSON.stringify({ net: sym.var('x') })).toContain('\\"name\\": \\"x\\"');
    expect(() => sym.fromJSON(42 as unknown as string)).toThrow(/expects the JSON text/);
    expect(() => sym.fromJSON('{"nodes": [')).toThrow();
  });
});
