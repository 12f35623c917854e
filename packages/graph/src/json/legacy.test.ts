/**
 * Every MXNet version's reading rules on hand-written files: 0.8 (`param`/`attr`, pairs,
 * `backward_source_id`), each legacy upgrader of legacy_json_util.cc at the version boundary where
 * it stops applying, version warnings, 2.0's `is_np_shape` and the np-shape `__shape__` conversion.
 */
import { MXNetError } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import type { Graph } from '../indexed.js';
import type { GraphNode } from '../node.js';
import { loadJSON, saveJSON } from './index.js';
import { toNumpyShapeAttr } from './legacy.js';

const registry = createOpRegistry();

interface N {
  op: string;
  name: string;
  inputs: number[][];
  [k: string]: unknown;
}

function file(nodes: N[], heads: number[][], version?: number, extra: Record<string, unknown> = {}): string {
  const argNodes = nodes.flatMap((n, i) => (n.op === 'null' ? [i] : []));
  const attrs = version === undefined ? {} : { attrs: { mxnet_version: ['int', version], ...extra } };
  return JSON.stringify({ nodes, arg_nodes: argNodes, heads, ...attrs });
}

function load(text: string, npShape = false) {
  const warnings: string[] = [];
  const loaded = loadJSON(text, registry, { file: 'test.json', warn: (m) => warnings.push(m), npShape });
  return { ...loaded, warnings };
}

function byName(graph: Graph, name: string): GraphNode {
  const n = graph.indexed.nodes.find((x) => x.node.name === name);
  if (n === undefined) throw new Error(`no node ${name}`);
  return n.node;
}

const v = (name: string, extra: Record<string, unknown> = {}): N => ({
  op: 'null',
  name,
  inputs: [],
  ...extra,
});

/** data → FullyConnected(fc, num_hidden 4) with weight/bias variables, node attrs in `key`. */
function fcFile(version: number | undefined, fcAttrs: Record<string, string>, key = 'attrs'): string {
  return file(
    [
      v('data'),
      v('fc_weight'),
      v('fc_bias'),
      {
        op: 'FullyConnected',
        name: 'fc',
        [key]: fcAttrs,
        inputs: [
          [0, 0],
          [1, 0],
          [2, 0],
        ],
      },
    ],
    [[3, 0]],
    version,
  );
}

describe('0.8 format', () => {
  it('merges `param` and `attr`, reads [nid, idx] pairs, ignores backward_source_id', () => {
    const text = file(
      [
        { ...v('x'), param: {}, backward_source_id: -1, attr: { ctx_group: 'dev1' } },
        {
          op: 'Activation',
          name: 'act',
          param: { act_type: 'tanh' },
          attr: { ctx_group: 'dev1' },
          backward_source_id: -1,
          inputs: [[0, 0]],
        },
      ],
      [[1, 0]],
    );
    const { graph, version, warnings } = load(text);
    expect(version).toBe(800);
    expect(warnings).toEqual(['Loading symbol saved by previous version v0.8.0. Attempting to upgrade...']);
    expect(byName(graph, 'act').attrs).toEqual({ act_type: 'tanh', __ctx_group__: 'dev1' });
    expect(byName(graph, 'act').parsed).toMatchObject({ act_type: 'tanh' });
    expect(byName(graph, 'x').attrs).toEqual({ __ctx_group__: 'dev1' });
    expect(graph.outputs[0]?.version).toBe(0);
  });

  it('`attr` wins over `param` for the same key (param is inserted without overwriting)', () => {
    const text = file(
      [
        v('x'),
        {
          op: 'Activation',
          name: 'a',
          param: { act_type: 'tanh' },
          attr: { act_type: 'relu' },
          inputs: [[0, 0]],
        },
      ],
      [[1, 0]],
    );
    expect(byName(load(text).graph, 'a').parsed).toMatchObject({ act_type: 'relu' });
  });

  it('of `attr` and `attrs`, the later one in the node replaces the earlier', () => {
    const text = file(
      [
        v('x'),
        {
          op: 'Activation',
          name: 'a',
          attr: { act_type: 'tanh' },
          attrs: { act_type: 'relu' },
          inputs: [[0, 0]],
        },
      ],
      [[1, 0]],
      10901,
    );
    expect(byName(load(text).graph, 'a').attrs).toEqual({ act_type: 'relu' });
  });
});

