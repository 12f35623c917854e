/**
 * The np_elementwise golden cases (tools/golden/ops/np_elementwise.py, NumPy 1.24.2) through an @mx
 * runtime on cpu-wasm with the conformance runner, as the conformance suite will run them once the
 * family is listed in golden.ts; plus the conformance gradient check on the differentiable ops.
 */
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_elementwise');

describe('np_elementwise golden cases on cpu-wasm', () => {
  it('has cases for every forward _npi_ elementwise op and errors', () => {
    const covered = new Set(cases.map((c) => runtime.registry.get(c.op).name));
    const area =
      /^_npi_(r?(add|subtract|multiply|true_divide|mod|floor_divide|power|maximum|minimum|fmax|fmin|fmod|copysign|arctan2|hypot|ldexp|logaddexp|equal|not_equal|greater|greater_equal|less|less_equal|logical_and|logical_or|logical_xor|bitwise_\w+|gcd|lcm)(_scalar)?|negative|reciprocal|absolute|sign|square|rint|ceil|floor|trunc|fix|sqrt|cbrt|exp|log|log10|log2|log1p|expm1|a?r?c?(sin|cos|tan)h?|degrees|radians|rad2deg|deg2rad|logical_not|is\w+|around|nan_to_num|copy)$/;
    const ops = runtime.registry.list().filter((o) => area.test(o.name) && o.kernels.has('cpu-wasm'));
    const uncovered = ops.map((o) => o.name).filter((n) => !covered.has(n));
    // Scalar logic ops are covered at the function level (ufunc.test.ts), not here.
    expect(uncovered.filter((n) => !/^_npi_(r?\w+)_scalar$/.test(n) || /bitwise|gcd|lcm/.test(n))).toEqual(
      [],
    );
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(9);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    // Skips are accepted: their reasons are in the JSON (compiler typing of select conditions).
    expect(await caseFailures(runtime, cases, { allowSkip: true })).toEqual([]);
  }, 120_000);

  it('gradients of the differentiable ops match central differences', async () => {
    const { failures, checked } = await gradCheckSweep(runtime, cases, {
      include: (c) => c.inputs.every((a) => a.dtype === 'float64'),
    });
    expect(failures).toEqual([]);
    for (const op of ['_npi_add', '_npi_power', '_npi_arctan2', '_npi_logaddexp', '_npi_sqrt', '_npi_tanh'])
      expect(checked.has(op), op).toBe(true);
  }, 300_000);
});
