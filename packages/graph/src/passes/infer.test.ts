/**
 * MXNet's own inference tests, ported: tests/python/unittest/test_infer_shape.py and the
 * inference cases of test_symbol.py. Expected shapes and dtypes are the literals of those tests
 * (MXNet's results). Legacy (1.x) shapes there use 0 for an unknown dim and `()` for an unknown
 * shape; `fromLegacyShape`/`toLegacyShape` convert, so each literal appears exactly as MXNet wrote it.
 * Auto-created parameter variables (`fc1_weight`) are created by hand, with MXNet's names.
 */
import { fromLegacyShape, isMXNetError, type Shape, toLegacyShape } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { inferShape, inferType } from './infer.js';
import { byName, resultOf, TestGraph } from './infer-test-graphs.js';

const g = new TestGraph(createOpRegistry());

/** MXNet's legacy literal (0 = unknown dim) as our shape. */
const legacy = (s: number[]): Shape => fromLegacyShape(s) as Shape;

/** tests/python/common/models.py `mlp2()`. */
function mlp2() {
  const data = g.v('data');
  const fc1 = g.op('FullyConnected', 'fc1', { num_hidden: '1000' }, [
    data,
    g.v('fc1_weight'),
    g.v('fc1_bias'),
  ]);
  const act = g.op('Activation', 'activation0', { act_type: 'relu' }, [fc1]);
  const fc2 = g.op('FullyConnected', 'fc2', { num_hidden: '10' }, [act, g.v('fc2_weight'), g.v('fc2_bias')]);
  return g.index(fc2);
}

