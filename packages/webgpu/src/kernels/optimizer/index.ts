/**
 * The optimizer family on webgpu: every fused update is one generated 1-D kernel (update.ts)
 * running the op's element body (specs.ts); this file maps an op's inputs to slots and turns its
 * parameters into the per-call uniforms (MXNet `float` fields: rounded to float32 first, derived
 * products such as 1 - lr*wd computed in float32, as cpu-wasm does). States are written in place;
 * the output may be the weight. multi_* ops dispatch once per weight group (a device binds only
 * a few storage buffers per dispatch); multi_sum_sq is in sum-sq.ts.
 *
 * Dtypes: float32 weights; the mixed-precision forms (mp_*, multi_mp_*, _mp_adamw_update) also take
 * float16 weights and gradients (shader-f16 devices), computing in float32 on the master copy.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import {
  ADAM,
  adamWSpec,
  BIAS,
  CLIP,
  CLIP_WEIGHTS,
  FTRL,
  LAMB1,
  LAMB2,
  momSpec,
  NAG,
  RMSPROP,
  RMSPROP_ALEX,
  SIGNSGD,
  SIGNUM,
  sgdSpec,
} from './specs.js';
import { installSumSq } from './sum-sq.js';
import { runUpdate, type UpdateSpec } from './update.js';

type Uniforms = Record<string, number>;

const F = Math.fround;
const REAL: readonly DTypeName[] = Object.freeze(['float32']);
const MP: readonly DTypeName[] = Object.freeze(['float32', 'float16']);

const f = (a: Attrs, key: string): number => F(a[key] as number);
const clipFlag = (a: Attrs, key = 'clip_gradient'): number => (f(a, key) >= 0 ? CLIP : 0);

function sgdUniforms(a: Attrs, lrIn?: number, wdIn?: number): Uniforms {
  const lr = lrIn ?? f(a, 'lr');
  const wd = wdIn ?? f(a, 'wd');
  const rescale = f(a, 'rescale_grad');
  return {
    lrwd1: F(1 - F(lr * wd)),
    lrwd: F(lr * wd),
    lr,
    rescale,
    lr_rescale: F(lr * rescale),
    clip: f(a, 'clip_gradient'),
    momentum: a.momentum === undefined ? 0 : f(a, 'momentum'),
  };
}

const adamWUniforms = (a: Attrs): Uniforms => ({
  clip: f(a, 'clip_gradient'),
  beta1: f(a, 'beta1'),
  beta1c: F(1 - f(a, 'beta1')),
  beta2: f(a, 'beta2'),
  beta2c: F(1 - f(a, 'beta2')),
  eta: f(a, 'eta'),
  lr: f(a, 'lr'),
  wd: f(a, 'wd'),
  epsilon: f(a, 'epsilon'),
});

const rmspropUniforms = (a: Attrs): Uniforms => ({
  rescale: f(a, 'rescale_grad'),
  wd: f(a, 'wd'),
  clip: f(a, 'clip_gradient'),
  gamma1c: F(1 - f(a, 'gamma1')),
  gamma1: f(a, 'gamma1'),
  gamma2: a.gamma2 === undefined ? 0 : f(a, 'gamma2'),
  lr: f(a, 'lr'),
  epsilon: f(a, 'epsilon'),
  cw: f(a, 'clip_weights'),
});
const rmspropFlags = (a: Attrs) => clipFlag(a) | (f(a, 'clip_weights') >= 0 ? CLIP_WEIGHTS : 0);

/** One single-weight op: the inputs filling the spec's slots before `out`, variant and uniforms. */
interface SingleDef {
  readonly op: string;
  readonly spec: UpdateSpec;
  readonly mp?: boolean;
  readonly inputs: readonly number[];
  readonly flags: (a: Attrs) => number;
  readonly uniforms: (a: Attrs) => Uniforms;
}

