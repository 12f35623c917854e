/**
 * Shape-family definitions without a backend: names and aliases, MXNet's input/output names for
 * variadic and multi-output ops, params in MXNet's string form, and shape/type inference — the
 * reshape codes table from MXNet's docs, partial (unknown) inputs, and errors carrying context.
 */
import { isMXNetError, type MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { OpRegistry } from '../../registry.js';
import { registerShape } from './index.js';

const reg = new OpRegistry();
registerShape(reg);

function infer(op: string, shapes: (number[] | undefined)[], params: Record<string, unknown> = {}) {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const outs: (number[] | undefined)[] = new Array(o.numOutputs(attrs)).fill(undefined);
  const done = o.inferShape(attrs, shapes, outs);
  return { done, outs, ins: shapes };
}

describe('shape family registration', () => {
  it('registers every op and alias', () => {
    for (const n of [
      'Reshape',
      'reshape',
      'Flatten',
      'flatten',
      'expand_dims',
      'squeeze',
      'transpose',
      'SwapAxis',
      'swapaxes',
      'broadcast_to',
      'broadcast_axis',
      'broadcast_axes',
      'broadcast_like',
      'Concat',
      'concat',
      'stack',
      'SliceChannel',
      'split',
      '_split_v2',
      'slice',
      'crop',
      'slice_axis',
      'slice_like',
      'take',
      'pick',
      'one_hot',
      'tile',
      'repeat',
      'reverse',
      'flip',
      'Pad',
      'pad',
      'diag',
    ])
      expect(reg.has(n), n).toBe(true);
  });

  it('names variadic inputs arg0.. and split outputs output0.., as MXNet', () => {
    const concat = reg.get('Concat');
    const a = concat.parseParams({ num_args: '3', dim: '0' });
    expect(concat.numInputs(a)).toBe(3);
    expect(concat.listInputNames(a)).toEqual(['arg0', 'arg1', 'arg2']);
    expect(concat.listInputNames(concat.parseParams({ num_args: 1 }))).toEqual(['arg0']);
    expect(concat.def.keyVarNumArgs).toBe('num_args');
    const split = reg.get('SliceChannel');
    const s = split.parseParams({ num_outputs: 1 });
    expect(split.listOutputNames(s)).toEqual(['output0']);
    expect(reg.get('take').listInputNames({})).toEqual(['a', 'indices']);
  });

  it('declares the reshape family as in-place identities', () => {
    for (const n of ['Reshape', 'Flatten', 'expand_dims', 'squeeze']) {
      const o = reg.get(n);
      expect(o.inplaceOption({} as never)).toEqual([[0, 0]]);
      expect(o.inplaceIdentity({} as never)).toEqual([true]);
    }
  });
});

describe('Reshape inference', () => {
  // MXNet's documented examples for the special codes.
  const table: [number[], number[], boolean, number[]][] = [
    [[2, 3, 4], [4, 0, 2], false, [4, 3, 2]],
    [[2, 3, 4], [6, 1, -1], false, [6, 1, 4]],
    [[2, 3, 4], [-2, 1, 1], false, [2, 3, 4, 1, 1]],
    [[2, 3, 4, 5], [-3, -3], false, [6, 20]],
    [[2, 3, 4], [-4, 1, 2, -2], false, [1, 2, 3, 4]],
    [[2, 3, 4], [2, -4, -1, 3, -2], false, [2, 1, 3, 4]],
    [[10, 5, 4], [-1, 0], true, [50, 4]],
  ];
  for (const [ins, shape, reverse, out] of table) {
    it(`${JSON.stringify(ins)} ${JSON.stringify(shape)}${reverse ? ' reverse' : ''}`, () => {
      const r = infer('Reshape', [ins], { shape, reverse });
      expect(r.done).toBe(true);
      expect(r.outs[0]).toEqual(out);
    });
  }

  it('fills an unknown input dim from a known output', () => {
    const o = reg.get('Reshape');
    const ins: (number[] | undefined)[] = [[-1, 4]];
    const outs: (number[] | undefined)[] = [[2, 6]];
    expect(o.inferShape(o.parseParams({ shape: [2, 6] }), ins, outs)).toBe(true);
    expect(ins[0]).toEqual([3, 4]);
  });

  it('waits for unknown inputs instead of failing', () => {
    expect(infer('transpose', [undefined]).done).toBe(false);
    expect(infer('Concat', [[2, 3], undefined], { num_args: 2 }).done).toBe(false);
  });

  it('rejects a bad target with op, params and shapes', () => {
    let e: unknown;
    try {
      infer('Reshape', [[10, 10]], { shape: '(-1, 3)' });
    } catch (x) {
      e = x;
    }
    expect(isMXNetError(e)).toBe(true);
    const m = e as MXNetError;
    expect(m.op).toBe('Reshape');
    expect(m.shapes).toEqual([[10, 10]]);
    expect(m.params).toMatchObject({ shape: [-1, 3] });
    expect(m.message).toContain('Target shape size is different to source');
  });

  it('rejects an output slot that disagrees', () => {
    const o = reg.get('Flatten');
    const outs: (number[] | undefined)[] = [[6, 1]];
    expect(() => o.inferShape({}, [[2, 3]], outs)).toThrow(/Shape inconsistent/);
  });
});

describe('other inference', () => {
  it('one_hot and take type inference follow the param / the data, not the indices', () => {
    const oh = reg.get('one_hot');
    const outT: (string | undefined)[] = [undefined];
    oh.inferType(oh.parseParams({ depth: 3, dtype: 'int32' }), ['float32'], outT as never);
    expect(outT[0]).toBe('int32');
    const take = reg.get('take');
    const t2: (string | undefined)[] = [undefined];
    take.inferType(take.parseParams({}), ['float16', 'int64'], t2 as never);
    expect(t2[0]).toBe('float16');
  });

  it('pick fills an unknown index with the reduced shape, as MXNet (rank -1 passes `!ndim()`)', () => {
    const r = infer('pick', [[3, 4], undefined], { axis: 1, keepdims: 'True' });
    expect(r.outs[0]).toEqual([3, 1]);
    expect(r.ins[1]).toEqual([3]);
    // An index of data's rank is checked against the keepdims shape, whatever `keepdims` says.
    expect(
      infer(
        'pick',
        [
          [3, 4],
          [-1, -1],
        ],
        { axis: 1 },
      ).ins[1],
    ).toEqual([3, 1]);
  });

  it('slice parses None in tuples and clamps like NumPy', () => {
    expect(
      infer('slice', [[5, 6]], { begin: '(None, -2)', end: '(3, None)', step: '(2, None)' }).outs[0],
    ).toEqual([2, 2]);
    expect(infer('slice', [[5]], { begin: [10], end: [null], step: [-1] }).outs[0]).toEqual([5]);
  });

  it('_split_v2 output count follows sections or indices', () => {
    const o = reg.get('_split_v2');
    expect(o.numOutputs(o.parseParams({ indices: '()', sections: 3 }))).toBe(3);
    expect(o.numOutputs(o.parseParams({ indices: '(0, 2, 4)' }))).toBe(3);
  });
});