describe('test_infer_shape.py', () => {
  it('test_mlp2_infer_shape', () => {
    const idx = mlp2();
    const res = inferShape(idx, byName(idx, { data: [100, 100] }));
    expect(resultOf(idx, res, 'fc2')).toEqual([100, 10]);
    const trueShapes: Record<string, number[]> = {
      fc2_bias: [10],
      fc2_weight: [10, 1000],
      fc1_bias: [1000],
      fc1_weight: [1000, 100],
    };
    for (const [k, v] of Object.entries(trueShapes)) expect(resultOf(idx, res, k)).toEqual(v);
    expect(res.numUnknown).toBe(0);
  });

  it('test_mlp2_infer_error: the error names fc1 and variable fc1_weight with both shapes', () => {
    const idx = mlp2();
    let err: unknown;
    try {
      inferShape(idx, byName(idx, { data: [100, 100], fc1_weight: [1, 100] }));
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err)).toBe(true);
    const msg = (err as Error).message;
    expect(msg).toContain('node `fc1` (FullyConnected)');
    expect(msg).toContain('variable `fc1_weight`');
    expect(msg).toContain('(1000, 100)');
    expect(msg).toContain('(1, 100)');
    expect(msg).toContain('num_hidden=1000');
    expect(msg).toContain('data = (100, 100) from variable `data`');
    expect(msg).toContain('hint: check the shape given for variable `fc1_weight`');
  });

  it('test_backward_infer: the weight shape flows back from FullyConnected', () => {
    // MXNet ties `wt` to `w` with `_identity_with_attr_like_rhs`, whose shape inference is
    // ElemwiseShape<2, 1>; elemwise_add has the same shape inference, so it stands in here.
    const w = g.v('weight');
    const wshift = g.v('wshift', { __shape__: '(1,)' });
    const data = g.v('data');
    let wt = g.op('broadcast_add', 'wt', {}, [w, wshift]);
    wt = g.op('elemwise_add', 'wt_like_w', {}, [wt, w]);
    const net = g.op('FullyConnected', 'fc', { num_hidden: '11', no_bias: 'True' }, [data, wt]);
    const idx = g.index(net);
    const res = inferShape(idx, byName(idx, { data: [7, 100] }));
    expect(resultOf(idx, res, 'weight')).toEqual([11, 100]);
  });

  it('test_incomplete_infer_elewise', () => {
    const a = g.v('a', { __shape__: '(0, 10)' });
    const b = g.v('b', { __shape__: '(12, 0)' });
    const idx = g.index(g.op('_Plus', 'c', {}, [a, b]));
    const res = inferShape(idx);
    expect(resultOf(idx, res, 'a')).toEqual([12, 10]);
    expect(resultOf(idx, res, 'b')).toEqual([12, 10]);
  });

  it('test_incomplete_infer_convolution', () => {
    const a = g.v('a', { __shape__: '(0, 10, 0, 0)' });
    const b = g.op(
      'Convolution',
      'conv',
      { num_filter: '21', kernel: '(3, 3)', dilate: '(1, 1)', pad: '(1, 1)' },
      [a, g.v('conv_weight'), g.v('conv_bias')],
    );
    const c = g.v('c', { __shape__: '(5, 21, 32, 32)' });
    const idx = g.index(g.op('_Plus', 'd', {}, [b, c]));
    expect(resultOf(idx, inferShape(idx), 'a')).toEqual([5, 10, 32, 32]);
  });

  it('test_fc_infer_type', () => {
    const data = g.v('data');
    const fc = g.op('FullyConnected', 'fc1', { num_hidden: '1000' }, [
      data,
      g.v('fc1_weight'),
      g.v('fc1_bias'),
    ]);
    const idx = g.index(fc);
    const res = inferType(idx, byName(idx, { data: 'float32' as const }));
    expect(resultOf(idx, res, 'fc1')).toBe('float32');
    expect(resultOf(idx, res, 'fc1_bias')).toBe('float32');
    expect(resultOf(idx, res, 'fc1_weight')).toBe('float32');
  });

  it('test_shape_completely_unknown: nothing known stays unknown (legacy and np shape)', () => {
    const idx = g.index(g.op('sin', 'sin0', {}, [g.v('data')]));
    for (const npShape of [false, true]) {
      const res = inferShape(idx, {}, { npShape });
      // MXNet: () in legacy mode, None under np shape — both mean "unknown".
      expect(toLegacyShape(resultOf(idx, res, 'data'))).toEqual([]);
      expect(resultOf(idx, res, 'sin0')).toBeUndefined();
      expect(res.numUnknown).toBe(2);
    }
  });

  it('test_dot_partial_shape', () => {
    const idx = g.index(g.op('dot', 'z', {}, [g.v('x'), g.v('y')]));
    const res = inferShape(idx, byName(idx, { x: legacy([0, 3, 4]), y: [4, 5] }));
    expect(toLegacyShape(resultOf(idx, res, 'z'))).toEqual([0, 3, 5]);
    const np = inferShape(idx, byName(idx, { x: [-1, 3, 4], y: [4, 5] }), { npShape: true });
    expect(resultOf(idx, np, 'z')).toEqual([-1, 3, 5]);
  });

  it('test_batch_dot_partial_shape (the cases where both operands keep their inner dims)', () => {
    const idx = g.index(g.op('batch_dot', 'z', {}, [g.v('x'), g.v('y')]));
    const res = inferShape(idx, byName(idx, { x: legacy([0, 3, 4]), y: legacy([0, 4, 5]) }));
    expect(toLegacyShape(resultOf(idx, res, 'z'))).toEqual([0, 3, 5]);
    const np = inferShape(idx, byName(idx, { x: [-1, 3, 4], y: [-1, 4, 5] }), { npShape: true });
    expect(resultOf(idx, np, 'z')).toEqual([-1, 3, 5]);
  });

  it('test_where_partial_shape: partial shapes pass through `where` without error', () => {
    const idx = g.index(g.op('where', 'w', {}, [g.v('cond'), g.v('x'), g.v('y')]));
    const res = inferShape(idx, byName(idx, { cond: legacy([0, 2]), x: legacy([0, 2]), y: legacy([0, 2]) }));
    // MXNet only checks that this does not raise; the output is then x's partial shape.
    expect(toLegacyShape(resultOf(idx, res, 'w'))).toEqual([0, 2]);
  });
});

