/**
 * Every gradient expression of the elementwise family, checked against central differences of its
 * forward expression (float64, test-only interpreter), at points inside each op's domain and away
 * from its discontinuities. Zero gradients (`null`) are checked too: the forward must be locally
 * flat there (except BlockGrad, whose zero gradient is the point of the op). Also pins the forward
 * semantics MXNet users rely on (round vs rint vs fix, NaN through relu and clip, where, mod).
 */
import { describe, expect, it } from 'vitest';
import type { Expr } from '../../expr.js';
import { createOpRegistry } from '../../index.js';
import { erf, erfinv, evalExpr, gamma, gammaln } from './test-util/interp.js';

const registry = createOpRegistry();

type Point = { inputs: number[]; params?: Record<string, number> };

const DEFAULT_1 = [-1.3, -0.4, 0.3, 0.9, 1.7];
const POSITIVE = [0.3, 0.9, 1.7, 2.5];
const UNIT = [-0.7, -0.2, 0.3, 0.8];
const DOMAIN_1: Record<string, number[]> = {
  sqrt: POSITIVE,
  rsqrt: POSITIVE,
  log: POSITIVE,
  log2: POSITIVE,
  log10: POSITIVE,
  gamma: POSITIVE,
  gammaln: POSITIVE,
  log1p: [-0.5, 0.3, 1.7],
  arcsin: UNIT,
  arccos: UNIT,
  arctanh: UNIT,
  erfinv: UNIT,
  arccosh: [1.2, 1.7, 3],
  tan: [-1.2, -0.4, 0.3, 1.1],
};

const PAIRS: [number, number][] = [
  [2.3, 1.5],
  [-2.3, 1.5],
  [5.1, -2.2],
  [0.7, 1.9],
  [-1.1, -0.6],
];
const POWER_PAIRS: [number, number][] = [
  [0.5, -1.5],
  [1.3, 0.7],
  [2.2, 2],
  [0.9, 3.1],
];
const SCALAR_X = [0.6, -0.9, 2.3, 1.1];
const SCALAR = 1.7;

function pointsFor(full: string, nIn: number): Point[] {
  // np's `_npi_*` ops share the legacy ops' domains (`_npi_log` is `log`'s).
  const name = full.replace(/^_npi_/, '');
  if (name === 'where_lscalar' || name === 'where_rscalar')
    return [1, 0, -2].map((c) => ({ inputs: [c, 0.4], params: { scalar: 1.7 } }));
  if (name === 'around') return SCALAR_X.map((v) => ({ inputs: [v + 0.13], params: { decimals: 0 } }));
  if (name === 'where') {
    return [{ inputs: [1, 0.4, -1.2] }, { inputs: [0, 0.4, -1.2] }, { inputs: [-2, 1.5, 2.5] }];
  }
  if (name === 'clip') {
    return [-1.3, -0.2, 0.4, 0.9, 1.6].map((v) => ({ inputs: [v], params: { a_min: -0.5, a_max: 1 } }));
  }
  if (name === 'smooth_l1') {
    // sigma 1.5: quadratic inside |x| < 1/sigma², linear outside (points off the joins).
    return [-1.3, -0.2, 0.3, 0.9].map((v) => ({ inputs: [v], params: { scalar: 1.5 } }));
  }
  if (name.endsWith('_scalar')) {
    const xs = /power_scalar$/.test(name) ? POSITIVE : SCALAR_X;
    return xs.map((v) => ({ inputs: [v], params: { scalar: SCALAR, is_int: 0 } }));
  }
  if (nIn === 2) {
    const pairs = name.endsWith('power') ? POWER_PAIRS : PAIRS;
    return pairs.map(([a, b]) => ({ inputs: [a, b] }));
  }
  return (DOMAIN_1[name] ?? DEFAULT_1).map((v) => ({ inputs: [v] }));
}

function forward(e: Expr, p: Point): number {
  return evalExpr(e, { inputs: p.inputs, ...(p.params ? { params: p.params } : {}) });
}

const OGRAD = 0.7;
const gradientOps = registry
  .list()
  .filter((op) => op.elementwise?.gradient !== undefined)
  .map((op) => [op.name, op] as const);

