/**
 * The gradients of the core ops (init, reduce, shape, linalg, copy, Cast) and of the backward ops
 * they are built from, checked against central differences in float64: each case evaluates the
 * op's gradient `build` through the cpu-wasm op harness (test-util/grad-check.ts) at a small random
 * point, away from kinks and ties. Ops whose gradient is 'zero' are checked to be locally flat.
 */
import type { DTypeName, Shape } from '@mx/base';
import { E } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { gradCheck, randArray, rng } from '../test-util/grad-check.js';
import { createOpHarness, type HostArray } from '../test-util/run-op.js';

const h = createOpHarness();
const next = rng(2024);

/** Random float64 values; `distinct` spreads them so no two are within 0.05 (no ties, no kinks). */
function x(shape: Shape, opts: { lo?: number; hi?: number; distinct?: boolean } = {}): HostArray {
  const lo = opts.lo ?? -1;
  const hi = opts.hi ?? 1;
  if (!opts.distinct) return randArray(shape, next, lo, hi);
  const n = shape.reduce((p, d) => p * d, 1);
  const order = Array.from({ length: n }, (_, i) => i).sort(() => next() - 0.5);
  const data = order.map((k) => lo + ((hi - lo) * (k + 0.5 + 0.3 * (next() - 0.5))) / n);
  return { shape: [...shape], dtype: 'float64', data };
}

const ints = (shape: Shape, data: number[], dtype: DTypeName = 'int32'): HostArray => ({
  shape: [...shape],
  dtype,
  data,
});

interface Case {
  readonly op: string;
  readonly inputs: () => HostArray[];
  readonly params?: Record<string, unknown>;
  readonly noGrad?: readonly number[];
  readonly eps?: number;
  readonly rtol?: number;
  readonly atol?: number;
  /** Ops the gradient must (not) run, e.g. to check a cheap path is taken. */
  readonly expectOps?: readonly string[];
}

function check(name: string, c: Case): void {
  it(name, () => {
    const r = gradCheck(h, c.op, c.inputs(), {
      ...(c.params ? { params: c.params } : {}),
      ...(c.noGrad ? { noGrad: c.noGrad } : {}),
      ...(c.eps ? { eps: c.eps } : {}),
      ...(c.rtol ? { rtol: c.rtol } : {}),
      ...(c.atol ? { atol: c.atol } : {}),
    });
    if (c.expectOps) expect(r.ops).toEqual(c.expectOps);
  });
}

describe('the check itself', () => {
  const def = (name: string, gradient: NonNullable<Parameters<typeof h.registry.define>[0]['gradient']>) =>
    h.registry.define({
      name,
      inferShape: (_a, i, o) => {
        o[0] = i[0];
        return i[0] !== undefined;
      },
      elementwise: { forward: E.mul(E.x, 2) },
      gradient,
    });
  def('test_half_grad', { inputs: 'none', build: (g) => [g.ograd(0)] });
  def('test_undeclared', {
    inputs: 'none',
    build: (g) => [g.op1('_mul_scalar', [g.input(0)], { scalar: 2 })],
  });
  def('test_good_grad', {
    inputs: 'none',
    build: (g) => [g.op1('_mul_scalar', [g.ograd(0)], { scalar: 2 })],
  });

  it('fails a wrong gradient and an undeclared read, passes the right one', () => {
    expect(() => gradCheck(h, 'test_half_grad', [x([3])])).toThrow(/central difference/);
    expect(() => gradCheck(h, 'test_undeclared', [x([3])])).toThrow(/did not declare/);
    expect(gradCheck(h, 'test_good_grad', [x([3])]).ops).toEqual(['_mul_scalar']);
  });
});

