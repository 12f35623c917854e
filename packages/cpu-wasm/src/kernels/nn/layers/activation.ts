/**
 * Activation, LeakyReLU and their backward ops on cpu-wasm: one SimpleOp expression per act_type,
 * compiled by the codegen family into a SIMD loop (util.ts `ExprKernels`), so every activation runs
 * vectorised (exp/log/tanh/erf have SIMD implementations there), honours req and splits large
 * arrays across the worker pool.
 *
 * Formulas are MXNet's mshadow_op functors, with three deliberate numerical choices:
 * - log_sigmoid is min(x, 0) - log1p(e^-|x|) (MXNet's log(1/(1+e^-x)) gives -inf below x ≈ -88 in
 *   float32), and its gradient -expm1(y) (MXNet: 1 - e^y, the same value with less cancellation);
 * - SELU's gradient from the output is λ for y > 0 and y + λα otherwise, the true derivative
 *   (MXNet's selu_grad computes λ(α + y), which is not);
 * - the GELU gradients are computed from x directly (MXNet's y/x + ... form is 0/0 at x = 0), the
 *   tanh one with sech²(u) = 4/(eᵘ + e⁻ᵘ)² instead of 1 - tanh²(u), which cancels in float32.
 * Backward inputs are MXNet's: `_backward_Activation(ograd, output[, data])`,
 * `_backward_LeakyReLU(ograd, data[, gamma], output[, mask])`.
 *
 * prelu reads gamma through an input view that places it on data axis 1 (MXNet's expand_shape),
 * so the compiled broadcast loop handles it; the gamma gradient is the elementwise
 * ograd · min-part reduced to gamma's shape by the reduce family. rrelu draws its slopes from the
 * parallel random resource in training (kept in the hidden mask output) and uses
 * (lower + upper) / 2 otherwise (the mask is then filled with it, so backward works in both modes).
 */
