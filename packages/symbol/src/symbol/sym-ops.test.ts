/**
 * The generated `sym.<Op>` declarations: a drift test (re-render sym-ops.ts from the registry,
 * format it with biome as the generator does, compare with the committed file) and the types
 * themselves, checked by the compiler (`tsc` runs on this file: `expectTypeOf` and
 * `@ts-expect-error` lines fail the typecheck when the declarations get looser or stricter) and at
 * run time (what the types reject also fails when run).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { analyzeSymOp, renderSymOps } from './codegen.js';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { type Symbol, SymbolApi } from './index.js';

const rootDir = fileURLToPath(new URL('../../../..', import.meta.url));

function biomeFormat(text: string, path: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${path}`], {
    input: text,
    cwd: rootDir,
    encoding: 'utf8',
  });
}

describe('generated declarations', () => {
  it('src/symbol/sym-ops.ts is what the registry generates', () => {
    const registry = createOpRegistry();
    const backend = new CpuWasmBackend({ initialPages: 1 });
    try {
      backend.install(registry);
      const expected = biomeFormat(renderSymOps(registry), 'packages/symbol/src/symbol/sym-ops.ts');
      const committed = readFileSync(new URL('./sym-ops.ts', import.meta.url), 'utf8');
      const e = expected.split('\n');
      const c = committed.split('\n');
      const at = e.findIndex((line, k) => line !== c[k]);
      const where =
        expected === committed
          ? undefined
          : `sym-ops.ts is stale (run npx tsx packages/symbol/scripts/gen-sym-ops.ts): line ${at + 1} should be ${JSON.stringify(e[at])}`;
      expect(where).toBeUndefined();
    } finally {
      backend.dispose();
    }
  });

  it('probes argument names over boolean/enum params and finds variadic ops', () => {
    const registry = createOpRegistry();
    expect(analyzeSymOp(registry.get('FullyConnected'))).toEqual({
      inputs: ['data', 'weight', 'bias'],
      paramsRequired: true,
    });
    expect(analyzeSymOp(registry.get('LeakyReLU')).inputs).toEqual(['data', 'gamma']);
    expect(analyzeSymOp(registry.get('Concat'))).toEqual({ inputs: 'variadic', paramsRequired: false });
    expect(analyzeSymOp(registry.get('multi_sgd_update')).inputs).toBe('variadic');
    expect(analyzeSymOp(registry.get('_zeros'))).toEqual({ inputs: [], paramsRequired: false });
  });
});

describe('typed sym.<Op> calls', () => {
  const sym = new SymbolApi(createOpRegistry());
  const data = sym.var('data');

  it('accepts inputs by position or by name, params with MXNet names, call options', () => {
    const a = sym.FullyConnected(data, { num_hidden: 128, name: 'fc1', lr_mult: 0.5 });
    const b = sym.FullyConnected({ data, weight: sym.var('w'), num_hidden: 10, no_bias: true });
    const c = sym.Concat([a, b], { dim: 1 });
    const d = sym.Concat(a, b);
    const e = sym.Activation(c, { act_type: 'relu', attr: { __mood__: 'ok' }, ctx_group: 'dev1' });
    expectTypeOf(a).toEqualTypeOf<Symbol>();
    expectTypeOf(sym.zeros).returns.toEqualTypeOf<Symbol>();
    expect([a.name, b.listArguments(), d.attr('num_args'), e.attr('__ctx_group__')]).toEqual([
      'fc1',
      ['data', 'w'],
      '2',
      'dev1',
    ]);
    expect(sym.Convolution(data, { kernel: [3, 3], num_filter: 4 }).attr('kernel')).toBe('(3, 3)');
    expect(sym.split(data, { num_outputs: 3 }).length).toBe(3);
    expect(sym._zeros({ shape: [2], ctx: 'cpu(0)' }).attr('ctx')).toBe('cpu(0)');
  });

  it('rejects misspelt and missing params, wrong inputs, at compile time and at run time', () => {
    // @ts-expect-error num_hidden is required
    expect(() => sym.FullyConnected(data)).toThrow(/Required parameter num_hidden/);
    // @ts-expect-error numHidden is not a param (MXNet's name is num_hidden)
    expect(() => sym.FullyConnected(data, { numHidden: 3 })).toThrow(/Cannot find argument 'numHidden'/);
    // @ts-expect-error act_type is an enum
    expect(() => sym.Activation(data, { act_type: 'rleu' })).toThrow(/Invalid Input: 'rleu'/);
    // @ts-expect-error a number is no input
    expect(() => sym.Activation(data, 3, { act_type: 'relu' })).toThrow(/inputs must be Symbols/);
    // @ts-expect-error wieght is no input name of FullyConnected
    expect(() => sym.FullyConnected({ data, wieght: data, num_hidden: 2 })).toThrow(/no input named wieght/);
    // @ts-expect-error name must be a string
    expect(() => sym.relu(data, { name: 1 })).toThrow(/name must be a string/);
    // @ts-expect-error FullyConnected takes at most three inputs
    expect(() => sym.FullyConnected(data, data, data, data, { num_hidden: 1 })).toThrow(/takes 3 input/);
    type FcOptions = Extract<Parameters<typeof sym.FullyConnected>, [Symbol, unknown]>[1];
    expectTypeOf<NonNullable<FcOptions>['no_bias']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<NonNullable<FcOptions>['weight']>().toEqualTypeOf<Symbol | undefined>();
  });

  it('types aliases as their op', () => {
    expectTypeOf(sym.Softmax).toEqualTypeOf(sym.SoftmaxOutput);
    expectTypeOf(sym.reshape).toEqualTypeOf(sym.Reshape);
    expect(sym.Softmax(data, { name: 's' }).attr('op_name')).toBe('SoftmaxOutput');
  });
});