const SINGLE: readonly SingleDef[] = [
  {
    op: 'sgd_update',
    spec: sgdSpec(false),
    inputs: [0, 1],
    flags: clipFlag,
    uniforms: (a) => sgdUniforms(a),
  },
  {
    op: 'mp_sgd_update',
    spec: sgdSpec(true),
    mp: true,
    inputs: [1, 2],
    flags: clipFlag,
    uniforms: (a) => sgdUniforms(a),
  },
  {
    op: 'sgd_mom_update',
    spec: momSpec(true, false),
    inputs: [0, 1, 2],
    flags: clipFlag,
    uniforms: (a) => sgdUniforms(a),
  },
  {
    op: 'mp_sgd_mom_update',
    spec: momSpec(true, true),
    mp: true,
    inputs: [1, 2, 3],
    flags: clipFlag,
    uniforms: (a) => sgdUniforms(a),
  },
  {
    op: 'nag_mom_update',
    spec: NAG,
    inputs: [0, 1, 2],
    flags: clipFlag,
    uniforms: (a) => ({
      momentum: f(a, 'momentum'),
      momentum1: F(f(a, 'momentum') + 1),
      lr: f(a, 'lr'),
      wd: f(a, 'wd'),
      rescale: f(a, 'rescale_grad'),
      clip: f(a, 'clip_gradient'),
    }),
  },
  {
    op: 'adam_update',
    spec: ADAM,
    inputs: [0, 1, 2, 3],
    flags: clipFlag,
    uniforms: (a) => ({
      rescale: f(a, 'rescale_grad'),
      wd: f(a, 'wd'),
      clip: f(a, 'clip_gradient'),
      beta1: f(a, 'beta1'),
      beta1c: F(1 - f(a, 'beta1')),
      beta2: f(a, 'beta2'),
      beta2c: F(1 - f(a, 'beta2')),
      lr: f(a, 'lr'),
      epsilon: f(a, 'epsilon'),
    }),
  },
  {
    op: '_adamw_update',
    spec: adamWSpec(false),
    inputs: [0, 1, 2, 3, 4],
    flags: clipFlag,
    uniforms: adamWUniforms,
  },
  {
    op: '_mp_adamw_update',
    spec: adamWSpec(true),
    mp: true,
    inputs: [0, 1, 2, 3, 4, 5],
    flags: clipFlag,
    uniforms: adamWUniforms,
  },
  { op: 'rmsprop_update', spec: RMSPROP, inputs: [0, 1, 2], flags: rmspropFlags, uniforms: rmspropUniforms },
  {
    op: 'rmspropalex_update',
    spec: RMSPROP_ALEX,
    inputs: [0, 1, 2, 3, 4],
    flags: rmspropFlags,
    uniforms: rmspropUniforms,
  },
  {
    op: 'ftrl_update',
    spec: FTRL,
    inputs: [0, 1, 2, 3],
    flags: clipFlag,
    uniforms: (a) => ({
      rescale: f(a, 'rescale_grad'),
      clip: f(a, 'clip_gradient'),
      lr: f(a, 'lr'),
      lamda1: f(a, 'lamda1'),
      beta: f(a, 'beta'),
      wd: f(a, 'wd'),
    }),
  },
  {
    op: 'signsgd_update',
    spec: SIGNSGD,
    inputs: [0, 1],
    flags: () => 0,
    uniforms: (a) => ({ lrwd1: F(1 - F(f(a, 'lr') * f(a, 'wd'))), lr: f(a, 'lr') }),
  },
  {
    op: 'signum_update',
    spec: SIGNUM,
    inputs: [0, 1, 2],
    flags: clipFlag,
    uniforms: (a) => {
      const m = f(a, 'momentum');
      const mc = F(1 - m);
      return {
        momentum: m,
        mc,
        mwd: F(mc * f(a, 'wd')),
        rescale: f(a, 'rescale_grad'),
        clip: f(a, 'clip_gradient'),
        mrescale: F(mc * f(a, 'rescale_grad')),
        lrwdlh1: F(1 - F(f(a, 'lr') * f(a, 'wd_lh'))),
        lr: f(a, 'lr'),
      };
    },
  },
  {
    op: 'lamb_update_phase1',
    spec: LAMB1,
    inputs: [0, 1, 2, 3],
    flags: (a) => clipFlag(a) | (a.bias_correction ? BIAS : 0),
    uniforms: (a) => {
      const b1 = f(a, 'beta1');
      const b2 = f(a, 'beta2');
      const t = a.t as number;
      // MXNet: DType beta_t = std::pow(param.beta, param.t) (a double power, then DType).
      return {
        rescale: f(a, 'rescale_grad'),
        clip: f(a, 'clip_gradient'),
        beta1: b1,
        beta1c: F(1 - b1),
        beta2: b2,
        beta2c: F(1 - b2),
        beta1t: F(1 - F(b1 ** t)),
        beta2t: F(1 - F(b2 ** t)),
        epsilon: f(a, 'epsilon'),
        wd: f(a, 'wd'),
      };
    },
  },
  {
    op: 'lamb_update_phase2',
    spec: LAMB2,
    inputs: [0, 1, 2, 3],
    flags: () => 0,
    uniforms: (a) => ({ lr: f(a, 'lr'), lb: f(a, 'lower_bound'), ub: f(a, 'upper_bound') }),
  },
];

