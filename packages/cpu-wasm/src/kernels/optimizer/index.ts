/**
 * cpu-wasm kernels of the optimizer family: every fused update is one pass over its arrays in a
 * generated SIMD loop (fused.ts) running the op's element body (specs.ts); multi_sum_sq is a SIMD
 * reduction (sum-sq.ts). This file turns an op's parameters into the body's per-call uniforms,
 * chooses the variant (clipping on/off, ...) and maps inputs to slots.
 *
 * Parameters are MXNet `float` fields, so each is rounded to float32 first (MXNet's float64 kernels
 * also see float32 parameter values), then derived uniforms (1 - lr*wd, ...) are computed in the
 * compute precision, as MXNet's kernels compute them per element in DType.
 *
 * Precision: float32 and float64 updates run in wasm. The mixed-precision forms (mp_*, multi_mp_*,
 * _mp_adamw_update) compute in float32 on the float32 master copy; with a float32 weight they run
 * in wasm too, with a float16 (or float64) weight in JavaScript — cpu-wasm has no float16
 * arithmetic, and mixed precision is a GPU technique, so that path is for correctness, not speed.
 *
 * In place: optimizers pass `out=weight`; every kernel reads an element's weight, gradient and
 * states before storing anything, so the output may be the weight's memory. MXNet's nag_mom_update
 * re-reads weight after writing out (with out=weight its mom update sees the new weight when
 * wd != 0); here mom always uses the weight before the update, the documented formula.
 */