describe('test_symbol.py', () => {
  it('test_symbol_infer_type: Cast splits float16 data from a float32 net', () => {
    const data = g.v('data');
    const f32 = g.op('Cast', 'cast0', { dtype: 'float32' }, [data]);
    const fc1 = g.op('FullyConnected', 'fc1', { num_hidden: '128' }, [
      f32,
      g.v('fc1_weight'),
      g.v('fc1_bias'),
    ]);
    const mlp = g.op('SoftmaxOutput', 'softmax', {}, [fc1, g.v('softmax_label')]);
    const idx = g.index(mlp);
    const res = inferType(idx, byName(idx, { data: 'float16' as const }));
    const args = ['data', 'fc1_weight', 'fc1_bias', 'softmax_label'].map((n) => resultOf(idx, res, n));
    expect(args).toEqual(['float16', 'float32', 'float32', 'float32']);
    expect(resultOf(idx, res, 'softmax')).toBe('float32');
  });

  it('test_symbol_infer_shape: partial first, complete once prevstate is known', () => {
    const [numHidden, numDim, numSample] = [128, 64, 10];
    const data = g.v('data');
    const prev = g.v('prevstate');
    const x2h = g.op('FullyConnected', 'x2h', { num_hidden: String(numHidden) }, [
      data,
      g.v('x2h_weight'),
      g.v('x2h_bias'),
    ]);
    const h2h = g.op('FullyConnected', 'h2h', { num_hidden: String(numHidden) }, [
      prev,
      g.v('h2h_weight'),
      g.v('h2h_bias'),
    ]);
    const sum = g.op('elemwise_add', 'add0', {}, [x2h, h2h]);
    const idx = g.index(g.op('Activation', 'out', { act_type: 'relu' }, [sum]));
    const partial = inferShape(idx, byName(idx, { data: [numSample, numDim] }));
    // infer_shape returns (None, None, None): inference is incomplete.
    expect(partial.numUnknown).toBeGreaterThan(0);
    expect(resultOf(idx, partial, 'data')).toEqual([numSample, numDim]);
    expect(resultOf(idx, partial, 'x2h_weight')).toEqual([numHidden, numDim]);
    expect(toLegacyShape(resultOf(idx, partial, 'h2h_weight'))).toEqual([]);
    const stateShape = resultOf(idx, partial, 'out') as Shape;
    const full = inferShape(idx, byName(idx, { data: [numSample, numDim], prevstate: stateShape }));
    expect(full.numUnknown).toBe(0);
    expect(resultOf(idx, full, 'x2h_weight')).toEqual([numHidden, numDim]);
    expect(resultOf(idx, full, 'h2h_weight')).toEqual([numHidden, numHidden]);
  });

  it('test_symbol_infer_shape_var: __shape__ seeds, a given shape overrides it', () => {
    const a = g.v('a', { __shape__: '(2, 3)' });
    const b = g.v('b');
    const idx = g.index(g.op('elemwise_add', 'c', {}, [a, b]));
    const res = inferShape(idx);
    for (const n of ['a', 'b', 'c']) expect(resultOf(idx, res, n)).toEqual([2, 3]);
    const over = inferShape(idx, byName(idx, { a: [5, 6] }));
    for (const n of ['a', 'b', 'c']) expect(resultOf(idx, over, n)).toEqual([5, 6]);
  });

  it('test_simple_bind_incomplete_shape_inference_in_one_forward_pass', () => {
    const data = g.v('data');
    const weight = g.v('fc_weight');
    const fc = g.op('FullyConnected', 'fc', { num_hidden: '1', no_bias: 'True' }, [data, weight]);
    const abs = g.op('abs', 'abs0', {}, [weight]);
    const net = g.op('_Plus', 'net', {}, [g.op('sum', 'sum0', {}, [abs]), g.op('sum', 'sum1', {}, [fc])]);
    const idx = g.index(net);
    // The weight comes first in DFS order, so its consumers are unknown in the first forward
    // sweep; MXNet's test only requires that binding (full inference) succeeds.
    const res = inferShape(idx, byName(idx, { data: [5, 13] }));
    expect(res.numUnknown).toBe(0);
  });

  it('test_simple_bind_gradient_graph_possible_with_cycle: data + data + ... + data', () => {
    const data = g.v('data');
    let res: GraphNodeLike = data;
    for (let i = 0; i < 7; i++) res = g.op('_Plus', `plus${i}`, {}, [res, data]);
    const idx = g.index(res);
    const out = inferShape(idx, byName(idx, { data: [1] }));
    expect(out.numUnknown).toBe(0);
    expect(out.values.every((s) => s?.length === 1 && s[0] === 1)).toBe(true);
  });
});

/**
 * MXNet cases whose result depends on op-level partial and backward inference in @mx/ops:
 * FullyConnected's data batch dim from its output (`FullyConnectedShape`), SliceChannel's and
 * Concat's inputs from their outputs, Embedding / transpose / pick outputs from partially known
 * inputs, and batch_dot leaving its output unknown when rhs's contracted dim is unknown.
 */