describe('reduce gradients', () => {
  const axesCases: Record<string, unknown>[] = [
    {},
    { axis: [1] },
    { axis: [0, 2], keepdims: true },
    { axis: [1], exclude: true },
    { axis: [-1], keepdims: true },
  ];
  for (const op of ['sum', 'mean', 'nansum']) {
    for (const p of axesCases)
      check(`${op} ${JSON.stringify(p)}`, { op, params: p, inputs: () => [x([2, 3, 2])] });
  }
  for (const op of ['max', 'min']) {
    for (const p of axesCases)
      check(`${op} ${JSON.stringify(p)}`, {
        op,
        params: p,
        inputs: () => [x([2, 3, 2], { distinct: true })],
      });
  }
  for (const op of ['prod', 'nanprod']) {
    for (const p of axesCases)
      check(`${op} ${JSON.stringify(p)}`, {
        op,
        params: p,
        inputs: () => [x([2, 3, 2], { lo: 0.5, hi: 1.5 })],
      });
  }
  it('max sends the gradient to every position equal to the max', () => {
    const r = gradCheck(h, 'max', [{ shape: [1, 3], dtype: 'float64', data: [2, 2, 1] }], {
      params: { axis: [1] },
      // The kink: central differences see half the gradient on each tie.
      rtol: 1,
      atol: 10,
    });
    const g = r.analytic[0] as number[];
    expect(g[0]).not.toBe(0);
    expect(g[0]).toBe(g[1]);
    expect(Math.abs(g[2] as number)).toBe(0);
  });
  check('nansum with NaN', {
    op: 'nansum',
    params: { axis: [1] },
    inputs: () => [{ shape: [2, 3], dtype: 'float64', data: [0.5, Number.NaN, -0.3, 0.2, 0.7, Number.NaN] }],
  });
  check('nanprod with NaN', {
    op: 'nanprod',
    params: { axis: [0] },
    inputs: () => [{ shape: [2, 3], dtype: 'float64', data: [0.5, Number.NaN, 1.3, 0.8, 0.7, Number.NaN] }],
  });
  for (const p of [
    {},
    { ord: 1 },
    { axis: [1] },
    { ord: 1, axis: [0], keepdims: true },
    { out_dtype: 'float64' },
  ])
    check(`norm ${JSON.stringify(p)}`, {
      op: 'norm',
      params: p,
      inputs: () => [x([3, 4], { distinct: true })],
    });
  for (const op of ['argmax', 'argmin'])
    check(op, { op, params: { axis: 1 }, inputs: () => [x([3, 4], { distinct: true })] });
  check('argsort', { op: 'argsort', inputs: () => [x([3, 4], { distinct: true })] });
  for (const p of [
    { k: 2, ret_typ: 'value' },
    { k: 2, ret_typ: 'both', axis: 0 },
    { k: 3, ret_typ: 'value', axis: null, is_ascend: true },
    { k: 2, ret_typ: 'both', dtype: 'int32' },
    { k: 2, ret_typ: 'indices' },
    { k: 2, ret_typ: 'mask' },
  ])
    check(`topk ${JSON.stringify(p)}`, {
      op: 'topk',
      params: p,
      inputs: () => [x([3, 4], { distinct: true })],
    });
  for (const p of [{}, { axis: 0, is_ascend: false }, { axis: null }])
    check(`sort ${JSON.stringify(p)}`, {
      op: 'sort',
      params: p,
      inputs: () => [x([3, 4], { distinct: true })],
    });
  for (const p of [{}, { axis: 0 }, { axis: -1 }, { axis: 1, dtype: 'float64' }])
    check(`cumsum ${JSON.stringify(p)}`, { op: '_np_cumsum', params: p, inputs: () => [x([3, 4])] });
});