function installSingle(registry: OpRegistry, gpu: GpuHost, def: SingleDef): void {
  registry.registerKernel(
    def.op,
    'webgpu',
    gpuKernel(
      gpu,
      def.op,
      (attrs, inputs, req, outputs) => {
        const slots = def.inputs.map((i) => inputs[i] as GpuBlob);
        slots.push(outputs[0] as GpuBlob);
        runUpdate(gpu.rt, def.spec, def.flags(attrs), req[0] as OpReqType, slots, def.uniforms(attrs));
      },
      def.mp ? MP : REAL,
    ),
  );
}

/** multi_*: per weight i the momentum body with lrs[i], wds[i]; inputs in groups of `stride`. */
function installMulti(registry: OpRegistry, gpu: GpuHost, op: string, hasMom: boolean, mp: boolean): void {
  const spec = momSpec(hasMom, mp);
  const stride = 2 + (hasMom ? 1 : 0) + (mp ? 1 : 0);
  // Group positions in slot order (see momSpec): mp reads grad, [mom], weight32.
  const group = mp ? (hasMom ? [1, 2, 3] : [1, 2]) : hasMom ? [0, 1, 2] : [0, 1];
  registry.registerKernel(
    op,
    'webgpu',
    gpuKernel(
      gpu,
      op,
      (attrs, inputs, req, outputs) => {
        const lrs = attrs.lrs as readonly number[];
        const wds = attrs.wds as readonly number[];
        const flags = clipFlag(attrs);
        for (let i = 0; i < (attrs.num_weights as number); i++) {
          const slots = group.map((j) => inputs[i * stride + j] as GpuBlob);
          slots.push(outputs[i] as GpuBlob);
          const u = sgdUniforms(attrs, F(lrs[i] as number), F(wds[i] as number));
          runUpdate(gpu.rt, spec, flags, req[i] as OpReqType, slots, u);
        }
      },
      mp ? MP : REAL,
    ),
  );
}

export function installOptimizer(registry: OpRegistry, gpu: GpuHost): void {
  for (const def of SINGLE) installSingle(registry, gpu, def);
  installMulti(registry, gpu, 'multi_sgd_update', false, false);
  installMulti(registry, gpu, 'multi_sgd_mom_update', true, false);
  installMulti(registry, gpu, 'multi_mp_sgd_update', false, true);
  installMulti(registry, gpu, 'multi_mp_sgd_mom_update', true, true);
  installSumSq(registry, gpu);
}
