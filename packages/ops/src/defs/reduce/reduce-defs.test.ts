/**
 * The reduce family's definitions: names and aliases, MXNet parameter schemas (typed and string
 * forms, defaults, docs), output counts, and shape/type inference incl. the error texts.
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';

const reg = createOpRegistry();

function infer(name: string, params: Record<string, unknown>, shape: number[] | undefined) {
  const op = reg.get(name);
  const attrs = op.parseParams(params);
  const outs: ShapeSlots = new Array(op.numOutputs(attrs)).fill(undefined);
  const done = op.inferShape(attrs, [shape], outs);
  return { done, outs };
}

function types(name: string, params: Record<string, unknown>, dtype: 'float32' | 'int32' | undefined) {
  const op = reg.get(name);
  const attrs = op.parseParams(params);
  const outs: TypeSlots = new Array(op.numOutputs(attrs)).fill(undefined);
  const done = op.inferType(attrs, [dtype], outs);
  return { done, outs };
}

describe('reduce family definitions', () => {
  it('registers MXNet names and aliases', () => {
    const pairs: [string, string][] = [
      ['sum_axis', 'sum'],
      ['_sparse_sum', 'sum'],
      ['_sparse_mean', 'mean'],
      ['max_axis', 'max'],
      ['min_axis', 'min'],
      ['_sparse_norm', 'norm'],
      ['_npx_topk', 'topk'],
      ['cumsum', '_np_cumsum'],
    ];
    for (const [alias, name] of pairs) expect(reg.get(alias).name).toBe(name);
    for (const n of ['prod', 'nansum', 'nanprod', 'argmax', 'argmin', 'sort', 'argsort'])
      expect(reg.has(n)).toBe(true);
  });

  it('parses MXNet parameter strings with MXNet defaults', () => {
    const sum = reg.get('sum');
    expect(sum.parseParams({})).toEqual({ axis: null, keepdims: false, exclude: false });
    expect(sum.parseParams({ axis: '(0, 2)', keepdims: 'True', exclude: '0' })).toEqual({
      axis: [0, 2],
      keepdims: true,
      exclude: false,
    });
    expect(sum.parseParams({ axis: 1 }).axis).toEqual([1]);
    expect(sum.parseParams({ axis: 'None' }).axis).toBeNull();
    expect(reg.get('topk').parseParams({})).toEqual({
      axis: -1,
      k: 1,
      ret_typ: 'indices',
      is_ascend: false,
      dtype: 'float32',
    });
    expect(reg.get('sort').parseParams({ axis: 'None' })).toEqual({ axis: null, is_ascend: true });
    expect(reg.get('norm').parseParams({})).toEqual({ ord: 2, axis: null, out_dtype: null, keepdims: false });
    expect(reg.get('cumsum').parseParams({ dtype: 'int64' })).toEqual({ axis: null, dtype: 'int64' });
    expect(reg.get('argmax').parseParams({ axis: '-1' })).toEqual({ axis: -1, keepdims: false });
    expect(reg.get('cumsum').listInputNames(reg.get('cumsum').parseParams({}))).toEqual(['a']);
  });

  it('infers reduce shapes as MXNet (full reduction → (1,), exclude, keepdims)', () => {
    expect(infer('sum', {}, [2, 3, 4]).outs).toEqual([[1]]);
    expect(infer('sum', { keepdims: true }, [2, 3, 4]).outs).toEqual([[1, 1, 1]]);
    expect(infer('sum', { axis: [0, -1] }, [2, 3, 4]).outs).toEqual([[3]]);
    expect(infer('sum', { axis: 1, exclude: true }, [2, 3, 4]).outs).toEqual([[3]]);
    expect(infer('sum', { axis: 1, exclude: true, keepdims: true }, [2, 3, 4]).outs).toEqual([[1, 3, 1]]);
    expect(infer('mean', { axis: [] }, [2, 3]).outs).toEqual([[1]]);
    expect(infer('sum', {}, []).outs).toEqual([[1]]);
    expect(infer('sum', { keepdims: true }, []).outs).toEqual([[]]);
    expect(infer('sum', {}, undefined).done).toBe(false);
    expect(infer('argmax', { axis: 1 }, [2, 3, 4]).outs).toEqual([[2, 4]]);
    expect(infer('argmax', {}, [2, 3]).outs).toEqual([[1]]);
    expect(infer('argmin', { axis: 0, keepdims: true }, [2, 3]).outs).toEqual([[1, 3]]);
    expect(infer('norm', { axis: 1, keepdims: true }, [2, 3]).outs).toEqual([[2, 1]]);
    expect(infer('_np_cumsum', {}, [2, 3]).outs).toEqual([[6]]);
    expect(infer('_np_cumsum', { axis: -1 }, [2, 3]).outs).toEqual([[2, 3]]);
  });

  it('infers ordering shapes, output counts and dtypes', () => {
    const topk = reg.get('topk');
    for (const [ret, n, vis] of [
      ['indices', 1, 1],
      ['mask', 1, 1],
      ['value', 2, 1],
      ['both', 2, 2],
    ] as const) {
      const a = topk.parseParams({ ret_typ: ret });
      expect([topk.numOutputs(a), topk.numVisibleOutputs(a)]).toEqual([n, vis]);
    }
    expect(infer('topk', { k: 2, ret_typ: 'both' }, [3, 5]).outs).toEqual([
      [3, 2],
      [3, 2],
    ]);
    expect(infer('topk', { k: 2, axis: null }, [3, 5]).outs).toEqual([[2]]);
    expect(infer('topk', { k: 2, ret_typ: 'mask' }, [3, 5]).outs).toEqual([[3, 5]]);
    expect(infer('sort', { axis: null }, [3, 5]).outs).toEqual([[15], [15]]);
    expect(types('sort', {}, 'float32').outs).toEqual(['float32', 'int32']);
    expect(types('argsort', { dtype: 'int64' }, 'float32').outs).toEqual(['int64']);
    expect(types('topk', { ret_typ: 'both', dtype: 'int32' }, 'float32').outs).toEqual(['float32', 'int32']);
    expect(types('topk', { ret_typ: 'value' }, 'int32').outs).toEqual(['int32', 'int32']);
    expect(types('topk', {}, 'int32').outs).toEqual(['float32']);
    expect(types('topk', { ret_typ: 'mask' }, 'int32').outs).toEqual(['int32']);
    expect(types('argmax', {}, 'int32').outs).toEqual(['int32']);
    expect(types('norm', { out_dtype: 'float64' }, 'float32').outs).toEqual(['float64']);
    expect(types('cumsum', { dtype: 'float64' }, 'int32').outs).toEqual(['float64']);
    expect(types('cumsum', {}, 'int32').outs).toEqual(['int32']);
  });

  it('throws MXNet errors naming the op, params and shape', () => {
    const cases: [string, Record<string, unknown>, number[], string][] = [
      ['sum', { axis: 2 }, [2, 3], 'Reduction axis 2 Exceeds input dimensions (2, 3)'],
      ['sum', { axis: [-3] }, [2, 3], 'Reduction axis (-3,) Exceeds input dimensions (2, 3)'],
      ['prod', { axis: [0, -2] }, [2, 3], 'Reduction axes have duplicates (0, 0)'],
      ['min', {}, [2, 0], "Reduction input's size should > 0 (2, 0)"],
      ['argmax', { axis: -3 }, [2, 3], 'axis -3 exceeds the input dimension of 2'],
      ['topk', { k: 9 }, [2, 3], 'k must be smaller than 3, get k = 9'],
      ['argsort', { axis: 2 }, [2, 3], 'Invalid axis! axis should be between 0 and 2, found axis=2'],
      ['norm', { ord: 0 }, [2, 3], 'norm only supports ord=1 and ord=2'],
      ['cumsum', { axis: -3 }, [2, 3], 'axis -3 is out of bounds for array of dimension 2'],
    ];
    for (const [name, params, shape, msg] of cases) {
      let err: unknown;
      try {
        infer(name, params, shape);
      } catch (e) {
        err = e;
      }
      expect(isMXNetError(err), `${name} ${JSON.stringify(params)}`).toBe(true);
      const e = err as { message: string; op: string; shapes: number[][] };
      expect(e.message).toContain(msg);
      expect(e.op).toBe(reg.get(name).name);
      expect(e.shapes).toEqual([shape]);
    }
  });

  it('rejects a given output shape that disagrees', () => {
    const op = reg.get('sum');
    const attrs = op.parseParams({ axis: 0 });
    expect(() => op.inferShape(attrs, [[2, 3]], [[4]])).toThrow(/shape inconsistent/);
    const outs: ShapeSlots = [[-1]];
    expect(op.inferShape(attrs, [[2, 3]], outs)).toBe(true);
    expect(outs).toEqual([[3]]);
  });
});