describe('shape gradients', () => {
  check('Reshape', { op: 'Reshape', params: { shape: [4, -1] }, inputs: () => [x([2, 3, 2])] });
  check('Flatten', { op: 'Flatten', inputs: () => [x([2, 3, 2])] });
  check('expand_dims', { op: 'expand_dims', params: { axis: -1 }, inputs: () => [x([2, 3])] });
  check('squeeze', { op: 'squeeze', inputs: () => [x([2, 1, 3])] });
  check('reshape_like', {
    op: 'reshape_like',
    params: { lhs_begin: 1, rhs_begin: 1 },
    inputs: () => [x([2, 6]), x([5, 3, 2])],
  });
  for (const axes of [[], [1, 2, 0], [-1, 0, 1]])
    check(`transpose ${axes}`, { op: 'transpose', params: { axes }, inputs: () => [x([2, 3, 4])] });
  check('SwapAxis', { op: 'SwapAxis', params: { dim1: 0, dim2: 2 }, inputs: () => [x([2, 3, 4])] });
  check('broadcast_to', { op: 'broadcast_to', params: { shape: [2, 0, 3] }, inputs: () => [x([1, 3, 1])] });
  check('broadcast_axis', {
    op: 'broadcast_axis',
    params: { axis: [0, 2], size: [2, 3] },
    inputs: () => [x([1, 3, 1])],
  });
  check('broadcast_like', { op: 'broadcast_like', inputs: () => [x([1, 3]), x([4, 3])] });
  check('broadcast_like lhs_axes', {
    op: 'broadcast_like',
    params: { lhs_axes: [0], rhs_axes: [2] },
    inputs: () => [x([1, 3]), x([4, 3, 2])],
  });
  check('Concat', {
    op: 'Concat',
    params: { num_args: 3, dim: 1 },
    inputs: () => [x([2, 1]), x([2, 3]), x([2, 2])],
  });
  check('Concat dim -1', {
    op: 'Concat',
    params: { num_args: 2, dim: -1 },
    inputs: () => [x([2, 2, 1]), x([2, 2, 3])],
  });
  check('stack', {
    op: 'stack',
    params: { num_args: 3, axis: 1 },
    inputs: () => [x([2, 3]), x([2, 3]), x([2, 3])],
  });
  check('stack axis -1', {
    op: 'stack',
    params: { num_args: 2, axis: -1 },
    inputs: () => [x([2, 3]), x([2, 3])],
  });
  check('SliceChannel', {
    op: 'SliceChannel',
    params: { num_outputs: 3, axis: 1 },
    inputs: () => [x([2, 6])],
  });
  check('split squeeze_axis', {
    op: 'split',
    params: { num_outputs: 3, axis: 0, squeeze_axis: true },
    inputs: () => [x([3, 2])],
  });
  check('_split_v2 indices', {
    op: '_split_v2',
    params: { indices: [0, 1, 3], axis: 1 },
    inputs: () => [x([2, 5])],
  });
  check('_split_v2 leading gap', {
    op: '_split_v2',
    params: { indices: [2, 3], axis: 0 },
    inputs: () => [x([5, 2])],
  });
  check('_split_v2 sections squeeze', {
    op: '_split_v2',
    params: { sections: 3, axis: -1, squeeze_axis: true, indices: [] },
    inputs: () => [x([2, 3])],
  });
  check('slice', {
    op: 'slice',
    params: { begin: [1, null, -1], end: [3, null, 0], step: [1, 2, -2] },
    inputs: () => [x([4, 3, 5])],
  });
  check('slice_axis', {
    op: 'slice_axis',
    params: { axis: 1, begin: -3, end: -1 },
    inputs: () => [x([2, 4])],
  });
  check('slice_like', { op: 'slice_like', params: { axes: [0] }, inputs: () => [x([4, 3]), x([2, 5])] });
  for (const mode of ['clip', 'wrap', 'raise'])
    check(`take ${mode}`, {
      op: 'take',
      params: { axis: 1, mode },
      inputs: () => [x([2, 4, 2]), ints([2, 3], mode === 'raise' ? [0, 3, 3, 1, 0, 2] : [0, 5, 3, -1, 0, 3])],
      noGrad: [1],
    });
  check('take float indices', {
    op: 'take',
    inputs: () => [x([3, 20]), { shape: [4], dtype: 'float32', data: [2, 0, 2, 1.7] }],
    noGrad: [1],
  });
  for (const p of [{ axis: 1 }, { axis: 0, keepdims: true, mode: 'wrap' }, { axis: -1, mode: 'clip' }])
    check(`pick ${JSON.stringify(p)}`, {
      op: 'pick',
      params: p,
      inputs: () => [x([3, 4]), p.axis === 0 ? ints([1, 4], [0, 5, -1, 2]) : ints([3], [3, 0, 7])],
      noGrad: [1],
    });
  check('one_hot', { op: 'one_hot', params: { depth: 3 }, inputs: () => [ints([2], [0, 2])] });
  for (const reps of [[2], [2, 1, 3], [1, 2]])
    check(`tile ${reps}`, { op: 'tile', params: { reps }, inputs: () => [x([2, 3])] });
  for (const p of [{ repeats: 2 }, { repeats: 3, axis: 1 }, { repeats: 2, axis: -2 }])
    check(`repeat ${JSON.stringify(p)}`, { op: 'repeat', params: p, inputs: () => [x([2, 3])] });
  check('reverse', { op: 'reverse', params: { axis: [0, 2] }, inputs: () => [x([2, 3, 2])] });
  for (const mode of ['constant', 'edge', 'reflect']) {
    check(`Pad 4-d ${mode}`, {
      op: 'Pad',
      params: { mode, pad_width: [0, 0, 0, 0, 1, 2, 2, 1], constant_value: 0.5 },
      inputs: () => [x([1, 2, 3, 3])],
    });
    check(`Pad 5-d ${mode}`, {
      op: 'Pad',
      params: { mode, pad_width: [0, 0, 0, 0, 2, 1, 0, 1, 1, 1] },
      inputs: () => [x([1, 1, 3, 2, 2])],
    });
  }
  for (const k of [0, 1, -2]) check(`diag 1-d k=${k}`, { op: 'diag', params: { k }, inputs: () => [x([3])] });
  for (const k of [0, 1, -1])
    check(`diag 2-d k=${k}`, { op: 'diag', params: { k }, inputs: () => [x([3, 4])] });
  check('diag 3-d axes', { op: 'diag', params: { k: 1, axis1: -1, axis2: 0 }, inputs: () => [x([3, 2, 4])] });
});

