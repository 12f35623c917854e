/**
 * Every way a symbol file can be wrong gives an MXNetError naming the file (and the node where there
 * is one), quickly, without touching the registry or anything else the caller holds.
 */
import { readFileSync } from 'node:fs';
import { MXNetError } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { loadJSON } from './index.js';

const registry = createOpRegistry();
const FIXTURES = new URL('../__fixtures__/', import.meta.url);
const MLP = readFileSync(new URL('mlp_symbol.json', FIXTURES), 'utf8');

const X = { op: 'null', name: 'x', inputs: [] };
const RELU = { op: 'Activation', name: 'r', attrs: { act_type: 'relu' }, inputs: [[0, 0, 0]] };

function doc(over: Record<string, unknown> = {}, nodes: unknown[] = [X, RELU]): string {
  return JSON.stringify({
    nodes,
    arg_nodes: [0],
    node_row_ptr: [0, 1, 2],
    heads: [[1, 0, 0]],
    attrs: { mxnet_version: ['int', 10901] },
    ...over,
  });
}
const withNode = (i: number, node: unknown, nodes: unknown[] = [X, RELU]) =>
  doc(
    {},
    nodes.map((n, j) => (j === i ? node : n)),
  );

/** Load and return the MXNetError (fails the test when it loads or throws something else). */
function failure(text: unknown): MXNetError {
  try {
    loadJSON(text as string, registry, { file: 'bad.json', warn: () => {} });
  } catch (e) {
    expect(e).toBeInstanceOf(MXNetError);
    expect((e as MXNetError).message).toContain('bad.json');
    return e as MXNetError;
  }
  throw new Error('loaded without an error');
}