describe('FixParsing (files older than 1.9.1)', () => {
  it('bare hidden keys become __key__ on the node itself', () => {
    const { graph } = load(
      fcFile(10600, {
        num_hidden: '4',
        lr_mult: '2',
        wd_mult: '0',
        ctx_group: 'g',
        force_mirroring: 'True',
        mirror_stage: '1',
        profiler_scope: 's:',
      }),
    );
    expect(byName(graph, 'fc').attrs).toEqual({
      num_hidden: '4',
      __lr_mult__: '2',
      __wd_mult__: '0',
      __ctx_group__: 'g',
      __force_mirroring__: 'True',
      __mirror_stage__: '1',
      __profiler_scope__: 's:',
    });
  });

  it('<arg>_<key> on an op moves to the variable feeding that argument', () => {
    const { graph } = load(fcFile(10600, { num_hidden: '4', weight_lr_mult: '0.5', bias_wd_mult: '0' }));
    expect(byName(graph, 'fc').attrs).toEqual({ num_hidden: '4' });
    expect(byName(graph, 'fc_weight').attrs).toEqual({ __lr_mult__: '0.5' });
    expect(byName(graph, 'fc_bias').attrs).toEqual({ __wd_mult__: '0' });
  });

  it('argument names follow the parsed parameters (no_bias drops `bias`)', () => {
    const text = file(
      [
        v('data'),
        v('w'),
        {
          op: 'FullyConnected',
          name: 'fc',
          attrs: { num_hidden: '2', no_bias: 'True', bias_lr_mult: '3' },
          inputs: [
            [0, 0],
            [1, 0],
          ],
        },
      ],
      [[2, 0]],
      10600,
    );
    // `bias` is not an argument now, so the key stays and then fails to parse, as in MXNet.
    expect(() => load(text)).toThrow(/node 2 "fc".*bias_lr_mult/s);
  });

  it('<arg>_<key> stays on a variable, and fails to parse on an op when the input is not a variable', () => {
    const text = file(
      [
        v('x', { attrs: { weight_lr_mult: '1' } }),
        { op: 'Activation', name: 'a', attrs: { act_type: 'relu' }, inputs: [[0, 0]] },
        { op: 'Activation', name: 'b', attrs: { act_type: 'relu', data_lr_mult: '2' }, inputs: [[1, 0]] },
      ],
      [[2, 0]],
      10600,
    );
    expect(() => load(text)).toThrow(MXNetError);
    expect(() => load(text)).toThrow(/node 2 "b".*data_lr_mult/s);
    const ok = file(
      [
        v('x', { attrs: { weight_lr_mult: '1' } }),
        { op: 'Activation', name: 'a', attrs: { act_type: 'relu', data_lr_mult: '2' }, inputs: [[0, 0]] },
      ],
      [[1, 0]],
      10600,
    );
    const { graph } = load(ok);
    expect(byName(graph, 'x').attrs).toEqual({ weight_lr_mult: '1', __lr_mult__: '2' });
  });

  it('does not run for 1.9.1 and newer files: a bare hidden key is then an unknown parameter', () => {
    expect(() => load(fcFile(10901, { num_hidden: '4', lr_mult: '2' }))).toThrow(/node 3 "fc".*lr_mult/s);
    const { graph } = load(file([v('x', { attrs: { lr_mult: '2' } })], [[0, 0]], 20000));
    expect(byName(graph, 'x').attrs).toEqual({ lr_mult: '2' });
  });
});

