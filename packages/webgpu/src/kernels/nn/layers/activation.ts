/**
 * Activation, LeakyReLU and their backward ops on webgpu: one WGSL expression per act_type run by
 * the shared map kernel (map.ts), with cpu-wasm's formulas (log_sigmoid as min(x,0) - log1p(e^-|x|),
 * SELU's true derivative from the output, GELU gradients from x with sech² = 4/(eᵘ+e⁻ᵘ)²).
 *
 * prelu reads gamma per channel ('chan' view over MXNet's expand_shape: data axes 0 and/or 1), and
 * its gamma gradient Σ select(x > 0, 0, g·x) is a one-workgroup-per-gamma-element reduction over the
 * (outer, inner) elements of that channel. rrelu in training draws its slopes into the hidden mask
 * from the op's parallel random resource (random.ts, the same draws as cpu-wasm), and uses
 * (lower + upper) / 2 otherwise (also written to the mask so backward works in both modes).
 */
import type { Attrs, OpRegistry } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { modeOf, requireFloat32 } from './gpu-util.js';
import { runMap } from './map.js';
import { preluGammaGrad, preluGeometry } from './prelu.js';
import { fillConst, uploadUniform } from './random.js';

type ActType = 'relu' | 'sigmoid' | 'log_sigmoid' | 'mish' | 'tanh' | 'softrelu' | 'softsign';
type LeakyType = 'rrelu' | 'leaky' | 'prelu' | 'elu' | 'selu' | 'gelu' | 'gelu_erf' | 'gelu_tanh';

interface ActAttrs extends Attrs {
  readonly act_type: ActType;
}
interface LeakyAttrs extends Attrs {
  readonly act_type: LeakyType;
  readonly slope: number;
  readonly lower_bound: number;
  readonly upper_bound: number;
}

/** Forward over a0 = data. */
const ACT_FORWARD: Readonly<Record<ActType, string>> = {
  relu: 'max(a0, 0.0)',
  sigmoid: 'mx_sigmoid(a0)',
  tanh: 'mx_tanh(a0)',
  softrelu: 'mx_softrelu(a0)',
  softsign: 'a0 / (1.0 + abs(a0))',
  log_sigmoid: 'min(a0, 0.0) - mx_log1p(mx_exp(-abs(a0)))',
  mish: 'a0 * mx_tanh(mx_softrelu(a0))',
};

/** Backward over a0 = ograd, a1 = output, a2 = data. */
const ACT_BACKWARD: Readonly<Record<ActType, string>> = {
  relu: 'select(0.0, a0, a1 > 0.0)',
  sigmoid: 'a0 * (a1 * (1.0 - a1))',
  tanh: 'a0 * (1.0 - a1 * a1)',
  softrelu: 'a0 * -mx_expm1(-a1)',
  softsign: 'a0 / ((1.0 + abs(a2)) * (1.0 + abs(a2)))',
  log_sigmoid: 'a0 * -mx_expm1(a1)',
  mish: 'mx_mish_grad(a0, a2)',
};

/** LeakyReLU forward over a0 = data, p0 = slope. */
const LEAKY_FORWARD: Readonly<Record<Exclude<LeakyType, 'prelu' | 'rrelu'>, string>> = {
  leaky: 'mx_xelu(a0, p0)',
  elu: 'select(p0 * mx_expm1(a0), a0, a0 > 0.0)',
  selu: 'MX_SELU_L * select(MX_SELU_A * mx_expm1(a0), a0, a0 > 0.0)',
  gelu: '0.5 * a0 * mx_phi2(a0)',
  gelu_erf: '0.5 * a0 * mx_phi2(a0)',
  gelu_tanh: 'mx_gelu_tanh(a0)',
};

/** LeakyReLU backward over a0 = ograd, a1 = data, a2 = output, p0 = slope. */
const LEAKY_BACKWARD: Readonly<Record<Exclude<LeakyType, 'prelu' | 'rrelu'>, string>> = {
  leaky: 'select(a0 * p0, a0, a2 > 0.0)',
  elu: 'select(a0 * (p0 + a2), a0, a2 > 0.0)',
  selu: 'select(a0 * (a2 + MX_SELU_L * MX_SELU_A), a0 * MX_SELU_L, a2 > 0.0)',
  gelu: 'mx_gelu_erf_grad(a0, a1)',
  gelu_erf: 'mx_gelu_erf_grad(a0, a1)',
  gelu_tanh: 'mx_gelu_tanh_grad(a0, a1)',
};

function rreluSlope(p: LeakyAttrs): number {
  return Math.fround((Math.fround(p.lower_bound) + Math.fround(p.upper_bound)) / 2);
}