describe('test_infer_shape.py cases that need op-level partial / backward inference', () => {
  it('test_incomplete_infer_mlp', () => {
    const a = g.v('a', { __shape__: '(0, 10)' });
    const b = g.op('FullyConnected', 'fc', { num_hidden: '21' }, [a, g.v('fc_weight'), g.v('fc_bias')]);
    const c = g.v('c', { __shape__: '(5, 0)' });
    const idx = g.index(g.op('_Plus', 'd', {}, [b, c]));
    const res = inferShape(idx);
    expect(resultOf(idx, res, 'a')).toEqual([5, 10]);
    expect(resultOf(idx, res, 'c')).toEqual([5, 21]);
  });

  it('test_incomplete_infer_slicechannel', () => {
    {
      const a = g.v('a', { __shape__: '(0, 10)' });
      const b = g.op('SliceChannel', 'slice', { num_outputs: '10', axis: '1', squeeze_axis: 'True' }, [a]);
      const c = g.v('c', { __shape__: '(5,)' });
      const idx = g.index(g.op('_Plus', 'd', {}, [{ node: b, index: 1, version: 0 }, c]));
      expect(resultOf(idx, inferShape(idx), 'a')).toEqual([5, 10]);
    }
    {
      const a = g.v('a', { __shape__: '(0, 15, 0)' });
      const b = g.op('SliceChannel', 'slice', { num_outputs: '3', squeeze_axis: 'False' }, [a]);
      const c = g.v('c', { __shape__: '(3, 5, 2)' });
      const idx = g.index(g.op('_Plus', 'd', {}, [{ node: b, index: 1, version: 0 }, c]));
      expect(resultOf(idx, inferShape(idx), 'a')).toEqual([3, 15, 2]);
    }
  });

  it('test_incomplete_infer_concat', () => {
    const a = g.v('a', { __shape__: '(0, 10)' });
    const b = g.v('b', { __shape__: '(0, 5)' });
    const c = g.op('Concat', 'concat', { num_args: '2', dim: '1' }, [a, b]);
    const d = g.v('d', { __shape__: '(2, 0)' });
    const idx = g.index(g.op('_Plus', 'sum', {}, [d, c]));
    const res = inferShape(idx);
    expect(resultOf(idx, res, 'a')).toEqual([2, 10]);
    expect(resultOf(idx, res, 'b')).toEqual([2, 5]);
    expect(resultOf(idx, res, 'd')).toEqual([2, 15]);
  });

  it('test_embedding_partial_shape', () => {
    const idx = g.index(g.op('Embedding', 'y', { input_dim: '100', output_dim: '10' }, [g.v('x'), g.v('w')]));
    const res = inferShape(idx, byName(idx, { x: legacy([0, 5]), w: [100, 10] }));
    expect(toLegacyShape(resultOf(idx, res, 'y'))).toEqual([0, 5, 10]);
    const np = inferShape(idx, byName(idx, { x: [-1, 5], w: [100, 10] }), { npShape: true });
    expect(resultOf(idx, np, 'y')).toEqual([-1, 5, 10]);
  });

  it('test_transpose_partial_shape', () => {
    const idx = g.index(g.op('transpose', 'y', { axes: '[0, 3, 2, 1]' }, [g.v('x')]));
    const res = inferShape(idx, byName(idx, { x: legacy([0, 3, 224, 224]) }));
    expect(toLegacyShape(resultOf(idx, res, 'y'))).toEqual([0, 224, 224, 3]);
    const np = inferShape(idx, byName(idx, { x: [-1, 3, 224, 224] }), { npShape: true });
    expect(resultOf(idx, np, 'y')).toEqual([-1, 224, 224, 3]);
  });

  it('test_pick_partial_shape', () => {
    const idx = g.index(g.op('pick', 'y', { axis: '1' }, [g.v('x'), g.v('index')]));
    const res = inferShape(idx, byName(idx, { x: legacy([0, 3, 3]), index: legacy([0, 3]) }));
    expect(toLegacyShape(resultOf(idx, res, 'y'))).toEqual([0, 3]);
    const np = inferShape(idx, byName(idx, { x: [-1, 3, 3], index: [-1, 3] }), { npShape: true });
    expect(resultOf(idx, np, 'y')).toEqual([-1, 3]);
  });

  it('test_batch_dot_partial_shape (rhs inner dim unknown → output unknown)', () => {
    const idx = g.index(g.op('batch_dot', 'z', {}, [g.v('x'), g.v('y')]));
    const res = inferShape(idx, byName(idx, { x: legacy([0, 3, 4]), y: legacy([0, 0, 5]) }));
    expect(toLegacyShape(resultOf(idx, res, 'z'))).toEqual([]);
    const np = inferShape(idx, byName(idx, { x: [-1, 3, 4], y: [-1, -1, 5] }), { npShape: true });
    expect(resultOf(idx, np, 'z')).toBeUndefined();
  });
});

type GraphNodeLike = ReturnType<TestGraph['v']>;