import { MXNetError } from '@mx/base';
import type { Attrs, OpRegistry, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import type { Kind } from './arith.js';
import { FusedUpdate, Req, reqOf, type UpdateSpec } from './fused.js';
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

type Round = (x: number) => number;
type Uniforms = Record<string, number>;

const F = Math.fround;
const ident: Round = (x) => x;

const DTYPES_REAL = Object.freeze(['float32', 'float64'] as const);
const DTYPES_MP = Object.freeze(['float32', 'float64', 'float16'] as const);

function f(a: Attrs, key: string): number {
  return F(a[key] as number);
}

function clipFlag(a: Attrs, key = 'clip_gradient'): number {
  return f(a, key) >= 0 ? CLIP : 0;
}

function clipUniforms(u: Uniforms, a: Attrs, key = 'clip_gradient', name = 'clip'): Uniforms {
  const c = f(a, key);
  u[name] = c;
  u[`-${name}`] = -c;
  return u;
}

function sgdUniforms(a: Attrs, r: Round, lrIn?: number, wdIn?: number): Uniforms {
  const lr = lrIn ?? f(a, 'lr');
  const wd = wdIn ?? f(a, 'wd');
  const rescale = f(a, 'rescale_grad');
  return clipUniforms(
    {
      '1-lr*wd': r(1 - r(lr * wd)),
      'lr*wd': r(lr * wd),
      lr,
      rescale,
      'lr*rescale': r(lr * rescale),
      momentum: a.momentum === undefined ? 0 : f(a, 'momentum'),
    },
    a,
  );
}

/** One single-weight op: which inputs fill the slots (the output is the last slot), its variant and uniforms. */
interface SingleDef {
  readonly op: string;
  readonly spec: UpdateSpec;
  /** Mixed precision: computes in float32 whatever the weight dtype. */
  readonly mp?: boolean;
  readonly inputs: readonly number[];
  readonly flags: (a: Attrs) => number;
  /** Uniforms by name; null skips the update. `first(i)` is input i's first element. */
  readonly uniforms: (a: Attrs, r: Round, first: (i: number) => number) => Uniforms | null;
}

const adamWUniforms =
  (rescaleInput: number) =>
  (a: Attrs, _r: Round, first: (i: number) => number): Uniforms | null => {
    const rescale = F(first(rescaleInput));
    // MXNet 1.x (CPU): a NaN rescale_grad skips the update; the loss scaler uses it after overflow.
    if (Number.isNaN(rescale)) return null;
    const b1 = f(a, 'beta1');
    const b2 = f(a, 'beta2');
    // MXNet computes 1 - beta in float (scalar<DType>(1.f - param.beta1)) for both precisions.
    return clipUniforms(
      {
        rescale,
        beta1: b1,
        '1-beta1': F(1 - b1),
        beta2: b2,
        '1-beta2': F(1 - b2),
        eta: f(a, 'eta'),
        lr: f(a, 'lr'),
        wd: f(a, 'wd'),
        epsilon: f(a, 'epsilon'),
      },
      a,
    );
  };

const rmspropUniforms = (a: Attrs, r: Round): Uniforms => {
  const g1 = f(a, 'gamma1');
  const u = clipUniforms(
    {
      rescale: f(a, 'rescale_grad'),
      wd: f(a, 'wd'),
      '1-gamma1': r(1 - g1),
      gamma1: g1,
      gamma2: a.gamma2 === undefined ? 0 : f(a, 'gamma2'),
      lr: f(a, 'lr'),
      epsilon: f(a, 'epsilon'),
    },
    a,
  );
  return clipUniforms(u, a, 'clip_weights', 'cw');
};

const SINGLE: readonly SingleDef[] = [
  {
    op: 'sgd_update',
    spec: sgdSpec(false),
    inputs: [0, 1],
    flags: (a) => clipFlag(a),
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'mp_sgd_update',
    spec: sgdSpec(true),
    mp: true,
    inputs: [1, 2],
    flags: (a) => clipFlag(a),
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'sgd_mom_update',
    spec: momSpec(true, false),
    inputs: [0, 1, 2],
    flags: (a) => clipFlag(a),
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'mp_sgd_mom_update',
    spec: momSpec(true, true),
    mp: true,
    inputs: [1, 2, 3],
    flags: (a) => clipFlag(a),
    uniforms: (a, r) => sgdUniforms(a, r),
  },
  {
    op: 'nag_mom_update',
    spec: NAG,
    inputs: [0, 1, 2],
    flags: (a) => clipFlag(a),
    uniforms: (a, r) =>
      clipUniforms(
        {
          momentum: f(a, 'momentum'),
          'momentum+1': r(f(a, 'momentum') + 1),
          lr: f(a, 'lr'),
          wd: f(a, 'wd'),
          rescale: f(a, 'rescale_grad'),
        },
        a,
      ),
  },
  {
    op: 'adam_update',
    spec: ADAM,
    inputs: [0, 1, 2, 3],
    flags: (a) => clipFlag(a),
    uniforms: (a, r) =>
      clipUniforms(
        {
          rescale: f(a, 'rescale_grad'),
          wd: f(a, 'wd'),
          beta1: f(a, 'beta1'),
          '1-beta1': r(1 - f(a, 'beta1')),
          beta2: f(a, 'beta2'),
          '1-beta2': r(1 - f(a, 'beta2')),
          lr: f(a, 'lr'),
          epsilon: f(a, 'epsilon'),
        },
        a,
      ),
  },
  {
    op: '_adamw_update',
    spec: adamWSpec(false),
    inputs: [0, 1, 2, 3],
    flags: (a) => clipFlag(a),
    uniforms: adamWUniforms(4),
  },
  {
    op: '_mp_adamw_update',
    spec: adamWSpec(true),
    mp: true,
    inputs: [1, 2, 3, 4],
    flags: (a) => clipFlag(a),
    uniforms: adamWUniforms(5),
  },
  {
    op: 'rmsprop_update',
    spec: RMSPROP,
    inputs: [0, 1, 2],
    flags: (a) => clipFlag(a) | (f(a, 'clip_weights') >= 0 ? CLIP_WEIGHTS : 0),
    uniforms: rmspropUniforms,
  },
  {
    op: 'rmspropalex_update',
    spec: RMSPROP_ALEX,
    inputs: [0, 1, 2, 3, 4],
    flags: (a) => clipFlag(a) | (f(a, 'clip_weights') >= 0 ? CLIP_WEIGHTS : 0),
    uniforms: rmspropUniforms,
  },
  {
    op: 'ftrl_update',
    spec: FTRL,
    inputs: [0, 1, 2, 3],
    flags: (a) => clipFlag(a),
    uniforms: (a) =>
      clipUniforms(
        {
          rescale: f(a, 'rescale_grad'),
          lr: f(a, 'lr'),
          lamda1: f(a, 'lamda1'),
          beta: f(a, 'beta'),
          wd: f(a, 'wd'),
        },
        a,
      ),
  },
  {
    op: 'signsgd_update',
    spec: SIGNSGD,
    inputs: [0, 1],
    flags: () => 0,
    uniforms: (a, r) => ({ '1-lr*wd': r(1 - r(f(a, 'lr') * f(a, 'wd'))), lr: f(a, 'lr') }),
  },
  {
    op: 'signum_update',
    spec: SIGNUM,
    inputs: [0, 1, 2],
    flags: (a) => clipFlag(a),
    uniforms: (a, r) => {
      const m = f(a, 'momentum');
      const om = r(1 - m);
      return clipUniforms(
        {
          momentum: m,
          '1-momentum': om,
          '(1-momentum)*wd': r(om * f(a, 'wd')),
          rescale: f(a, 'rescale_grad'),
          '(1-momentum)*rescale': r(om * f(a, 'rescale_grad')),
          '1-lr*wd_lh': r(1 - r(f(a, 'lr') * f(a, 'wd_lh'))),
          lr: f(a, 'lr'),
        },
        a,
      );
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
      return clipUniforms(
        {
          rescale: f(a, 'rescale_grad'),
          beta1: b1,
          '1-beta1': r(1 - b1),
          beta2: b2,
          '1-beta2': r(1 - b2),
          '1-beta1^t': r(1 - r(b1 ** t)),
          '1-beta2^t': r(1 - r(b2 ** t)),
          epsilon: f(a, 'epsilon'),
          wd: f(a, 'wd'),
        },
        a,
      );
    },
  },
  {
    op: 'lamb_update_phase2',
    spec: LAMB2,
    inputs: [0, 1],
    flags: () => 0,
    uniforms: (a, r, first) => {
      // MXNet LambUpdatePhaseTwoKernel, in DType: the trust ratio r1/r2 with r1 clamped.
      let r1 = r(first(2));
      const r2 = r(first(3));
      const lb = f(a, 'lower_bound');
      const ub = f(a, 'upper_bound');
      if (lb >= 0) r1 = Math.max(r1, lb);
      if (ub >= 0) r1 = Math.min(r1, ub);
      const lr = f(a, 'lr');
      return { lr: r1 === 0 || r2 === 0 ? lr : r(r(lr * r1) / r2) };
    },
  },
];

function kindOf(op: string, mp: boolean, w: TBlob<number>): Kind {
  if (mp || w.dtype === 'float32') return 'f32';
  if (w.dtype === 'float64') return 'f64';
  throw new MXNetError(`${op} computes in float32 or float64 on cpu(0), got a ${w.dtype} weight`, {
    op,
    dtypes: [w.dtype],
    device: 'cpu(0)',
    hint: "cast the weight, gradient and states with astype('float32')",
  });
}

function installSingle(registry: OpRegistry, rt: CpuWasmRuntime, def: SingleDef): void {
  const fused = new FusedUpdate(rt, def.spec);
  const names = def.spec.uniforms;
  registry.registerKernel(def.op, 'cpu-wasm', {
    dtypes: def.mp ? DTYPES_MP : DTYPES_REAL,
    compute(attrs, _ctx, insAny, req, outs) {
      const ins = insAny as readonly TBlob<number>[];
      const out = outs[0] as TBlob<number>;
      const w = ins[0] as TBlob<number>;
      const kind = kindOf(def.op, def.mp === true, w);
      const r = kind === 'f32' ? F : ident;
      const u = def.uniforms(attrs, r, (i) => Number((rt.view(ins[i] as TBlob<number>) as Float32Array)[0]));
      const mode = reqOf(req[0]);
      if (u === null) {
        // Skipped update: the states stay; the output still gets the weight.
        if (mode === Req.write && rt.address(out) !== rt.address(w)) rt.copyBlob(out, w);
        return;
      }
      const slots = def.inputs.map((i) => ins[i] as TBlob<number>);
      slots.push(out);
      fused.run(kind, def.flags(attrs), mode, slots, uniformList(def.op, names, u));
    },
  });
}

function uniformList(op: string, names: readonly string[], u: Uniforms): number[] {
  return names.map((n) => {
    const v = u[n];
    if (v === undefined) throw new Error(`${op}: no value for uniform '${n}'`);
    return v;
  });
}

/** The multi_* ops: per weight i the momentum body with lrs[i], wds[i], inputs in groups of `stride`. */
function installMulti(
  registry: OpRegistry,
  rt: CpuWasmRuntime,
  op: string,
  hasMom: boolean,
  mp: boolean,
): void {
  const spec = momSpec(hasMom, mp);
  const fused = new FusedUpdate(rt, spec);
  const stride = 2 + (hasMom ? 1 : 0) + (mp ? 1 : 0);
  // Group positions in slot order (the output follows): see momSpec.
  const group = mp ? (hasMom ? [1, 2, 3] : [1, 2]) : hasMom ? [0, 1, 2] : [0, 1];
  registry.registerKernel(op, 'cpu-wasm', {
    dtypes: mp ? DTYPES_MP : DTYPES_REAL,
    compute(attrs, _ctx, insAny, req, outs) {
      const ins = insAny as readonly TBlob<number>[];
      const lrs = attrs.lrs as readonly number[];
      const wds = attrs.wds as readonly number[];
      const flags = clipFlag(attrs);
      const count = attrs.num_weights as number;
      for (let i = 0; i < count; i++) {
        const base = i * stride;
        const w = ins[base] as TBlob<number>;
        const kind = kindOf(op, mp, w);
        const r = kind === 'f32' ? F : ident;
        const u = sgdUniforms(attrs, r, F(lrs[i] as number), F(wds[i] as number));
        const slots = group.map((j) => ins[base + j] as TBlob<number>);
        slots.push(outs[i] as TBlob<number>);
        fused.run(kind, flags, reqOf(req[i]), slots, uniformList(op, spec.uniforms, u));
      }
    },
  });
}

export function installOptimizer(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const def of SINGLE) installSingle(registry, rt, def);
  installMulti(registry, rt, 'multi_sgd_update', false, false);
  installMulti(registry, rt, 'multi_sgd_mom_update', true, false);
  installMulti(registry, rt, 'multi_mp_sgd_update', false, true);
  installMulti(registry, rt, 'multi_mp_sgd_mom_update', true, true);
  installSumSq(registry, rt);
}