describe('gradient expressions match central differences', () => {
  it('covers the family', () => {
    expect(gradientOps.length).toBeGreaterThanOrEqual(104);
  });

  it.each(gradientOps)('%s', (name, op) => {
    const ew = op.elementwise;
    if (!ew?.gradient) throw new Error('unreachable');
    const nIn = ew.gradient.length;
    for (const p of pointsFor(name, nIn)) {
      const out = forward(ew.forward, p);
      expect(Number.isFinite(out), `${name} forward at ${p.inputs}`).toBe(true);
      for (let i = 0; i < nIn; i++) {
        const g = ew.gradient[i] ?? null;
        const xi = p.inputs[i] as number;
        const h = 1e-6 * Math.max(1, Math.abs(xi));
        const at = (v: number): number => {
          const inputs = [...p.inputs];
          inputs[i] = v;
          return forward(ew.forward, { ...p, inputs });
        };
        const numeric = (OGRAD * (at(xi + h) - at(xi - h))) / (2 * h);
        if (g === null) {
          if (name === 'BlockGrad' || (name === 'where' && i === 0)) continue;
          expect(Math.abs(numeric), `${name} d/dx${i} at ${p.inputs} should be 0`).toBeLessThan(1e-9);
          continue;
        }
        const analytic = evalExpr(g, {
          inputs: p.inputs,
          output: out,
          ograd: OGRAD,
          ...(p.params ? { params: p.params } : {}),
        });
        const tol = 1e-6 * Math.max(1, Math.abs(numeric));
        expect(
          Math.abs(analytic - numeric),
          `${name} d/dx${i} at ${p.inputs}: ${analytic} vs ${numeric}`,
        ).toBeLessThan(tol);
      }
    }
  });
});

describe('forward semantics', () => {
  const f = (name: string, inputs: number[], params?: Record<string, number>): number => {
    const ew = registry.get(name).elementwise;
    if (!ew) throw new Error(`${name} has no expression`);
    return forward(ew.forward, { inputs, ...(params ? { params } : {}) });
  };

  it('round is half away from zero, rint sends ties to floor, fix rounds toward zero', () => {
    expect([2.5, -2.5, 1.5, 0.4].map((v) => f('round', [v]))).toEqual([3, -3, 2, 0]);
    expect([2.5, -2.5, 1.5, 3.5, 1.6].map((v) => f('rint', [v]))).toEqual([2, -3, 1, 3, 2]);
    expect([-2.7, 2.7, -0.2].map((v) => f('fix', [v]))).toEqual([-2, 2, -0]);
  });

  it('relu and clip let NaN through', () => {
    expect(f('relu', [Number.NaN])).toBeNaN();
    expect(f('relu', [-3])).toBe(0);
    expect(f('clip', [Number.NaN], { a_min: 0, a_max: 1 })).toBeNaN();
    expect([-2, 0.5, 3].map((v) => f('clip', [v], { a_min: 0, a_max: 1 }))).toEqual([0, 0.5, 1]);
  });

  it('mod takes the divisor’s sign and gives 0 for a zero divisor', () => {
    expect(f('_mod', [-7, 3])).toBe(2);
    expect(f('broadcast_mod', [7, -3])).toBe(-2);
    expect(f('_mod', [5, 0])).toBe(0);
    expect(f('_rmod_scalar', [4], { scalar: -9 })).toBe(3);
  });

  it('where selects by condition != 0', () => {
    expect(f('where', [1, 2, 7])).toBe(2);
    expect(f('where', [0, 2, 7])).toBe(7);
    expect(f('where', [-0.5, 2, 7])).toBe(2);
  });

  it('reversed scalar ops put the scalar first', () => {
    expect(f('_rminus_scalar', [2], { scalar: 10 })).toBe(8);
    expect(f('_rdiv_scalar', [4], { scalar: 10 })).toBe(2.5);
    expect(f('_rpower_scalar', [3], { scalar: 2 })).toBe(8);
  });

  it('activations and conversions', () => {
    expect(f('sigmoid', [0])).toBe(0.5);
    expect(f('softsign', [3])).toBe(0.75);
    expect(f('degrees', [Math.PI])).toBeCloseTo(180, 12);
    expect(f('radians', [90])).toBeCloseTo(Math.PI / 2, 14);
    expect(f('logical_not', [0])).toBe(1);
    expect(f('logical_not', [-2])).toBe(0);
    expect(f('_logical_xor', [2, 0])).toBe(1);
  });
});

describe('test interpreter special functions', () => {
  it('match reference values', () => {
    expect(erf(0.5)).toBeCloseTo(0.5204998778130465, 14);
    expect(erf(-2)).toBeCloseTo(-0.9953222650189527, 14);
    expect(erf(3.5)).toBeCloseTo(0.9999992569016276, 14);
    expect(erfinv(0.5)).toBeCloseTo(0.4769362762044699, 13);
    expect(gamma(5)).toBeCloseTo(24, 11);
    expect(gamma(0.5)).toBeCloseTo(Math.sqrt(Math.PI), 13);
    expect(gammaln(10)).toBeCloseTo(Math.log(362880), 12);
  });
});