describe('linalg gradients', () => {
  const flags = [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const;
  for (const [ta, tb] of flags) {
    const p = { transpose_a: ta, transpose_b: tb };
    check(`dot 2-d ${ta} ${tb}`, {
      op: 'dot',
      params: p,
      inputs: () => [x(ta ? [4, 3] : [3, 4]), x(tb ? [2, 4] : [4, 2])],
    });
    check(`dot N-d ${ta} ${tb}`, {
      op: 'dot',
      params: p,
      inputs: () => [x(ta ? [4, 2, 3] : [2, 3, 4]), x(tb ? [2, 3, 4] : [4, 2, 3])],
    });
    check(`batch_dot ${ta} ${tb}`, {
      op: 'batch_dot',
      params: p,
      inputs: () => [x(ta ? [2, 4, 3] : [2, 3, 4]), x(tb ? [2, 2, 4] : [2, 4, 2])],
    });
    check(`linalg_gemm2 ${ta} ${tb}`, {
      op: '_linalg_gemm2',
      params: { ...p, alpha: 0.7 },
      inputs: () => [x(ta ? [2, 4, 3] : [2, 3, 4]), x(tb ? [2, 2, 4] : [2, 4, 2])],
    });
  }
  check('dot vectors', { op: 'dot', inputs: () => [x([4]), x([4])] });
  check('dot vector-matrix', { op: 'dot', inputs: () => [x([3]), x([3, 2, 2])] });
  check('dot matrix-vector', { op: 'dot', inputs: () => [x([2, 2, 3]), x([3])] });
  check('batch_dot 4-d', { op: 'batch_dot', inputs: () => [x([2, 2, 3, 2]), x([2, 2, 2, 3])] });
  check('linalg_gemm2 axis=0', {
    op: '_linalg_gemm2',
    params: { axis: 0, transpose_a: true },
    inputs: () => [x([3, 2, 4]), x([3, 2, 2])],
  });
});

describe('init, copy and Cast gradients', () => {
  check('zeros_like', { op: 'zeros_like', inputs: () => [x([2, 3])] });
  check('ones_like', { op: 'ones_like', inputs: () => [x([2, 3])] });
  check('_copyto', { op: '_copyto', inputs: () => [x([2, 3])], expectOps: [] });
  check('Cast float64 -> float32', {
    op: 'Cast',
    params: { dtype: 'float32' },
    inputs: () => [x([2, 3])],
    eps: 1e-3,
    rtol: 1e-3,
    atol: 1e-4,
  });
  check('Cast float64 -> float64', { op: 'Cast', params: { dtype: 'float64' }, inputs: () => [x([3])] });
});

describe('elementwise broadcasting gradients through _broadcast_backward', () => {
  check('broadcast_mul (2,1,3) x (4,1)', { op: 'broadcast_mul', inputs: () => [x([2, 1, 3]), x([4, 1])] });
  check('broadcast_sub (2,3) - (3,)', { op: 'broadcast_sub', inputs: () => [x([2, 3]), x([3])] });
  check('broadcast_div same shapes', {
    op: 'broadcast_div',
    inputs: () => [x([2, 3]), x([2, 3], { lo: 1, hi: 2 })],
  });
});

describe('gradients of the backward ops', () => {
  check('_broadcast_backward', { op: '_broadcast_backward', inputs: () => [x([2, 3, 4]), x([3, 1])] });
  check('_broadcast_backward equal shapes', {
    op: '_broadcast_backward',
    inputs: () => [x([2, 3]), x([2, 3])],
  });
  check('_backward_sum', {
    op: '_backward_sum',
    params: { axis: [1] },
    inputs: () => [x([2, 4]), x([2, 3, 4])],
  });
  check('_backward_mean', {
    op: '_backward_mean',
    params: { axis: [0, 2], keepdims: true },
    inputs: () => [x([1, 3, 1]), x([2, 3, 4])],
  });
  check('_backward_slice', {
    op: '_backward_slice',
    params: { begin: [1, null], end: [3, null], step: [1, -2] },
    inputs: () => [x([2, 3]), x([4, 5])],
  });
  check('_backward_slice_axis', {
    op: '_backward_slice_axis',
    params: { axis: 0, begin: 1, end: 3 },
    inputs: () => [x([2, 3]), x([4, 3])],
  });
  check('_backward_slice_like', {
    op: '_backward_slice_like',
    params: { axes: [1] },
    inputs: () => [x([2, 2]), x([2, 5])],
  });
  check('_backward_Concat', {
    op: '_backward_Concat',
    params: { num_args: 2, dim: 0 },
    inputs: () => [x([5, 2]), x([2, 2]), x([3, 2])],
  });
  check('_backward_take', {
    op: '_backward_take',
    params: { axis: 0, mode: 'clip' },
    inputs: () => [x([3, 2]), ints([3], [1, 1, 4]), x([3, 2])],
    noGrad: [1],
  });
  check('_backward_pick', {
    op: '_backward_pick',
    params: { axis: 1 },
    inputs: () => [x([3]), ints([3], [1, 0, 3]), x([3, 3])],
    noGrad: [1],
  });
  check('_backward_tile', {
    op: '_backward_tile',
    params: { reps: [2, 1] },
    inputs: () => [x([4, 3]), x([2, 3])],
  });
  check('_backward_repeat', {
    op: '_backward_repeat',
    params: { repeats: 2, axis: 1 },
    inputs: () => [x([2, 6]), x([2, 3])],
  });
  for (const mode of ['constant', 'edge', 'reflect'])
    check(`_backward_Pad ${mode}`, {
      op: '_backward_Pad',
      params: { mode, pad_width: [0, 0, 0, 0, 1, 1, 2, 1] },
      inputs: () => [x([1, 1, 5, 6])],
    });
  check('_backward_diag', { op: '_backward_diag', params: { k: 1 }, inputs: () => [x([2]), x([3, 3])] });
  check('_backward_diag 1-d', { op: '_backward_diag', params: { k: -1 }, inputs: () => [x([4, 4]), x([3])] });
  check('_backward_Cast', { op: '_backward_Cast', inputs: () => [x([2, 2]), x([2, 2])] });
});
