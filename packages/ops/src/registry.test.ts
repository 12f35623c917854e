import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { E, exprKey, exprParams } from './expr.js';
import { P } from './params.js';
import { OpRegistry } from './registry.js';

const same = (
  _a: unknown,
  ins: (readonly number[] | undefined)[],
  outs: (readonly number[] | undefined)[],
) => {
  outs[0] = ins[0];
  return ins[0] !== undefined;
};

describe('OpRegistry', () => {
  it('looks ops up by name and alias, and lists them', () => {
    const r = new OpRegistry();
    const op = r.define({ name: 'elemwise_add', aliases: ['_add', '_plus'], numInputs: 2, inferShape: same });
    expect(r.get('_plus')).toBe(op);
    expect(r.find('nope')).toBeUndefined();
    expect(r.list().map((o) => o.name)).toEqual(['elemwise_add']);
    expect(r.names()).toEqual(['_add', '_plus', 'elemwise_add']);
    expect(op.listInputNames({})).toEqual(['arg0', 'arg1']);
    expect(op.listOutputNames({})).toEqual(['output']);
  });

  it('refuses duplicate names and suggests close names for unknown ones', () => {
    const r = new OpRegistry();
    r.define({ name: 'FullyConnected', inferShape: same });
    expect(() => r.define({ name: 'x', aliases: ['FullyConnected'], inferShape: same })).toThrow(MXNetError);
    expect(r.has('x')).toBe(false);
    expect(() => r.get('FullyConected')).toThrow(/did you mean FullyConnected/);
  });

  it('attaches kernels registered before the op is defined', () => {
    const r = new OpRegistry();
    const k = { compute: () => undefined };
    r.registerKernel('later', 'cpu-wasm', k);
    expect(r.pendingKernels()).toEqual([['later', 'cpu-wasm']]);
    const op = r.define({ name: 'later', inferShape: same });
    expect(r.kernel(op, 'cpu-wasm')).toBe(k);
    expect(r.pendingKernels()).toEqual([]);
  });

  it('compiles elementwise ops through the backend compiler once', () => {
    const r = new OpRegistry();
    const op = r.define({
      name: 'sigmoid',
      inferShape: same,
      elementwise: { forward: E.div(1, E.add(1, E.exp(E.neg(E.x)))) },
    });
    let compiled = 0;
    r.registerElementwiseCompiler('b', () => {
      compiled++;
      return { compute: () => undefined };
    });
    expect(r.kernel(op, 'b')).toBe(r.kernel(op, 'b'));
    expect(compiled).toBe(1);
    expect(r.kernel(op, 'other')).toBeUndefined();
    expect(r.backendsFor(op)).toEqual(['b']);
  });

  it('parses params through the op and uses MXNet defaults for counts and types', () => {
    const r = new OpRegistry();
    const op = r.define({
      name: 'Concat',
      params: { num_args: P.int({ lowerBound: 1 }), dim: P.int({ default: 1 }) },
      numInputs: (a) => a.num_args,
      keyVarNumArgs: 'num_args',
      inferShape: same,
    });
    const attrs = op.parseParams({ num_args: '3' });
    expect(op.numInputs(attrs)).toBe(3);
    const ins: ('float32' | 'int32' | undefined)[] = ['float32', undefined, 'float32'];
    const outs: ('float32' | 'int32' | undefined)[] = [undefined];
    expect(op.inferType(attrs, ins, outs)).toBe(true);
    expect(outs).toEqual(['float32']);
    expect(() => op.inferType(attrs, ['float32', 'int32', undefined], [undefined])).toThrow(
      /type inconsistent/,
    );
  });
});

describe('expressions', () => {
  it('have canonical keys and list their params', () => {
    const e = E.add(E.mul(E.x, E.param('scalar')), E.select(E.gt(E.x, 0), E.param('a'), -0));
    expect(exprKey(e)).toBe('add(mul(i0,p(scalar)),sel(gt(i0,c(0)),p(a),c(-0)))');
    expect(exprParams(e)).toEqual(['scalar', 'a']);
  });
});