export function installActivations(registry: OpRegistry, gpu: GpuHost): void {
  const F32 = ['float32'] as const;
  registry.registerKernel(
    'Activation',
    'webgpu',
    gpuKernel<ActAttrs>(
      gpu,
      'Activation',
      (p, ins, req, outs) => {
        requireFloat32('Activation', [...ins, ...outs]);
        const out = outs[0] as GpuBlob;
        runMap(gpu, {
          op: 'Activation',
          name: `act-${p.act_type}`,
          expr: ACT_FORWARD[p.act_type],
          inputs: [ins[0] as GpuBlob],
          out,
          mode: modeOf(req[0], out),
        });
      },
      F32,
    ),
  );
  registry.registerKernel(
    '_backward_Activation',
    'webgpu',
    gpuKernel<ActAttrs>(
      gpu,
      '_backward_Activation',
      (p, ins, req, outs) => {
        requireFloat32('_backward_Activation', [...ins, ...outs]);
        const out = outs[0] as GpuBlob;
        runMap(gpu, {
          op: '_backward_Activation',
          name: `act-bwd-${p.act_type}`,
          expr: ACT_BACKWARD[p.act_type],
          inputs: ins,
          out,
          mode: modeOf(req[0], out),
        });
      },
      F32,
    ),
  );
  registry.registerKernel(
    'LeakyReLU',
    'webgpu',
    gpuKernel<LeakyAttrs>(
      gpu,
      'LeakyReLU',
      (p, ins, req, outs, ctx) => {
        const op = 'LeakyReLU';
        requireFloat32(op, [...ins, ...outs]);
        const data = ins[0] as GpuBlob;
        const out = outs[0] as GpuBlob;
        const mode = modeOf(req[0], out);
        if (p.act_type === 'prelu') {
          const gamma = ins[1] as GpuBlob;
          const geo = preluGeometry(gamma.shape, data.shape);
          runMap(gpu, {
            op,
            name: 'prelu',
            expr: 'mx_xelu(a0, a1)',
            inputs: [data, gamma],
            views: ['same', 'chan'],
            chan: geo,
            out,
            mode,
          });
          return;
        }
        if (p.act_type === 'rrelu') {
          const mask = outs[1] as GpuBlob;
          if (mask.size === 0) return;
          if (ctx.isTrain) {
            uploadUniform(gpu, op, ctx, mask, p.lower_bound, p.upper_bound);
            runMap(gpu, { op, name: 'xelu2', expr: 'mx_xelu(a0, a1)', inputs: [data, mask], out, mode });
          } else {
            const s = rreluSlope(p);
            if (modeOf(req[1], mask) !== 'n') fillConst(gpu, mask, s);
            runMap(gpu, {
              op,
              name: 'leaky-leaky',
              expr: LEAKY_FORWARD.leaky,
              inputs: [data],
              params: [s],
              out,
              mode,
            });
          }
          return;
        }
        runMap(gpu, {
          op,
          name: `leaky-${p.act_type}`,
          expr: LEAKY_FORWARD[p.act_type],
          inputs: [data],
          params: [p.slope],
          out,
          mode,
        });
      },
      F32,
    ),
  );
  registry.registerKernel(
    '_backward_LeakyReLU',
    'webgpu',
    gpuKernel<LeakyAttrs>(
      gpu,
      '_backward_LeakyReLU',
      (p, ins, req, outs) => {
        const op = '_backward_LeakyReLU';
        requireFloat32(op, [...ins, ...outs]);
        const g = ins[0] as GpuBlob;
        const data = ins[1] as GpuBlob;
        const dx = outs[0] as GpuBlob;
        const mode = modeOf(req[0], dx);
        if (p.act_type === 'prelu') {
          const gamma = ins[2] as GpuBlob;
          const geo = preluGeometry(gamma.shape, data.shape);
          runMap(gpu, {
            op,
            name: 'prelu-dx',
            expr: 'select(a0 * a2, a0, a1 > 0.0)',
            inputs: [g, data, gamma],
            views: ['same', 'same', 'chan'],
            chan: geo,
            out: dx,
            mode,
          });
          if (data.size > 0) preluGammaGrad(gpu, g, data, outs[1] as GpuBlob, req[1] ?? 0);
          return;
        }
        if (p.act_type === 'rrelu') {
          runMap(gpu, {
            op,
            name: 'rrelu-dx',
            expr: 'select(a0 * a2, a0, a1 > 0.0)',
            inputs: [g, ins[2] as GpuBlob, ins[3] as GpuBlob],
            out: dx,
            mode,
          });
          return;
        }
        runMap(gpu, {
          op,
          name: `leaky-bwd-${p.act_type}`,
          expr: LEAKY_BACKWARD[p.act_type],
          inputs: [g, data, ins[2] as GpuBlob],
          params: [p.slope],
          out: dx,
          mode,
        });
      },
      F32,
    ),
  );
}
