/**
 * Bad input to op calls: each mistake is an MXNetError naming the op/node and what to change, and a
 * failed call leaves the symbols it was given unchanged (their JSON, their variables' versions).
 */
import { MXNetError } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { type Symbol, SymbolApi } from './index.js';

const registry = createOpRegistry();
const api = () => new SymbolApi(registry, { warn: () => {} });

/** The MXNetError `fn` throws. */
function errorOf(fn: () => unknown): MXNetError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MXNetError);
    return e as MXNetError;
  }
  throw new Error('expected an MXNetError');
}

describe('op call errors', () => {
  it('an unknown op name suggests the registered ones', () => {
    const e = errorOf(() => api().invoke('Convolutoin'));
    expect(e.reason).toBe('operator Convolutoin is not registered');
    expect(e.hint).toMatch(/did you mean Convolution/);
  });

  it('too many inputs for the params (no_bias drops bias)', () => {
    const sym = api();
    const x = sym.var('x');
    const e = errorOf(() => sym.FullyConnected(x, x, x, { num_hidden: 2, no_bias: true, name: 'fc' }));
    expect(e.message).toMatch(/fc \(FullyConnected\) takes 2 input\(s\) \(data, weight\); got 3/);
    expect(e.op).toBe('FullyConnected');
  });

  it('an unknown argument name lists the inputs; a duplicate one says where it was given', () => {
    const sym = api();
    const x = sym.var('x');
    const unknown = errorOf(() =>
      sym.FullyConnected({ data: x, wieght: x, num_hidden: 2, name: 'fc' } as never),
    );
    expect(unknown.reason).toBe('FullyConnected has no input named wieght (node fc)');
    expect(unknown.hint).toMatch(/its inputs are data, weight, bias/);
    const twice = errorOf(() => sym.FullyConnected(x, { data: x, num_hidden: 2, name: 'fc' } as never));
    expect(twice.reason).toMatch(/input data of fc is given twice: by position and by name/);
  });

  it('inputs must be Symbols; params go in the options', () => {
    const sym = api();
    const x = sym.var('x');
    const n = errorOf(() => (sym.FullyConnected as (...a: unknown[]) => Symbol)(x, 128));
    expect(n.reason).toMatch(/input 1 of FullyConnected is a number; inputs must be Symbols/);
    expect(n.hint).toMatch(/trailing options object/);
    const obj = errorOf(() => (sym.relu as (...a: unknown[]) => Symbol)(new Map(), {}));
    expect(obj.reason).toMatch(/input 0 of relu is a Map/);
    expect(
      errorOf(() => sym.FullyConnected({ data: x, num_hidden: 2, name: 5 as unknown as string })).reason,
    ).toMatch(/name must be a string/);
    expect(errorOf(() => sym.Concat({ data: [x, x] } as never)).reason).toMatch(/array of Symbols/);
  });

  it('a multi-output symbol is not an input', () => {
    const sym = api();
    const s = sym.split(sym.var('x'), { num_outputs: 2, name: 's' });
    const e = errorOf(() => sym.relu(s));
    expect(e.reason).toMatch(/input data of relu0 is a symbol with 2 outputs \(s_output0, s_output1\)/);
    expect(e.hint).toMatch(/s\.get\(0\)/);
  });

  it('parameter errors carry MXNet text and the node name', () => {
    const sym = api();
    const x = sym.var('x');
    expect(errorOf(() => sym.FullyConnected(x, { name: 'fc' } as never)).reason).toMatch(
      /^node fc: Required parameter num_hidden of int is not presented/,
    );
    expect(errorOf(() => sym.Activation(x, { act_type: 'rleu' as 'relu' })).reason).toMatch(
      /Invalid Input: 'rleu'/,
    );
    expect(errorOf(() => sym.Activation(x, { act_type: 'relu', axis: 1 } as never)).reason).toMatch(
      /Cannot find argument 'axis'/,
    );
    expect(
      errorOf(() => sym.FullyConnected(x, { num_hidden: 2, weight_lr_mult: 0.1 } as never)).reason,
    ).toMatch(/weight_lr_mult is deprecated/);
  });

  it('variadic ops take inputs by position or by name, not both', () => {
    const sym = api();
    const a = sym.var('a');
    const e = errorOf(() => sym.Concat(a, { arg1: a } as never));
    expect(e.reason).toMatch(/either by position or by name, not both/);
    // By name alone works: the count comes from the named inputs.
    expect(sym.Concat({ arg0: a, arg1: sym.var('b') } as never).listArguments()).toEqual(['a', 'b']);
    // num_args given larger than the inputs: the missing ones become variables, as in MXNet.
    expect(sym.Concat(a, { num_args: 2, name: 'c' }).listArguments()).toEqual(['a', 'c_arg1']);
  });

  it('a state an op writes must be a variable; the failed call changes nothing', () => {
    const sym = api();
    const x = sym.var('x');
    const mean = sym.var('mean');
    const notVar = sym.relu(x);
    const before = [x.toJSON(), mean.toJSON(), notVar.toJSON()];
    const e = errorOf(() => sym.BatchNorm({ data: x, moving_mean: mean, moving_var: notVar, name: 'bn' }));
    expect(e.reason).toMatch(/input moving_var of bn is written by BatchNorm, so it must be a variable/);
    expect([x.toJSON(), mean.toJSON(), notVar.toJSON()]).toEqual(before);
    // The mean variable was not counted as written: a good call gives it version 1, not 2.
    const ok = sym.BatchNorm({ data: x, moving_mean: mean, name: 'bn2' });
    const nodes = (JSON.parse(ok.toJSON()) as { nodes: { name: string; inputs: number[][] }[] }).nodes;
    expect(nodes.find((n) => n.name === 'bn2')?.inputs[3]).toEqual([3, 0, 1]);
    expect(mean.attr('__init__')).toBe('["zero", {}]');
  });

  it('unknown output names and out-of-range indices', () => {
    const sym = api();
    const s = sym.split(sym.var('x'), { num_outputs: 2, name: 's' });
    expect(errorOf(() => s.get('s_output9')).hint).toMatch(/the outputs are s_output0, s_output1/);
    expect(errorOf(() => s.get(-1)).hint).toMatch(/at\(-1\) counts from the end/);
    expect(errorOf(() => s.get(1.5)).reason).toMatch(/out of range/);
  });
});
