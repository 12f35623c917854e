/**
 * The optimizer family on cuda-native: every fused update is one generated 1-D kernel (update.ts)
 * running the op's element body (specs.ts); this file maps an op's inputs to slots and turns its
 * parameters into the per-call uniforms. Parameters are MXNet `float` fields, so each is rounded to
 * float32 first (also for float64 weights), then derived products such as 1 - lr*wd are computed in
 * the compute precision, as cpu-wasm does. States are written in place (the ops' mutateInputs); the
 * output may be the weight. multi_* ops run all their weights in one launch; multi_sum_sq is in
 * sum-sq.ts.
 *
 * Dtypes (cpu-wasm's): float32 and float64 weights; the mixed-precision forms (mp_*, multi_mp_*,
 * _mp_adamw_update) also take float16 weights and gradients, computing in float32 on the master copy.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { Attrs, OpRegistry } from '@mx/ops';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
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
import { type MultiItem, type Real, runMulti, runUpdate, type UpdateSpec } from './update.js';

type Uniforms = Record<string, number>;
type Round = (x: number) => number;

const F = Math.fround;
const ident: Round = (x) => x;
const REAL: readonly DTypeName[] = Object.freeze(['float32', 'float64']);
const MP: readonly DTypeName[] = Object.freeze(['float32', 'float64', 'float16']);

const f = (a: Attrs, key: string): number => F(a[key] as number);
const clipFlag = (a: Attrs, key = 'clip_gradient'): number => (f(a, key) >= 0 ? CLIP : 0);

function sgdUniforms(a: Attrs, r: Round, lrIn?: number, wdIn?: number): Uniforms {
  const lr = lrIn ?? f(a, 'lr');
  const wd = wdIn ?? f(a, 'wd');
  const rescale = f(a, 'rescale_grad');
  return {
    lrwd1: r(1 - r(lr * wd)),
    lrwd: r(lr * wd),
    lr,
    rescale,
    lr_rescale: r(lr * rescale),
    clip: f(a, 'clip_gradient'),
    momentum: a.momentum === undefined ? 0 : f(a, 'momentum'),
  };
}

// MXNet computes 1 - beta in float (scalar<DType>(1.f - param.beta1)) for both precisions.
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

const rmspropUniforms = (a: Attrs, r: Round): Uniforms => ({
  rescale: f(a, 'rescale_grad'),
  wd: f(a, 'wd'),
  clip: f(a, 'clip_gradient'),
  gamma1c: r(1 - f(a, 'gamma1')),
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
  /** Mixed precision: computes in float32 whatever the weight dtype. */
  readonly mp?: boolean;
  readonly inputs: readonly number[];
  readonly flags: (a: Attrs) => number;
  readonly uniforms: (a: Attrs, r: Round) => Uniforms;
}