describe('malformed text', () => {
  it.each([
    ['syntax error', '{"nodes": [}'],
    ['empty', ''],
    ['trailing garbage', `${doc()} x`],
    ['truncated MXNet file', MLP.slice(0, 900)],
  ])('%s', (_, text) => {
    expect(failure(text).message).toMatch(/malformed JSON/);
  });

  it('says where the syntax error is when the parser reports a position', () => {
    expect(failure('{\n  "nodes": [1 2]\n}').message).toMatch(/at line 2, column 15/);
  });

  it.each([
    ['an array', '[]'],
    ['a string', '"nodes"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('top level is %s', (_, text) => {
    expect(failure(text).message).toMatch(/must be an object/);
  });

  it('the text is not a string', () => {
    expect(failure(42).message).toMatch(/must be a string/);
    expect(failure(undefined).message).toMatch(/must be a string/);
  });
});

describe('graph fields', () => {
  it.each([
    ['nodes not an array', { nodes: {} }, /"nodes" must be an array/],
    ['nodes missing', { nodes: undefined }, /missing field "nodes"/],
    ['heads missing', { heads: undefined }, /missing field "heads"/],
    ['arg_nodes missing', { arg_nodes: undefined }, /missing field "arg_nodes"/],
    ['unknown field', { extra: 1 }, /unknown field "extra"/],
    ['heads not an array', { heads: 3 }, /"heads" must be an array/],
    ['head out of range', { heads: [[2, 0, 0]] }, /heads.*refers to node 2, but the file has 2/],
    ['head output out of range', { heads: [[1, 1, 0]] }, /heads.*output 1 of node 1 "r", which has 1/],
    ['head malformed', { heads: [[1]] }, /heads.*\[node_id, index\]/],
    ['arg_nodes out of range', { arg_nodes: [5] }, /arg_nodes.*refers to node 5/],
    ['arg_nodes names an op', { arg_nodes: [1] }, /node 1 is not a variable/],
    ['arg_nodes wrong type', { arg_nodes: ['0'] }, /arg_nodes.*non-negative integer/],
    ['node_row_ptr wrong type', { node_row_ptr: [0, -1] }, /node_row_ptr.*non-negative integer/],
    ['attrs not an object', { attrs: [] }, /"attrs" must be an object/],
    ['attr not [type, value]', { attrs: { mxnet_version: 10901 } }, /must be \[type, value\]/],
    ['unknown attr type', { attrs: { mxnet_version: ['float', 1] } }, /unknown attribute type "float"/],
    ['int attr not an int', { attrs: { mxnet_version: ['int', 1.5] } }, /not a valid int/],
    ['mxnet_version a string', { attrs: { mxnet_version: ['str', '10901'] } }, /mxnet_version.*\["int", N\]/],
    ['is_np_shape a list', { attrs: { is_np_shape: ['list_int', [1]] } }, /is_np_shape.*\["int", N\]/],
  ])('%s', (_, over, message) => {
    expect(failure(doc(over)).message).toMatch(message);
  });
});

describe('nodes', () => {
  it.each([
    ['not an object', 1, 'x', /node 1: must be an object/],
    ['op missing', { name: 'r', inputs: [] }, 'x', /node 1 "r": missing field "op"/],
    ['op not a string', { ...RELU, op: 3 }, 'x', /node 1 "r": "op" must be a string/],
    ['name not a string', { ...RELU, name: null }, 'x', /node 1: "name" must be a string/],
    ['inputs not an array', { ...RELU, inputs: {} }, 'x', /"inputs" must be an array/],
    ['unknown field', { ...RELU, foo: 1 }, 'x', /node 1 "r": unknown field "foo"/],
    [
      'attrs value not a string',
      { ...RELU, attrs: { act_type: 1 } },
      'x',
      /value of "act_type" must be a string/,
    ],
    ['attrs an array', { ...RELU, attrs: [] }, 'x', /"attrs": must be an object of strings/],
    ['param not an object', { ...RELU, param: 'x' }, 'x', /"param": must be an object/],
    ['control_deps wrong type', { ...RELU, control_deps: ['0'] }, 'x', /control_deps.*non-negative integer/],
    ['backward_source_id not a number', { ...RELU, backward_source_id: '1' }, 'x', /backward_source_id/],
    ['subgraphs', { ...RELU, subgraphs: [{}] }, 'Activation', /subgraph.*not supported/],
    [
      'entry of strings',
      { ...RELU, inputs: [['0', '0']] },
      'x',
      /input 0: element 0 must be a non-negative integer/,
    ],
    ['negative entry', { ...RELU, inputs: [[0, -1, 0]] }, 'x', /element 1 must be a non-negative/],
    ['fractional entry', { ...RELU, inputs: [[0.5, 0, 0]] }, 'x', /element 0 must be a non-negative/],
    ['entry too long', { ...RELU, inputs: [[0, 0, 0, 0]] }, 'x', /must be \[node_id, index\]/],
    ['entry too short', { ...RELU, inputs: [[0]] }, 'x', /must be \[node_id, index\]/],
    [
      'input out of range',
      { ...RELU, inputs: [[9, 0, 0]] },
      'x',
      /input 0: refers to node 9, but the file has 2/,
    ],
    ['self reference (cycle)', { ...RELU, inputs: [[1, 0, 0]] }, 'x', /refers to the node itself \(a cycle/],
    [
      'missing output',
      { ...RELU, inputs: [[0, 1, 0]] },
      'Activation',
      /input 0 refers to output 1 of node 0 "x", which has 1/,
    ],
    [
      'too few inputs',
      { ...RELU, inputs: [] },
      'Activation',
      /has 0 input\(s\); Activation with these parameters takes 1 \(data\)/,
    ],
    [
      'unknown attribute',
      { ...RELU, attrs: { act_type: 'relu', foo: '1' } },
      'Activation',
      /node 1 "r": Cannot find argument 'foo'/,
    ],
    [
      'unparsable attribute',
      { ...RELU, attrs: { act_type: 'nope' } },
      'Activation',
      /node 1 "r": .*act_type/,
    ],
    [
      'missing required attribute',
      { ...RELU, attrs: {} },
      'Activation',
      /node 1 "r": Required parameter act_type/,
    ],
  ])('%s', (_, node, op, message) => {
    const e = failure(withNode(1, node));
    expect(e.message).toMatch(message);
    if (op !== 'x') expect(e.op).toBe(op);
  });

  it('a forward reference (a node listed before its input)', () => {
    const nodes = [{ ...RELU, inputs: [[1, 0, 0]] }, X];
    const e = failure(doc({ arg_nodes: [1], heads: [[0, 0, 0]] }, nodes));
    expect(e.message).toMatch(/node 0 "r" input 0: refers to node 1, which comes after it/);
  });

  it('a cycle through two nodes', () => {
    const nodes = [
      X,
      { ...RELU, name: 'a', inputs: [[2, 0, 0]] },
      { ...RELU, name: 'b', inputs: [[1, 0, 0]] },
    ];
    expect(failure(doc({ heads: [[2, 0, 0]] }, nodes)).message).toMatch(
      /node 1 "a".*comes after it \(a cycle/,
    );
  });

  it('a variable with inputs', () => {
    expect(failure(withNode(1, { ...X, name: 'v', inputs: [[0, 0, 0]] })).message).toMatch(
      /variable.*has inputs/,
    );
  });

  it('an unknown operator names the node and suggests close names', () => {
    const e = failure(withNode(1, { ...RELU, op: 'Activaton' }));
    expect(e.message).toMatch(/node 1 "r": operator "Activaton" is not registered/);
    expect(e.hint).toMatch(/did you mean Activation/);
    expect(e.op).toBe('Activaton');
  });

  it('an unknown operator is an error even on a node the heads do not reach (like MXNet)', () => {
    const nodes = [X, RELU, { ...RELU, op: 'NoSuchOp', name: 'dead' }];
    expect(failure(doc({}, nodes)).message).toMatch(/node 2 "dead": operator "NoSuchOp"/);
  });
});

describe('hostile sizes stay cheap', () => {
  it('a huge num_args is refused before anything is allocated for it', () => {
    const cat = { op: 'Concat', name: 'c', attrs: { num_args: '1000000000' }, inputs: [[0, 0, 0]] };
    for (const version of [800, 10901]) {
      const t0 = performance.now();
      const e = failure(doc({ attrs: { mxnet_version: ['int', version] } }, [X, cat]));
      expect(e.message).toMatch(/declares 1000000000 inputs/);
      expect(performance.now() - t0).toBeLessThan(1000);
    }
  });

  it('a megabyte-long unknown op name gets no edit-distance hint', () => {
    const t0 = performance.now();
    const e = failure(withNode(1, { ...RELU, op: 'Q'.repeat(1 << 20) }));
    expect(e.message).toMatch(/is not registered/);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('deep nesting is a clean error', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(failure(`{"nodes": ${deep}, "arg_nodes": [], "heads": []}`).message).toMatch(
      /node 0: must be an object/,
    );
  });
});

describe('a failed load changes nothing', () => {
  it('leaves the registry and the options as they were; the next load works', () => {
    const names = registry.names();
    const options = Object.freeze({ file: 'bad.json', warn: () => {} });
    expect(() => loadJSON(withNode(1, { ...RELU, op: 'Nope' }), registry, options)).toThrow(MXNetError);
    expect(() => loadJSON(MLP.slice(0, 500), registry, options)).toThrow(MXNetError);
    expect(registry.names()).toEqual(names);
    expect(loadJSON(MLP, registry, options).graph.indexed.nodes).toHaveLength(14);
  });
});
