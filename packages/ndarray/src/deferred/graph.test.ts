/**
 * `dc.getSymbol`: traced forwards (an MLP, a LeNet-like CNN) become @mx/graph graphs with MXNet's
 * structure — variables named as bound, op nodes `node_0`, `node_1`... with MXNet's string
 * attributes — that `saveJSON` writes and `loadJSON` reads back unchanged, whose shape inference
 * agrees with the deferred arrays' shapes, and whose deferred values equal the eager ones bit for
 * bit. The expected JSON is written out by hand from MXNet's rules (nnvm's DFS order, arg_nodes,
 * node_row_ptr, heads), not produced by the code under test.
 *
 * Its own runtime: node names count from node_0 in the first trace, as in a fresh MXNet process.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { GraphNode, type IndexedEntry, inferShape, loadJSON, saveJSON } from '@mx/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd, dc } = rt;
afterAll(() => rt.dispose());

function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out[i] = ((s / 2147483648) * 2 - 1) * 0.5;
  }
  return out;
}

const param = (shape: number[], seed: number) =>
  nd.array(
    values(
      shape.reduce((p, d) => p * d, 1),
      seed,
    ),
    { shape },
  );
const bits = (a: NDArray) => Array.from(new Uint32Array((a.dataSync() as Float32Array).slice().buffer));

describe('an MLP', () => {
  it('traces to MXNet’s JSON, which loads and re-saves unchanged', () => {
    const data = param([8, 10], 1);
    const w1 = param([16, 10], 2);
    const b1 = param([16], 3);
    const w2 = param([4, 16], 4);
    const b2 = param([4], 5);
    const forward = () => {
      const h = nd.Activation(nd.FullyConnected(data, w1, b1, { num_hidden: 16 }), { act_type: 'relu' });
      return nd.softmax(nd.FullyConnected(h, w2, b2, { num_hidden: 4 }));
    };
    dc.setVariable([data, w1, b1, w2, b2], ['data', 'fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias']);
    const out = dc.context(() => nd.scopeSync(forward));
    const graph = dc.getSymbol(out, { inputs: [data, w1, b1, w2, b2] });
    const text = saveJSON(graph);
    expect(JSON.parse(text)).toEqual({
      nodes: [
        { op: 'null', name: 'data', inputs: [] },
        { op: 'null', name: 'fc1_weight', inputs: [] },
        { op: 'null', name: 'fc1_bias', inputs: [] },
        {
          op: 'FullyConnected',
          name: 'node_0',
          attrs: { num_hidden: '16' },
          inputs: [
            [0, 0, 0],
            [1, 0, 0],
            [2, 0, 0],
          ],
        },
        { op: 'Activation', name: 'node_1', attrs: { act_type: 'relu' }, inputs: [[3, 0, 0]] },
        { op: 'null', name: 'fc2_weight', inputs: [] },
        { op: 'null', name: 'fc2_bias', inputs: [] },
        {
          op: 'FullyConnected',
          name: 'node_2',
          attrs: { num_hidden: '4' },
          inputs: [
            [4, 0, 0],
            [5, 0, 0],
            [6, 0, 0],
          ],
        },
        { op: 'softmax', name: 'node_3', inputs: [[7, 0, 0]] },
      ],
      arg_nodes: [0, 1, 2, 5, 6],
      node_row_ptr: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      heads: [[8, 0, 0]],
      attrs: { mxnet_version: ['int', 10901] },
    });
    const loaded = loadJSON(text, rt.registry);
    expect(saveJSON(loaded.graph)).toBe(text);
    // Shape inference on the loaded graph agrees with the deferred output's shape.
    const idx = loaded.graph.indexed;
    const shapes = inferShape(idx, { nodes: new Map([[0, [8, 10]]]) });
    expect(shapes.values[idx.entryId(idx.outputs[0] as IndexedEntry)]).toEqual(out.shape);
    // And the deferred value is the eager one, bit for bit.
    const eager = forward();
    expect(bits(out)).toEqual(bits(eager));
    dc.clear(out);
    for (const a of [data, w1, b1, w2, b2, out, eager]) a.dispose();
  });
});

describe('a LeNet-like CNN', () => {
  it('records conv/pool/flatten/dense with their attributes, in order, and computes the eager bits', () => {
    const data = param([2, 1, 12, 12], 11);
    const cw = param([4, 1, 3, 3], 12);
    const cb = param([4], 13);
    const w1 = param([10, 100], 14);
    const b1 = param([10], 15);
    const w2 = param([3, 10], 16);
    const b2 = param([3], 17);
    const forward = () => {
      let x = nd.Convolution(data, cw, cb, { kernel: [3, 3], num_filter: 4 });
      x = nd.Activation(x, { act_type: 'tanh' });
      x = nd.Pooling(x, { kernel: [2, 2], stride: [2, 2], pool_type: 'max' });
      x = nd.Flatten(x);
      x = nd.Activation(nd.FullyConnected(x, w1, b1, { num_hidden: 10 }), { act_type: 'relu' });
      return nd.FullyConnected(x, w2, b2, { num_hidden: 3 });
    };
    // A variable given as a node keeps its attributes (what Gluon's Parameter.var() carries).
    const weightVar = GraphNode.variable('conv0_weight', { __shape__: '(4, 1, 3, 3)', __lr_mult__: '1.0' });
    dc.setVariable(
      [data, cw, cb, w1, b1, w2, b2],
      ['data', weightVar, 'conv0_bias', 'fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias'],
    );
    const shapes: number[][] = [];
    const out = dc.context(() =>
      nd.scopeSync(() => {
        const y = forward();
        shapes.push([...y.shape]);
        return y;
      }),
    );
    expect(shapes).toEqual([[2, 3]]);
    const nodes = JSON.parse(saveJSON(dc.getSymbol(out))).nodes as {
      op: string;
      name: string;
      attrs?: Record<string, string>;
      inputs: number[][];
    }[];
    const ops = nodes.filter((n) => n.op !== 'null');
    const first = Number(ops[0]?.name.slice('node_'.length));
    expect(ops.map((n) => n.name)).toEqual(ops.map((_, i) => `node_${first + i}`));
    expect(ops.map((n) => [n.op, n.attrs ?? {}])).toEqual([
      ['Convolution', { kernel: '(3, 3)', num_filter: '4' }],
      ['Activation', { act_type: 'tanh' }],
      ['Pooling', { kernel: '(2, 2)', pool_type: 'max', stride: '(2, 2)' }],
      ['Flatten', {}],
      ['FullyConnected', { num_hidden: '10' }],
      ['Activation', { act_type: 'relu' }],
      ['FullyConnected', { num_hidden: '3' }],
    ]);
    expect(nodes.map((n) => n.name).filter((_, i) => nodes[i]?.op === 'null')).toEqual([
      'data',
      'conv0_weight',
      'conv0_bias',
      'fc1_weight',
      'fc1_bias',
      'fc2_weight',
      'fc2_bias',
    ]);
    expect(nodes[1]?.attrs).toEqual({ __lr_mult__: '1.0', __shape__: '(4, 1, 3, 3)' });
    // Each op reads the previous op's output (the chain), plus its own parameters.
    const id = (name: string) => nodes.findIndex((n) => n.name === name);
    for (let i = 1; i < ops.length; i++) {
      const op = ops[i] as (typeof ops)[number];
      expect(op.inputs[0]).toEqual([id((ops[i - 1] as (typeof ops)[number]).name), 0, 0]);
    }
    const eager = forward();
    expect(bits(out)).toEqual(bits(eager));
    dc.clear(out);
    for (const a of [data, cw, cb, w1, b1, w2, b2, out, eager]) a.dispose();
  });
});

describe('getSymbol', () => {
  it('with inputs: a variable outside them is named with the node reading it; unused inputs warn', () => {
    const x = nd.array([1, 2, 3]);
    const w = nd.array([4, 5, 6]);
    const unused = nd.array([0]);
    dc.setVariable([x, w, unused], ['x', 'w', 'unused']);
    const y = dc.context(() => x.mul(w).sum());
    let error: Error | undefined;
    try {
      dc.getSymbol(y, { inputs: [x] });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(
      /output 0 is not computable from the given inputs: node node_\d+ \(broadcast_mul\) reads variable 'w'/,
    );
    const warnings: string[] = [];
    const g = dc.getSymbol(y, { inputs: [x, w, unused], warn: (m) => warnings.push(m) });
    expect(warnings).toEqual(["The 2-th input ('unused') is not used by any computation. Is this intended?"]);
    expect(g.indexed.inputNodes.map((i) => g.indexed.nodes[i]?.node.name)).toEqual(['x', 'w']);
    // An output that is itself a variable outside the inputs.
    expect(() => dc.getSymbol(w, { inputs: [x] })).toThrow(/it is variable 'w'/);
    // A plain array as an input.
    const stray = nd.array([1]);
    expect(() => dc.getSymbol(y, { inputs: [stray] })).toThrow(/not a deferred compute variable/);
    for (const a of [x, w, unused, y, stray]) a.dispose();
  });

  it('returns a copy: changing it does not change the recorded graph', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'x');
    const y = dc.context(() => x.exp());
    const g1 = dc.getSymbol(y);
    const n1 = g1.outputs[0]?.node as GraphNode;
    n1.name = 'renamed';
    n1.setAttr('__lr_mult__', '2.0');
    const g2 = dc.getSymbol(y);
    expect(g2.outputs[0]?.node.name).toMatch(/^node_\d+$/);
    expect(g2.outputs[0]?.node.attrs).toEqual({});
    expect(g2.outputs[0]?.node).not.toBe(n1);
    x.dispose();
    y.dispose();
  });
});
