/**
 * cpu-wasm kernels of the continuous np samplers (`_npi_uniform`, `_npi_normal`, `_npi_gamma`, …)
 * and `_backward_gamma_sample`. One table row per op: the parameter names, NumPy's domain check
 * (its ValueError text, thrown before anything is written) and the transform of uniform (or
 * normal) draws into a sample and, for ops with MXNet's hidden noise output, the per-element
 * derivative the pathwise gradient reduces. Log transforms use 1 - u ∈ (0, 1] so no draw maps to
 * an infinity.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { OpContext, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import { NormalSampler } from '@mx/storage';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { gammaImplicitGrad, sampleStdGamma } from './gamma-math.js';
import {
  broadcastIndex,
  checkAll,
  checkOut,
  DEVICE,
  generatorOf,
  params,
  readF64,
  SAMPLER_DTYPES,
  store,
  uniformSource,
} from './io.js';

/** What a row's transform receives: draws and the parameter values of element i. */
interface Draws {
  readonly u: () => number;
  readonly n: () => number;
}

interface Row {
  readonly names: readonly string[];
  /** Per parameter: [valid, NumPy's message], or undefined when unchecked. */
  readonly checks: readonly ([(v: number) => boolean, string] | undefined)[];
  /** Sample (and noise) for parameter values p. */
  readonly draw: (d: Draws, p: readonly number[]) => readonly [number, number];
}

const nonNeg = (what: string): [(v: number) => boolean, string] => [(v) => v >= 0, `${what} < 0`];

const ROWS: Readonly<Record<string, Row>> = {
  _npi_uniform: {
    names: ['low', 'high'],
    checks: [undefined, undefined],
    draw: (d, [lo, hi]) => [(lo as number) + d.u() * ((hi as number) - (lo as number)), 0],
  },
  _npi_normal: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    draw: (d, [loc, scale]) => {
      const z = d.n();
      return [(loc as number) + z * (scale as number), z];
    },
  },
  _npi_gamma: {
    names: ['shape', 'scale'],
    checks: [nonNeg('shape'), nonNeg('scale')],
    draw: (d, [k, theta]) => [sampleStdGamma(k as number, d.u, d.n) * (theta as number), 0],
  },
  _npi_exponential: {
    names: ['scale'],
    checks: [nonNeg('scale')],
    draw: (d, [scale]) => {
      const e = -Math.log(1 - d.u());
      return [(scale as number) * e, e];
    },
  },
  _npi_laplace: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    draw: (d, [loc, scale]) => {
      const u = d.u();
      const z = u < 0.5 ? Math.log(2 * u || Number.MIN_VALUE) : -Math.log(2 * (1 - u));
      return [(loc as number) + (scale as number) * z, 0];
    },
  },
  _npi_logistic: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    draw: (d, [loc, scale]) => {
      let u = d.u();
      while (u === 0) u = d.u();
      const z = Math.log(u) - Math.log1p(-u);
      return [(loc as number) + z * (scale as number), z];
    },
  },
  _npi_gumbel: {
    names: ['loc', 'scale'],
    checks: [undefined, nonNeg('scale')],
    draw: (d, [loc, scale]) => {
      let u = d.u();
      while (u === 0) u = d.u();
      const z = -Math.log(-Math.log(u));
      return [(loc as number) + z * (scale as number), z];
    },
  },
  _npi_weibull: {
    names: ['a'],
    checks: [nonNeg('a')],
    draw: (d, [a]) => {
      const e = -Math.log(1 - d.u());
      if (a === 0) return [0, 0];
      const x = e ** (1 / (a as number));
      return [x, (-Math.log(e) * x) / ((a as number) * (a as number))];
    },
  },
  _npi_pareto: {
    names: ['a'],
    checks: [[(v) => v > 0, 'a <= 0']],
    draw: (d, [a]) => {
      const e = -Math.log(1 - d.u());
      const x = Math.expm1(e / (a as number));
      return [x, (-e * (x + 1)) / ((a as number) * (a as number))];
    },
  },
  _npi_powerd: {
    names: ['a'],
    checks: [[(v) => v > 0, 'a <= 0']],
    draw: (d, [a]) => [(1 - d.u()) ** (1 / (a as number)), 0],
  },
  _npi_rayleigh: {
    names: ['scale'],
    checks: [nonNeg('scale')],
    draw: (d, [scale]) => {
      const r = Math.sqrt(-2 * Math.log(1 - d.u()));
      return [(scale as number) * r, r];
    },
  },
};

