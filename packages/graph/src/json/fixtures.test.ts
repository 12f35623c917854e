/**
 * Symbol JSON against files MXNet itself wrote (src/__fixtures__, copied byte for byte; see its README): they
 * load, re-save byte for byte under the version they were written with, and round-trip; the 0.8
 * file gives what MXNet's `test_load_000800` asserts.
 */
import { readFileSync } from 'node:fs';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import type { Graph } from '../indexed.js';
import type { GraphNode } from '../node.js';
import { loadJSON, saveJSON } from './index.js';

const FIXTURES = new URL('../__fixtures__/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
const registry = createOpRegistry();

function load(text: string, file = 'fixture.json') {
  const warnings: string[] = [];
  const loaded = loadJSON(text, registry, { file, warn: (m) => warnings.push(m) });
  return { ...loaded, warnings };
}

function nodeByName(graph: Graph, name: string): GraphNode {
  const n = graph.indexed.nodes.find((x) => x.node.name === name);
  if (n === undefined) throw new Error(`no node ${name}`);
  return n.node;
}

describe('MXNet 1.x files re-save byte for byte', () => {
  it.each([
    ['mlp_symbol.json', 10400, 'v1.4.0'],
    ['fashion-mnist-symbol.json', 10600, 'v1.6.0'],
  ])('%s (mxnet_version %i)', (name, version, v) => {
    const text = read(name);
    const { graph, version: fileVersion, isNpShape, warnings } = load(text);
    expect(fileVersion).toBe(version);
    expect(isNpShape).toBe(false);
    expect(warnings).toEqual([`Loading symbol saved by previous version ${v}. Attempting to upgrade...`]);
    expect(saveJSON(graph, { mxnetVersion: version })).toBe(text);
  });

  it('model1_v10200.json: identical except MKL-DNN pooling workspace outputs in node_row_ptr', () => {
    const text = read('model1_v10200.json');
    const { graph, version } = load(text);
    expect(version).toBe(10200);
    const out = saveJSON(graph, { mxnetVersion: 10200 });
    // MXNet 1.2's MKL-DNN build gave max Pooling a hidden workspace output (5 nodes with 2 outputs);
    // our Pooling has one, so node_row_ptr is 0..73. Everything else is the file's bytes (it was
    // committed with a trailing newline, which MXNet does not write).
    const file = JSON.parse(text);
    const rowPtr = Array.from({ length: file.nodes.length + 1 }, (_, i) => i);
    const expected = text
      .replace(/\n$/, '')
      .replace(
        /"node_row_ptr": \[[^\]]*\]/,
        `"node_row_ptr": [\n${rowPtr.map((i) => `    ${i}`).join(', \n')}\n  ]`,
      );
    expect(out).toBe(expected);
    expect(JSON.parse(out)).toEqual({ ...file, node_row_ptr: rowPtr });
  });

  it.each([['mlp_symbol.json'], ['model1_v10200.json'], ['fashion-mnist-symbol.json'], ['save_000800.json']])(
    '%s round-trips: save → load → save is identical',
    (name) => {
      const once = saveJSON(load(read(name)).graph);
      const again = load(once);
      expect(again.version).toBe(10901);
      expect(again.warnings).toEqual([]);
      expect(saveJSON(again.graph)).toBe(once);
    },
  );
});

describe('what the fixtures hold', () => {
  it('mlp: structure, parsed parameters and graph attributes', () => {
    const { graph } = load(read('mlp_symbol.json'));
    const idx = graph.indexed;
    expect(idx.nodes.map((n) => n.node.name)).toEqual([
      'data',
      'fc1_weight',
      'fc1_bias',
      'fc1',
      'relu1',
      'fc2_weight',
      'fc2_bias',
      'fc2',
      'relu2',
      'fc3_weight',
      'fc3_bias',
      'fc3',
      'softmax_label',
      'softmax',
    ]);
    expect(idx.inputNodes).toEqual([0, 1, 2, 5, 6, 9, 10, 12]);
    expect(nodeByName(graph, 'fc2').parsed).toMatchObject({ num_hidden: 64 });
    expect(nodeByName(graph, 'relu1').parsed).toMatchObject({ act_type: 'relu' });
    // Variables keep the op attributes MXNet 1.x copied onto auto-created variables.
    expect(nodeByName(graph, 'fc1_weight').attrs).toEqual({ num_hidden: '128' });
    expect(graph.outputs.map((e) => [e.node.name, e.index])).toEqual([['softmax', 0]]);
    expect(graph.attrs.get('mxnet_version')).toBe(10400);
  });

  it('Gluon export: hidden variable attributes survive verbatim', () => {
    const { graph } = load(read('fashion-mnist-symbol.json'));
    expect(nodeByName(graph, 'hybridsequential16_conv0_bias').attrs).toEqual({
      __dtype__: '0',
      __init__: 'zeros',
      __lr_mult__: '1.0',
      __shape__: '(8,)',
      __storage_type__: '0',
      __wd_mult__: '1.0',
    });
    expect(nodeByName(graph, 'hybridsequential16_conv0_fwd').parsed).toMatchObject({
      kernel: [4, 4],
      num_filter: 8,
      no_bias: false,
    });
  });

  it('np-shape loading converts legacy __shape__ like ConvertShapeAttrToNumPyCompatible', () => {
    const text = read('fashion-mnist-symbol.json');
    const { graph } = loadJSON(text, registry, { npShape: true, warn: () => {} });
    // TShape prints as [d0,d1,...]; legacy 0 (unknown) becomes -1.
    expect(nodeByName(graph, 'hybridsequential16_conv0_weight').attrs.__shape__).toBe('[8,-1,4,4]');
    expect(nodeByName(graph, 'hybridsequential16_conv0_bias').attrs.__shape__).toBe('[8]');
    expect(nodeByName(graph, 'hybridsequential16_dense0_weight').attrs.__shape__).toBe('[16,-1]');
  });
});

