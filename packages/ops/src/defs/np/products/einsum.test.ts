/**
 * `_npi_einsum`'s definition: MXNet 2.0's params (also from symbol-JSON strings), input names,
 * shape inference (partial shapes, NumPy's errors), NumPy type promotion, the gradient node and
 * `_backward_npi_einsum`'s inference, and `einsumGradient`'s recipe for the awkward operands.
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../../index.js';
import { parseEinsum } from '../einsum-parse.js';
import { einsumGradient, einsumOptimize } from './einsum.js';

const reg = createOpRegistry();
const op = reg.get('_npi_einsum');
const back = reg.get('_backward_npi_einsum');

describe('_npi_einsum definition', () => {
  it('takes MXNet 2.0 params, also as strings, and names its inputs arg0..', () => {
    const a = op.parseParams({ num_args: '3', subscripts: 'ij,jk,kl->il', optimize: '1' });
    expect(a).toEqual({ num_args: 3, subscripts: 'ij,jk,kl->il', optimize: 1 });
    expect(op.numInputs(a)).toBe(3);
    expect(op.listInputNames(a)).toEqual(['arg0', 'arg1', 'arg2']);
    expect(op.def.keyVarNumArgs).toBe('num_args');
    expect(op.parseParams({ num_args: 1 })).toEqual({ num_args: 1, subscripts: '', optimize: 0 });
    expect(() => op.parseParams({ num_args: 0 })).toThrow(MXNetError);
    expect([0, 1, 2, 5].map(einsumOptimize)).toEqual([false, 'greedy', 'optimal', 'greedy']);
  });

  it('infers the output shape, waiting for every input shape', () => {
    const a = op.parseParams({ num_args: 2, subscripts: '...ij,...jk' });
    const out: (number[] | undefined)[] = [undefined];
    expect(op.inferShape(a, [[5, 2, 3], undefined], out)).toBe(false);
    expect(
      op.inferShape(
        a,
        [
          [5, 2, 3],
          [3, 4],
        ],
        out,
      ),
    ).toBe(true);
    expect(out[0]).toEqual([5, 2, 4]);
    const partial: (number[] | undefined)[] = [undefined];
    expect(
      op.inferShape(
        a,
        [
          [-1, 2, 3],
          [3, 4],
        ],
        partial,
      ),
    ).toBe(false);
    expect(partial[0]).toEqual([-1, 2, 4]);
    expect(() =>
      op.inferShape(
        a,
        [
          [2, 3],
          [4, 5],
        ],
        [undefined],
      ),
    ).toThrow(/could not be broadcast/);
    // A given output that disagrees.
    expect(() =>
      op.inferShape(
        a,
        [
          [2, 3],
          [3, 4],
        ],
        [[2, 5]],
      ),
    ).toThrow(/shape inconsistent/);
  });

  it('promotes mixed dtypes as NumPy', () => {
    const a = op.parseParams({ num_args: 2, subscripts: 'i,i' });
    const run = (x: 'int32' | 'float32' | 'int8' | 'uint8' | 'bool', y: typeof x) => {
      const out: (string | undefined)[] = [undefined];
      expect(op.inferType(a, [x, y], out as never)).toBe(true);
      return out[0];
    };
    expect(run('int32', 'float32')).toBe('float64');
    expect(run('int8', 'uint8')).toBe('int16');
    expect(run('bool', 'bool')).toBe('bool');
    expect(run('float32', 'float32')).toBe('float32');
    expect(op.inferType(a, ['float32', undefined], [undefined])).toBe(false);
  });

  it('its gradient is one _backward_npi_einsum node with the same params', () => {
    const spec = reg.gradient(op);
    expect(spec).not.toBe('zero');
    const calls: [string, number, Record<string, unknown> | undefined][] = [];
    const g = {
      input: (i: number) => `x${i}`,
      output: () => 'y',
      ograd: () => 'dy',
      hasOgrad: () => true,
      op: (name: string, ins: readonly string[], p?: Readonly<Record<string, unknown>>) => {
        calls.push([name, ins.length, p as Record<string, unknown>]);
        return ins.slice(1).map((x) => `d${x}`);
      },
      op1: () => '',
      isTrain: false,
    };
    const a = op.parseParams({ num_args: 2, subscripts: 'ij,jk', optimize: 1 });
    const grads = (spec as Exclude<typeof spec, 'zero' | undefined>).build(g, a);
    expect(grads).toEqual(['dx0', 'dx1']);
    expect(calls).toEqual([['_backward_npi_einsum', 3, { num_args: 2, subscripts: 'ij,jk', optimize: 1 }]]);
  });

  it('_backward_npi_einsum infers ograd from the operands and gives each gradient its operand’s dtype', () => {
    const a = back.parseParams({ num_args: 2, subscripts: 'ij,jk' });
    expect(back.listInputNames(a)).toEqual(['ograd', 'arg0', 'arg1']);
    expect(back.numOutputs(a)).toBe(2);
    expect(back.def.isBackward).toBe(true);
    const ins: (number[] | undefined)[] = [undefined, [2, 3], [3, 4]];
    const outs: (number[] | undefined)[] = [undefined, undefined];
    expect(back.inferShape(a, ins, outs)).toBe(true);
    expect(ins[0]).toEqual([2, 4]);
    expect(outs).toEqual([
      [2, 3],
      [3, 4],
    ]);
    const types: (string | undefined)[] = [undefined, 'int32', 'float32'];
    const otypes: (string | undefined)[] = [undefined, undefined];
    expect(back.inferType(a, types as never, otypes as never)).toBe(true);
    expect(types[0]).toBe('float64');
    expect(otypes).toEqual(['int32', 'float32']);
  });
});

describe('einsumGradient', () => {
  const id = (c: string) => (c <= 'Z' ? c.charCodeAt(0) - 65 : c.charCodeAt(0) - 97 + 26);

  it('a plain product: the other operand with ograd, written directly', () => {
    const shapes = [
      [2, 3],
      [3, 4],
    ];
    const g = einsumGradient(parseEinsum('ij,jk->ik', shapes), shapes, 1);
    expect(g.terms.map((t) => t.operand)).toEqual([-1, 0]);
    expect(g.target).toEqual([id('j'), id('k')]);
    expect(g.direct).toBe(true);
  });

  it('a trace: nothing but ograd, spread onto the diagonal', () => {
    const g = einsumGradient(parseEinsum('ii', [[3, 3]]), [[3, 3]], 0);
    expect(g.target).toEqual([]);
    expect(g.direct).toBe(false);
    expect(g.spread).toEqual([{ label: id('i'), axes: [0, 1], inTarget: false }]);
  });

  it('labels only the operand has are constant; dims broadcast from 1 are summed', () => {
    const shapes = [[2, 3], [5]];
    const g = einsumGradient(parseEinsum('ij,k->i', shapes), shapes, 1);
    expect(g.spread).toEqual([{ label: id('k'), axes: [0], inTarget: false }]);
    const b = [
      [1, 3],
      [2, 3],
    ];
    const h = einsumGradient(parseEinsum('ij,ij->ij', b), b, 0);
    expect(h.target).toEqual([id('j')]);
    expect(h.spread.map((s) => s.axes)).toEqual([[1]]);
    expect(h.direct).toBe(false);
  });
});