const SINGLE: readonly SingleDef[] = [
  {
    op: 'sgd_update',
    spec: sgdSpec(false),
    inputs: [0, 1],
    flags: clipFlag,
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'mp_sgd_update',
    spec: sgdSpec(true),
    mp: true,
    inputs: [1, 2],
    flags: clipFlag,
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'sgd_mom_update',
    spec: momSpec(true, false),
    inputs: [0, 1, 2],
    flags: clipFlag,
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'mp_sgd_mom_update',
    spec: momSpec(true, true),
    mp: true,
    inputs: [1, 2, 3],
    flags: clipFlag,
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'nag_mom_update',
    spec: NAG,
    inputs: [0, 1, 2],
    flags: clipFlag,
    uniforms: (a, r) => ({
      momentum: f(a, 'momentum'),
      momentum1: r(f(a, 'momentum') + 1),
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
    uniforms: (a, r) => ({
      rescale: f(a, 'rescale_grad'),
      wd: f(a, 'wd'),
      clip: f(a, 'clip_gradient'),
      beta1: f(a, 'beta1'),
      beta1c: r(1 - f(a, 'beta1')),
      beta2: f(a, 'beta2'),
      beta2c: r(1 - f(a, 'beta2')),
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
    uniforms: (a, r) => ({ lrwd1: r(1 - r(f(a, 'lr') * f(a, 'wd'))), lr: f(a, 'lr') }),
  },
  {
    op: 'signum_update',
    spec: SIGNUM,
    inputs: [0, 1, 2],
    flags: clipFlag,
    uniforms: (a, r) => {
      const m = f(a, 'momentum');
      const mc = r(1 - m);
      return {
        momentum: m,
        mc,
        mwd: r(mc * f(a, 'wd')),
        rescale: f(a, 'rescale_grad'),
        clip: f(a, 'clip_gradient'),
        mrescale: r(mc * f(a, 'rescale_grad')),
        lrwdlh1: r(1 - r(f(a, 'lr') * f(a, 'wd_lh'))),
        lr: f(a, 'lr'),
      };
    },
  },
  {
    op: 'lamb_update_phase1',
    spec: LAMB1,
    inputs: [0, 1, 2, 3],
    flags: (a) => clipFlag(a) | (a.bias_correction ? BIAS : 0),
    uniforms: (a, r) => {
      const b1 = f(a, 'beta1');
      const b2 = f(a, 'beta2');
      const t = a.t as number;
      // MXNet: DType beta_t = std::pow(param.beta, param.t) (a double power, then DType).
      return {
        rescale: f(a, 'rescale_grad'),
        clip: f(a, 'clip_gradient'),
        beta1: b1,
        beta1c: r(1 - b1),
        beta2: b2,
        beta2c: r(1 - b2),
        beta1t: r(1 - r(b1 ** t)),
        beta2t: r(1 - r(b2 ** t)),
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

/** The compute precision of an update: float32, or float64 for float64 weights of non-mp ops. */
function realOf(op: string, mp: boolean, w: CudaBlob, device: number): Real {
  if (mp || w.dtype === 'float32') return 'f32';
  if (w.dtype === 'float64') return 'f64';
  throw new MXNetError(`${op} computes in float32 or float64 on gpu(${device}), got a ${w.dtype} weight`, {
    op,
    dtypes: [w.dtype],
    device: `gpu(${device})`,
    hint: "cast the weight, gradient and states with astype('float32'), or use the mp_ form for float16",
  });
}

function installSingle(registry: OpRegistry, host: CudaHost, def: SingleDef): void {
  if (!registry.has(def.op)) return;
  registry.registerKernel(
    def.op,
    CUDA,
    cudaKernel(
      host,
      def.op,
      (attrs, inputs, req, outputs) => {
        const real = realOf(def.op, def.mp === true, inputs[0] as CudaBlob, host.rt.device);
        const slots = def.inputs.map((i) => inputs[i] as CudaBlob);
        slots.push(outputs[0] as CudaBlob);
        const u = def.uniforms(attrs, real === 'f32' ? F : ident);
        runUpdate(host.rt, def.op, def.spec, def.flags(attrs), req[0], real, slots, u);
      },
      def.mp ? MP : REAL,
    ),
  );
}

/** multi_*: per weight i the momentum body with lrs[i], wds[i]; inputs in groups of `stride`. */
function installMulti(registry: OpRegistry, host: CudaHost, op: string, hasMom: boolean, mp: boolean): void {
  if (!registry.has(op)) return;
  const spec = momSpec(hasMom, mp);
  const stride = 2 + (hasMom ? 1 : 0) + (mp ? 1 : 0);
  // Group positions in slot order (see momSpec): mp reads grad, [mom], weight32.
  const group = mp ? (hasMom ? [1, 2, 3] : [1, 2]) : hasMom ? [0, 1, 2] : [0, 1];
  registry.registerKernel(
    op,
    CUDA,
    cudaKernel(
      host,
      op,
      (attrs, inputs, req, outputs) => {
        const lrs = attrs.lrs as readonly number[];
        const wds = attrs.wds as readonly number[];
        const count = attrs.num_weights as number;
        const flags = clipFlag(attrs);
        const items: MultiItem[] = [];
        let real: Real = 'f32';
        for (let i = 0; i < count; i++) {
          const base = i * stride;
          const w = realOf(op, mp, inputs[base] as CudaBlob, host.rt.device);
          if (i > 0 && w !== real) {
            throw new MXNetError(`${op} needs every weight of one call in one dtype`, {
              op,
              dtypes: inputs.map((x) => x.dtype),
              device: `gpu(${host.rt.device})`,
              hint: `group the weights by dtype, one ${op} call per group`,
            });
          }
          real = w;
          const r = real === 'f32' ? F : ident;
          items.push({
            blobs: [...group.map((j) => inputs[base + j] as CudaBlob), outputs[i] as CudaBlob],
            req: req[i],
            uniforms: sgdUniforms(attrs, r, F(lrs[i] as number), F(wds[i] as number)),
          });
        }
        runMulti(host.rt, op, spec, flags, real, items);
      },
      mp ? MP : REAL,
    ),
  );
}

export function installOptimizer(registry: OpRegistry, host: CudaHost): void {
  for (const def of SINGLE) installSingle(registry, host, def);
  installMulti(registry, host, 'multi_sgd_update', false, false);
  installMulti(registry, host, 'multi_sgd_mom_update', true, false);
  installMulti(registry, host, 'multi_mp_sgd_update', false, true);
  installMulti(registry, host, 'multi_mp_sgd_mom_update', true, true);
  installSumSq(registry, host);
}