function sample(
  op: string,
  row: Row,
  rt: CpuWasmRuntime,
  attrs: Readonly<Record<string, unknown>>,
  ctx: OpContext,
  inputs: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outputs: readonly TBlob<number>[],
): void {
  const out = outputs[0] as TBlob<number>;
  checkOut(op, out.dtype, ['float32', 'float64']);
  const { get, values } = params(op, rt, attrs, row.names, inputs, out.shape);
  row.checks.forEach((c, k) => {
    if (c !== undefined) checkAll(op, values[k] as number[], c[0], c[1]);
  });
  const n = out.size;
  if (n === 0) return;
  const g = generatorOf(op, ctx);
  const dtype: DTypeName = out.dtype;
  const u = uniformSource(g, dtype);
  const normal = new NormalSampler(0, 1, dtype === 'float64' ? 'float64' : 'float32');
  const draws: Draws = { u, n: () => normal.next(g) };
  const s = new Float64Array(n);
  const z = new Float64Array(n);
  const p = new Array<number>(row.names.length);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < p.length; k++) p[k] = (get[k] as (i: number) => number)(i);
    const [x, e] = row.draw(draws, p);
    s[i] = x;
    z[i] = e;
  }
  store(rt, out, req[0], s);
  if (outputs.length > 1) store(rt, outputs[1] as TBlob<number>, req[1], z);
}

/** `_backward_gamma_sample`: Σ over broadcast axes of ograd · scale · dx/da(a, sample / scale). */
function gammaBackward(
  rt: CpuWasmRuntime,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outputs: readonly TBlob<number>[],
): void {
  const op = '_backward_gamma_sample';
  const scale = attrs.scale;
  if (typeof scale !== 'number') {
    throw new MXNetError('ValueError: tensor scale case not supported', {
      op,
      device: DEVICE,
      hint: 'gamma is differentiable w.r.t. a tensor shape with a scalar scale (as MXNet 2.0)',
    });
  }
  const [og, alpha, smp] = inputs as [TBlob<number>, TBlob<number>, TBlob<number>];
  const out = outputs[0] as TBlob<number>;
  const ograd = readF64(op, rt, og);
  const a = readF64(op, rt, alpha);
  const x = readF64(op, rt, smp);
  const idx = broadcastIndex(alpha.shape, smp.shape);
  const acc = new Float64Array(out.size);
  for (let i = 0; i < x.length; i++) {
    const j = idx[i] as number;
    acc[j] =
      (acc[j] as number) +
      (ograd[i] as number) * scale * gammaImplicitGrad(a[j] as number, (x[i] as number) / scale);
  }
  store(rt, out, req[0], acc);
}

export function installDists(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const [op, row] of Object.entries(ROWS)) {
    registry.registerKernel(op, 'cpu-wasm', {
      dtypes: SAMPLER_DTYPES,
      compute: (a, ctx, i, req, o) =>
        sample(op, row, rt, a, ctx, i as TBlob<number>[], req, o as TBlob<number>[]),
    });
  }
  registry.registerKernel('_backward_gamma_sample', 'cpu-wasm', {
    dtypes: SAMPLER_DTYPES,
    compute: (a, _ctx, i, req, o) => gammaBackward(rt, a, i as TBlob<number>[], req, o as TBlob<number>[]),
  });
}