import { MXNetError, type Shape } from '@mx/base';
import { type Attrs, E, type Expr, type OpContext, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { reduceInto } from '../../reduce/index.js';
import { fillUniform } from './random.js';
import {
  BACKEND,
  type Blob,
  checkFloat,
  type ExprKernels,
  FLOAT_DTYPES,
  reshaped,
  withScratch,
} from './util.js';

const { x } = E;
const SELU_LAMBDA = 1.0507009873554805;
const SELU_ALPHA = 1.6732632423543772;
const SQRT_2 = Math.SQRT2;
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
const GELU_TANH_CONST = 0.044715;

/** softrelu(a) with MXNet's threshold: a for a > 20, log1p(exp(a)) otherwise. */
const softrelu = (a: Expr): Expr => E.select(E.gt(a, 20), a, E.log1p(E.exp(a)));
const sigmoid = (a: Expr): Expr => E.div(1, E.add(1, E.exp(E.neg(a))));

type ActType = 'relu' | 'sigmoid' | 'log_sigmoid' | 'mish' | 'tanh' | 'softrelu' | 'softsign';

/** Activation forward, in terms of the data (input 0). */
const ACT_FORWARD: Readonly<Record<ActType, Expr>> = {
  relu: E.max(x, 0),
  sigmoid: sigmoid(x),
  tanh: E.tanh(x),
  softrelu: softrelu(x),
  softsign: E.div(x, E.add(1, E.abs(x))),
  log_sigmoid: E.sub(E.min(x, 0), E.log1p(E.exp(E.neg(E.abs(x))))),
  mish: E.mul(x, E.tanh(softrelu(x))),
};

/** Activation backward over inputs (ograd 0, output 1, data 2). */
const gy = E.input(0);
const yo = E.input(1);
const xd = E.input(2);
const mishTanh = E.tanh(softrelu(xd));
const ACT_BACKWARD: Readonly<Record<ActType, Expr>> = {
  relu: E.select(E.gt(yo, 0), gy, 0),
  sigmoid: E.mul(gy, E.mul(yo, E.sub(1, yo))),
  tanh: E.mul(gy, E.sub(1, E.square(yo))),
  softrelu: E.mul(gy, E.neg(E.expm1(E.neg(yo)))),
  softsign: E.div(gy, E.square(E.add(1, E.abs(xd)))),
  log_sigmoid: E.mul(gy, E.neg(E.expm1(yo))),
  mish: E.mul(gy, E.add(mishTanh, E.mul(E.mul(xd, sigmoid(xd)), E.sub(1, E.square(mishTanh))))),
};

type LeakyType = 'rrelu' | 'leaky' | 'prelu' | 'elu' | 'selu' | 'gelu' | 'gelu_erf' | 'gelu_tanh';

interface LeakyAttrs extends Attrs {
  readonly act_type: LeakyType;
  readonly slope: number;
  readonly lower_bound: number;
  readonly upper_bound: number;
}

const slope = E.param('slope');
/** MXNet xelu(a, b): a > 0 ? a : a·b. */
const xelu = (a: Expr, b: Expr): Expr => E.select(E.gt(a, 0), a, E.mul(a, b));
const geluErf = E.mul(E.mul(0.5, x), E.add(1, E.erf(E.div(x, SQRT_2))));
const tanhArg = (a: Expr): Expr =>
  E.mul(SQRT_2_OVER_PI, E.add(a, E.mul(GELU_TANH_CONST, E.mul(E.square(a), a))));
const geluTanh = E.mul(E.mul(0.5, x), E.add(1, E.tanh(tanhArg(x))));

/** LeakyReLU forward in terms of data (input 0) and, for prelu/rrelu, the slope operand (input 1). */
const LEAKY_FORWARD: Readonly<Record<Exclude<LeakyType, 'prelu' | 'rrelu'>, Expr>> = {
  leaky: xelu(x, slope),
  elu: E.select(E.gt(x, 0), x, E.mul(slope, E.expm1(x))),
  selu: E.mul(SELU_LAMBDA, E.select(E.gt(x, 0), x, E.mul(SELU_ALPHA, E.expm1(x)))),
  gelu: geluErf,
  gelu_erf: geluErf,
  gelu_tanh: geluTanh,
};
const XELU_BINARY = xelu(E.x, E.y);

/** LeakyReLU backward over (ograd 0, data 1, output 2) — prelu/rrelu use their own inputs. */
const lg = E.input(0);
const lx = E.input(1);
const ly = E.input(2);
const uArg = tanhArg(lx);
const tArg = E.tanh(uArg);
/** sech²(u) = 1 - tanh²(u) without the cancellation of 1 - t² near |t| = 1. */
const sech2 = E.div(4, E.square(E.add(E.exp(uArg), E.exp(E.neg(uArg)))));
const geluErfGrad = E.mul(
  lg,
  E.add(
    E.mul(0.5, E.add(1, E.erf(E.div(lx, SQRT_2)))),
    E.mul(E.mul(lx, INV_SQRT_2PI), E.exp(E.mul(-0.5, E.square(lx)))),
  ),
);
const LEAKY_BACKWARD: Readonly<Record<Exclude<LeakyType, 'prelu' | 'rrelu'>, Expr>> = {
  leaky: E.select(E.gt(ly, 0), lg, E.mul(lg, slope)),
  elu: E.select(E.gt(ly, 0), lg, E.mul(lg, E.add(slope, ly))),
  selu: E.select(E.gt(ly, 0), E.mul(lg, SELU_LAMBDA), E.mul(lg, E.add(ly, SELU_LAMBDA * SELU_ALPHA))),
  gelu: geluErfGrad,
  gelu_erf: geluErfGrad,
  gelu_tanh: E.mul(
    lg,
    E.add(
      E.mul(0.5, E.add(1, tArg)),
      E.mul(
        E.mul(E.mul(0.5, lx), sech2),
        E.mul(SQRT_2_OVER_PI, E.add(1, E.mul(3 * GELU_TANH_CONST, E.square(lx)))),
      ),
    ),
  ),
};

/** rrelu backward over (ograd 0, output 1, mask 2): mask holds the per-element slopes. */
const RRELU_BACKWARD = E.select(E.gt(E.input(1), 0), E.input(0), E.mul(E.input(0), E.input(2)));
/** prelu data gradient over (ograd 0, data 1, gamma 2). */
const PRELU_DX = E.select(E.gt(E.input(1), 0), E.input(0), E.mul(E.input(0), E.input(2)));
/** prelu gamma gradient before the reduction, over (ograd 0, data 1). */
const PRELU_DGAMMA = E.select(E.gt(E.input(1), 0), 0, E.mul(E.input(0), E.input(1)));

/** MXNet's expand_shape of gamma against data (validated by shape inference). */
function expandGamma(gamma: Shape, data: Shape): number[] {
  const out = new Array<number>(data.length).fill(1);
  let s = gamma.length - 1;
  for (let i = data.length - 1; i >= 0 && s >= 0; i--) {
    const g = gamma[s] as number;
    if (i <= 1 && (data[i] === g || g === 1)) {
      out[i] = g;
      s--;
    }
  }
  if (s !== -1) {
    throw new MXNetError(
      `Cannot broadcast gamma to data. gamma: (${gamma.join(', ')}), data: (${data.join(', ')})`,
      {
        op: 'LeakyReLU',
        shapes: [data, gamma],
        hint: 'give gamma one value per channel (data axis 1) or a single value',
      },
    );
  }
  return out;
}

/** Input views for prelu kernels: every input as the output shape except gamma at `gi`. */
const preluViews =
  (gi: number) =>
  (shapes: readonly (readonly number[])[], out: readonly number[]): readonly (readonly number[])[] =>
    shapes.map((s, i) => (i === gi ? expandGamma(s, out) : out));

function activation(
  ew: ExprKernels,
  p: { act_type: ActType },
  ins: readonly Blob[],
  req: OpReqType,
  out: Blob,
): void {
  checkFloat('Activation', [...ins, out]);
  ew.run(`Activation_${p.act_type}`, ACT_FORWARD[p.act_type], p, ins, req, out);
}

function activationBackward(
  ew: ExprKernels,
  p: { act_type: ActType },
  ins: readonly Blob[],
  req: OpReqType,
  out: Blob,
): void {
  checkFloat('_backward_Activation', [...ins, out]);
  ew.run(`_backward_Activation_${p.act_type}`, ACT_BACKWARD[p.act_type], p, ins, req, out);
}

function rreluSlope(p: LeakyAttrs): number {
  return Math.fround((Math.fround(p.lower_bound) + Math.fround(p.upper_bound)) / 2);
}

function leaky(
  rt: CpuWasmRuntime,
  ew: ExprKernels,
  p: LeakyAttrs,
  ctx: OpContext,
  ins: readonly Blob[],
  req: readonly OpReqType[],
  outs: readonly Blob[],
): void {
  const op = 'LeakyReLU';
  checkFloat(op, [...ins, ...outs]);
  const data = ins[0] as Blob;
  const out = outs[0] as Blob;
  const r = req[0] ?? OpReq.write;
  switch (p.act_type) {
    case 'prelu':
      ew.run('LeakyReLU_prelu', XELU_BINARY, p, [data, ins[1] as Blob], r, out, preluViews(1));
      return;
    case 'rrelu': {
      const mask = outs[1] as Blob;
      const rm = req[1] ?? OpReq.write;
      if (mask.size === 0) return;
      if (ctx.isTrain) {
        fillUniform(rt, op, ctx, mask, p.lower_bound, p.upper_bound);
        ew.run('LeakyReLU_xelu', XELU_BINARY, p, [data, mask], r, out);
      } else {
        const s = rreluSlope(p);
        if (rm !== OpReq.null) rt.view(mask).fill(s as never);
        ew.run('LeakyReLU_leaky', LEAKY_FORWARD.leaky, { slope: s }, [data], r, out);
      }
      return;
    }
    default:
      ew.run(`LeakyReLU_${p.act_type}`, LEAKY_FORWARD[p.act_type], p, [data], r, out);
  }
}

function leakyBackward(
  rt: CpuWasmRuntime,
  ew: ExprKernels,
  p: LeakyAttrs,
  ins: readonly Blob[],
  req: readonly OpReqType[],
  outs: readonly Blob[],
): void {
  const op = '_backward_LeakyReLU';
  checkFloat(op, [...ins, ...outs]);
  const g = ins[0] as Blob;
  const data = ins[1] as Blob;
  const dx = outs[0] as Blob;
  const rx = req[0] ?? OpReq.write;
  switch (p.act_type) {
    case 'prelu': {
      const gamma = ins[2] as Blob;
      ew.run('_backward_LeakyReLU_prelu_dx', PRELU_DX, p, [g, data, gamma], rx, dx, preluViews(2));
      const dg = outs[1] as Blob;
      const rg = req[1] ?? OpReq.write;
      if (rg === OpReq.null || dg.size === 0) return;
      const full = expandGamma(gamma.shape, data.shape);
      withScratch(rt, op, data.shape, data.dtype, (tmp) => {
        ew.run('_backward_LeakyReLU_prelu_dgamma', PRELU_DGAMMA, p, [g, data], OpReq.write, tmp);
        const reduced = full.map((d, i) => d === 1 && (data.shape[i] as number) !== 1);
        if (!reduced.some(Boolean)) {
          ew.run('_layers_copy', E.x, {}, [reshaped(tmp, dg.shape)], rg, dg);
          return;
        }
        reduceInto(rt, op, 'sum', 'none', tmp, dg, reduced, rg);
      });
      return;
    }
    case 'rrelu':
      ew.run('_backward_LeakyReLU_rrelu', RRELU_BACKWARD, p, [g, ins[2] as Blob, ins[3] as Blob], rx, dx);
      return;
    default:
      ew.run(
        `_backward_LeakyReLU_${p.act_type}`,
        LEAKY_BACKWARD[p.act_type],
        p,
        [g, data, ins[2] as Blob],
        rx,
        dx,
      );
  }
}

export function installActivations(registry: OpRegistry, rt: CpuWasmRuntime, ew: ExprKernels): void {
  registry.registerKernel<{ act_type: ActType } & Attrs>('Activation', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (p, _ctx, ins, req, outs) =>
      activation(ew, p, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
  });
  registry.registerKernel<{ act_type: ActType } & Attrs>('_backward_Activation', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (p, _ctx, ins, req, outs) =>
      activationBackward(ew, p, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
  });
  registry.registerKernel<LeakyAttrs>('LeakyReLU', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (p, ctx, ins, req, outs) =>
      leaky(rt, ew, p, ctx, ins as readonly Blob[], req, outs as readonly Blob[]),
  });
  registry.registerKernel<LeakyAttrs>('_backward_LeakyReLU', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (p, _ctx, ins, req, outs) =>
      leakyBackward(rt, ew, p, ins as readonly Blob[], req, outs as readonly Blob[]),
  });
}