/**
 * MXNet's test_load_000800 (tests/python/unittest/test_symbol.py before 2.0, and AI-MXNet
 * t/test_symbol.t in v1.9.1) builds this symbol with AttrScope(ctx_group=...) and lr_mult/wd_mult
 * kwargs, loads save_000800.json, and requires every `__key__` attribute of the built symbol to be
 * on the loaded one with the same value. These are the built symbol's hidden attributes: MXNet
 * copies an op's attributes onto the variables it creates and gives BatchNorm's moving stats their
 * `__init__` on compose.
 */
const SYM1_HIDDEN_ATTRS: Record<string, Record<string, string>> = {
  data: { __ctx_group__: 'stage1', __lr_mult__: '0.2' },
  fc1_weight: { __ctx_group__: 'stage1', __lr_mult__: '1.2' },
  fc1_bias: { __ctx_group__: 'stage1', __wd_mult__: '0.3' },
  fc1: { __ctx_group__: 'stage1', __wd_mult__: '0.3' },
  relu1: { __ctx_group__: 'stage1' },
  fc2_weight: { __ctx_group__: 'stage2', __lr_mult__: '0.01' },
  fc2_bias: { __ctx_group__: 'stage2', __lr_mult__: '0.01' },
  fc2: { __ctx_group__: 'stage2', __lr_mult__: '0.01' },
  relu2: { __ctx_group__: 'stage2' },
  fc3_weight: { __ctx_group__: 'stage2' },
  fc3_bias: { __ctx_group__: 'stage2' },
  fc3: { __ctx_group__: 'stage2' },
  batchnorm0_gamma: { __ctx_group__: 'stage2' },
  batchnorm0_beta: { __ctx_group__: 'stage2' },
  batchnorm0_moving_mean: { __ctx_group__: 'stage2', __init__: '["zero", {}]' },
  batchnorm0_moving_var: { __ctx_group__: 'stage2', __init__: '["one", {}]' },
  batchnorm0: { __ctx_group__: 'stage2' },
  softmax_label: { __ctx_group__: 'stage2' },
  softmax: { __ctx_group__: 'stage2' },
};

describe('save_000800.json (MXNet 0.8 format) — test_load_000800', () => {
  const loaded = load(read('save_000800.json'), 'save_000800.json');
  const { graph } = loaded;

  it('is read as version 0.8.0 and upgraded with MXNet message', () => {
    expect(loaded.version).toBe(800);
    expect(graph.attrs.get('mxnet_version')).toBe(800);
    expect(loaded.warnings).toEqual([
      'Loading symbol saved by previous version v0.8.0. Attempting to upgrade...',
    ]);
  });

  it('has every hidden attribute of the symbol MXNet builds', () => {
    for (const [name, attrs] of Object.entries(SYM1_HIDDEN_ATTRS)) {
      const node = nodeByName(graph, name);
      for (const [k, v] of Object.entries(attrs)) expect([name, k, node.attrs[k]]).toEqual([name, k, v]);
    }
  });

  it('has the same arguments and auxiliary states (the aux variables were added)', () => {
    const idx = graph.indexed;
    const names = (ids: readonly number[]) => ids.map((i) => idx.nodes[i]?.node.name);
    const args = idx.inputNodes.filter((i) => !idx.mutableInputNodes.has(i));
    const aux = idx.inputNodes.filter((i) => idx.mutableInputNodes.has(i));
    expect(names(args)).toEqual([
      'data',
      'fc1_weight',
      'fc1_bias',
      'fc2_weight',
      'fc2_bias',
      'fc3_weight',
      'fc3_bias',
      'batchnorm0_gamma',
      'batchnorm0_beta',
      'softmax_label',
    ]);
    expect(names(aux)).toEqual(['batchnorm0_moving_mean', 'batchnorm0_moving_var']);
    expect(nodeByName(graph, 'batchnorm0').inputs).toHaveLength(5);
  });

  it('merges `param` into the attributes and parses Python-style booleans', () => {
    expect(nodeByName(graph, 'fc1').parsed).toMatchObject({ num_hidden: 128, no_bias: false });
    expect(nodeByName(graph, 'batchnorm0').parsed).toMatchObject({ eps: 0.001, fix_gamma: true });
    // weight_lr_mult moved from fc1 to its weight variable; kept verbatim where nothing matched.
    expect(nodeByName(graph, 'fc1').attrs).not.toHaveProperty('weight_lr_mult');
    expect(nodeByName(graph, 'fc1_bias').attrs.weight_lr_mult).toBe('1.2');
  });
});