describe('0.9.0: missing aux inputs are added', () => {
  const bn = (version: number | undefined) =>
    file(
      [
        v('x'),
        v('g'),
        v('b'),
        {
          op: 'BatchNorm',
          name: 'bn',
          attrs: { eps: '0.01', __ctx_group__: 'c' },
          inputs: [
            [0, 0],
            [1, 0],
            [2, 0],
          ],
        },
      ],
      [[3, 0]],
      version,
    );

  it('before 0.9.0: variables <node>_<arg> carrying the node attributes', () => {
    const { graph } = load(bn(806));
    const inputs = byName(graph, 'bn').inputs.map((e) => e.node);
    expect(inputs.map((n) => n.name)).toEqual(['x', 'g', 'b', 'bn_moving_mean', 'bn_moving_var']);
    expect(inputs[3]?.isVariable).toBe(true);
    // The node's attributes are copied, then 0.9.4's FSetInputVarAttrOnCompose adds __init__.
    expect(inputs[3]?.attrs).toEqual({ eps: '0.01', __ctx_group__: 'c', __init__: '["zero", {}]' });
    expect(inputs[4]?.attrs).toEqual({ eps: '0.01', __ctx_group__: 'c', __init__: '["one", {}]' });
  });

  it('from 0.9.0 on the inputs must be complete', () => {
    expect(() => load(bn(900))).toThrow(/node 3 "bn".*3 input\(s\).*takes 5/s);
  });

  it('the added variables are saved as ordinary nodes', () => {
    const saved = JSON.parse(saveJSON(load(bn(undefined)).graph));
    expect(saved.nodes.map((n: N) => n.name)).toEqual([
      'x',
      'g',
      'b',
      'bn_moving_mean',
      'bn_moving_var',
      'bn',
    ]);
    expect(saved.arg_nodes).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('0.9.4: FSetInputVarAttrOnCompose initializers', () => {
  const prelu = (version: number, gammaAttrs: Record<string, string> = {}) =>
    file(
      [
        v('x'),
        v('gamma', { attrs: gammaAttrs }),
        {
          op: 'LeakyReLU',
          name: 'p',
          attrs: { act_type: 'prelu' },
          inputs: [
            [0, 0],
            [1, 0],
          ],
        },
      ],
      [[2, 0]],
      version,
    );

  it('LeakyReLU gamma gets Constant 0.25 before 0.9.4 only, and an existing __init__ is kept', () => {
    expect(byName(load(prelu(903)).graph, 'gamma').attrs).toEqual({
      __init__: '["Constant", {"value": 0.25}]',
    });
    expect(byName(load(prelu(904)).graph, 'gamma').attrs).toEqual({});
    expect(byName(load(prelu(903, { __init__: 'x' })).graph, 'gamma').attrs).toEqual({ __init__: 'x' });
    expect(byName(load(prelu(903)).graph, 'x').attrs).toEqual({});
  });
});

describe('0.9.5: argmax/argmin axis="-1" meant "no axis"', () => {
  const arg = (op: string, version: number) =>
    file([v('x'), { op, name: 'r', attrs: { axis: '-1' }, inputs: [[0, 0]] }], [[1, 0]], version);

  it.each(['argmax', 'argmin'])('%s: dropped before 0.9.5, kept from 0.9.5', (op) => {
    const old = byName(load(arg(op, 904)).graph, 'r');
    expect(old.attrs).toEqual({});
    expect(old.parsed).toMatchObject({ axis: null });
    const cur = byName(load(arg(op, 905)).graph, 'r');
    expect(cur.attrs).toEqual({ axis: '-1' });
    expect(cur.parsed).toMatchObject({ axis: -1 });
  });
});

describe('versions and MXNet 2.0 files', () => {
  const one = (version?: number, extra: Record<string, unknown> = {}) =>
    file([v('x', { attrs: { __shape__: '(0, 3)' } })], [[0, 0, 0]], version, extra);

  it('warns for older files, not for 1.9.1 or 2.0, and like MXNet for newer ones', () => {
    expect(load(one(10200)).warnings).toEqual([
      'Loading symbol saved by previous version v1.2.0. Attempting to upgrade...',
    ]);
    expect(load(one(10901)).warnings).toEqual([]);
    expect(load(one(20000)).warnings).toEqual([]);
    expect(load(one(20100)).warnings).toEqual([
      'Warning: loading symbol saved by MXNet version 20100 with lower version of MXNet v20000. May cause undefined behavior. Please update MXNet if you encounter any issue',
    ]);
  });

  it('reads is_np_shape into the result and the graph attributes', () => {
    const { graph, isNpShape, version } = load(one(20000, { is_np_shape: ['int', 1] }));
    expect([version, isNpShape]).toEqual([20000, true]);
    expect(graph.attrs.get('is_np_shape')).toBe(1);
    expect(graph.attrs.get('mxnet_version')).toBe(20000);
    expect(load(one(10901)).isNpShape).toBe(false);
  });

  it('np-shape loading converts __shape__ only when the file is not np-shape', () => {
    const shape = (text: string, np: boolean) => byName(load(text, np).graph, 'x').attrs.__shape__;
    expect(shape(one(10901), false)).toBe('(0, 3)');
    expect(shape(one(10901), true)).toBe('[-1,3]');
    expect(shape(one(20000, { is_np_shape: ['int', 0] }), true)).toBe('[-1,3]');
    expect(shape(one(20000, { is_np_shape: ['int', 1] }), true)).toBe('(0, 3)');
  });

  it('np-shape shape strings: 0 → -1, () → None (unknown), unparsable left alone', () => {
    expect(toNumpyShapeAttr('(2, 0, 4)')).toBe('[2,-1,4]');
    expect(toNumpyShapeAttr('(5,)')).toBe('[5]');
    expect(toNumpyShapeAttr('[3,0]')).toBe('[3,-1]');
    expect(toNumpyShapeAttr('()')).toBe('None');
    expect(toNumpyShapeAttr('None')).toBe('None');
    expect(toNumpyShapeAttr('(2, x)')).toBe('(2, x)');
  });

  it('control_deps are read and written back', () => {
    const text = file(
      [
        v('x'),
        { op: 'Activation', name: 'a', attrs: { act_type: 'relu' }, inputs: [[0, 0, 0]] },
        { op: 'Activation', name: 'b', attrs: { act_type: 'relu' }, inputs: [[0, 0, 0]], control_deps: [1] },
      ],
      [[2, 0, 0]],
      10901,
    );
    const { graph } = load(text);
    expect(byName(graph, 'b').controlDeps.map((n) => n.name)).toEqual(['a']);
    expect(JSON.parse(saveJSON(graph)).nodes[2].control_deps).toEqual([1]);
  });

  it('keeps entry versions and drops nodes the heads do not reach', () => {
    const text = file(
      [
        v('x'),
        v('unused'),
        { op: 'Activation', name: 'a', attrs: { act_type: 'relu' }, inputs: [[0, 0, 3]] },
      ],
      [[2, 0, 1]],
      10901,
    );
    const saved = JSON.parse(saveJSON(load(text).graph));
    expect(saved.nodes.map((n: N) => n.name)).toEqual(['x', 'a']);
    expect(saved.nodes[1].inputs).toEqual([[0, 0, 3]]);
    expect(saved.heads).toEqual([[1, 0, 1]]);
  });
});
