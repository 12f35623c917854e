/**
 * The loss output layers on cpu-wasm: SoftmaxOutput (softmax forward through the softmax rows,
 * MXNet's SoftmaxGrad / SmoothSoftmaxGrad backward as a TypeScript loop over (rows, classes[,
 * positions]) — a loss layer is small next to the layers before it) and the regression outputs
 * (identity or sigmoid forward, (out - label) · grad_scale / num_output backward), both compiled
 * elementwise loops.
 */
import { MXNetError } from '@mx/base';
import {
  type Attrs,
  E,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SoftmaxOutputAttrs,
  softmaxOutputGeometry,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { withTarget } from '../../shape/kernel-util.js';
import { type SoftmaxRows, softmaxInto } from './softmax.js';
import { BACKEND, type Blob, checkFloat, type ExprKernels, FLOAT_DTYPES, reshaped } from './util.js';

function softmaxOutput(
  rt: CpuWasmRuntime,
  rows: SoftmaxRows,
  p: SoftmaxOutputAttrs,
  ins: readonly Blob[],
  req: OpReqType,
  out: Blob,
): void {
  const x = ins[0] as Blob;
  checkFloat('SoftmaxOutput', [x, out]);
  if (req === OpReq.null || out.size === 0) return;
  const g = softmaxOutputGeometry(p, x.shape);
  withTarget(rt, out, req, 'SoftmaxOutput', (tgt) => softmaxInto(rt, rows, x, tgt, g, 1, false));
}

function softmaxOutputBackward(
  rt: CpuWasmRuntime,
  p: SoftmaxOutputAttrs,
  ins: readonly Blob[],
  req: readonly OpReqType[],
  outs: readonly Blob[],
): void {
  const op = '_backward_SoftmaxOutput';
  const [og, label, y] = ins as [Blob, Blob, Blob];
  const dx = outs[0] as Blob;
  checkFloat(op, [og, label, y, dx]);
  const dl = outs[1] as Blob | undefined;
  if (dl !== undefined && (req[1] ?? OpReq.null) === OpReq.write && dl.size > 0) rt.zero(dl);
  const r = req[0] ?? OpReq.write;
  if (r === OpReq.null || dx.size === 0) return;
  const yv = rt.view(y) as Float32Array | Float64Array;
  const lv = rt.view(label) as Float32Array | Float64Array;
  const gv = rt.view(og) as Float32Array | Float64Array;
  const grad = new Float64Array(dx.size);
  const scale = p.grad_scale;
  const sameShape = label.shape.length === y.shape.length && label.shape.every((d, i) => d === y.shape[i]);
  if (sameShape) {
    // Probabilities as labels: (out - label) · grad_scale, no normalisation.
    for (let i = 0; i < grad.length; i++) grad[i] = ((yv[i] as number) - (lv[i] as number)) * scale;
  } else {
    const { outer: n, m: k, inner: rest } = softmaxOutputGeometry(p, y.shape);
    // MXNet reads the label as a flat vector: row o (position s) uses label[o·rest + s].
    if (label.size < n * rest) {
      throw new MXNetError(`label has ${label.size} elements for ${n * rest} rows of ${k} classes`, {
        op,
        params: p,
        shapes: ins.map((b) => b.shape),
        hint: 'the label holds one class index per row',
      });
    }
    const ignore = Math.trunc(p.ignore_label);
    const alpha = p.smooth_alpha;
    const smooth = k > 1 ? alpha / (k - 1) : 0;
    for (let o = 0; o < n; o++) {
      for (let s = 0; s < rest; s++) {
        const cls = Math.trunc(lv[o * rest + s] as number);
        const ignored = p.use_ignore && cls === ignore;
        for (let c = 0; c < k; c++) {
          const i = (o * k + c) * rest + s;
          if (ignored) grad[i] = 0;
          else if (alpha > 0) grad[i] = (yv[i] as number) - (c === cls ? 1 - alpha : smooth);
          else grad[i] = (yv[i] as number) - (c === cls ? 1 : 0);
        }
      }
    }
    let valid = label.size;
    if (p.normalization === 'batch') valid = p.multi_output ? n : label.size;
    else if (p.normalization === 'valid') {
      for (let i = 0; i < label.size; i++) if (Math.trunc(lv[i] as number) === ignore) valid--;
      valid = valid === 0 ? 1 : valid;
    } else valid = 1;
    const denom = (p.multi_output && p.normalization !== 'valid' ? rest : 1) * valid;
    const f = scale / denom;
    const fScale = dx.dtype === 'float32' ? Math.fround(f) : f;
    for (let i = 0; i < grad.length; i++) grad[i] = (grad[i] as number) * fScale;
  }
  if (p.out_grad) for (let i = 0; i < grad.length; i++) grad[i] = (grad[i] as number) * (gv[i] as number);
  const out = rt.view(dx) as Float32Array | Float64Array;
  if (r === OpReq.add)
    for (let i = 0; i < grad.length; i++) out[i] = (out[i] as number) + (grad[i] as number);
  else out.set(grad);
}

interface RegressionAttrs extends Attrs {
  readonly grad_scale: number;
}

type RegKind = 'linear' | 'logistic' | 'mae';

const REG_FORWARD: Readonly<Record<RegKind, ReturnType<typeof E.c>>> = {
  linear: E.x,
  logistic: E.div(1, E.add(1, E.exp(E.neg(E.x)))),
  mae: E.x,
};
const sc = E.param('scale');
/** Over (out 0, label 1). MAE: MXNet's minus_sign, 1 if out - label > 0 else -1. */
const REG_BACKWARD: Readonly<Record<RegKind, ReturnType<typeof E.c>>> = {
  linear: E.mul(E.sub(E.x, E.y), sc),
  logistic: E.mul(E.sub(E.x, E.y), sc),
  mae: E.select(E.gt(E.sub(E.x, E.y), 0), sc, E.neg(sc)),
};

function regression(ew: ExprKernels, kind: RegKind, ins: readonly Blob[], req: OpReqType, out: Blob): void {
  const x = ins[0] as Blob;
  checkFloat(`${kind} regression output`, [...ins, out]);
  ew.run(`_reg_${kind}`, REG_FORWARD[kind], {}, [x], req, out);
}

function regressionBackward(
  rt: CpuWasmRuntime,
  ew: ExprKernels,
  kind: RegKind,
  p: RegressionAttrs,
  ins: readonly Blob[],
  req: readonly OpReqType[],
  outs: readonly Blob[],
): void {
  const [label, y] = ins as [Blob, Blob];
  const dx = outs[0] as Blob;
  checkFloat(`_backward_${kind}_reg_out`, [label, y, dx]);
  const dl = outs[1] as Blob | undefined;
  if (dl !== undefined && (req[1] ?? OpReq.null) === OpReq.write && dl.size > 0) rt.zero(dl);
  const lead = label.shape[0] ?? 1;
  const numOutput = lead === 0 ? 1 : label.size / lead;
  const scale = p.grad_scale / numOutput;
  const s = dx.dtype === 'float32' ? Math.fround(scale) : scale;
  ew.run(
    `_reg_${kind}_grad`,
    REG_BACKWARD[kind],
    { scale: s },
    [y, reshaped(label, y.shape)],
    req[0] ?? OpReq.write,
    dx,
  );
}

export function installOutputs(
  registry: OpRegistry,
  rt: CpuWasmRuntime,
  ew: ExprKernels,
  rows: SoftmaxRows,
): void {
  registry.registerKernel<SoftmaxOutputAttrs>('SoftmaxOutput', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (p, _c, ins, req, outs) =>
      softmaxOutput(rt, rows, p, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
  });
  registry.registerKernel<SoftmaxOutputAttrs>('_backward_SoftmaxOutput', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (p, _c, ins, req, outs) =>
      softmaxOutputBackward(rt, p, ins as readonly Blob[], req, outs as readonly Blob[]),
  });
  const kinds: readonly (readonly [string, string, RegKind])[] = [
    ['LinearRegressionOutput', '_backward_linear_reg_out', 'linear'],
    ['LogisticRegressionOutput', '_backward_logistic_reg_out', 'logistic'],
    ['MAERegressionOutput', '_backward_mae_reg_out', 'mae'],
  ];
  for (const [fwd, back, kind] of kinds) {
    registry.registerKernel<RegressionAttrs>(fwd, BACKEND, {
      dtypes: FLOAT_DTYPES,
      compute: (_p, _c, ins, req, outs) =>
        regression(ew, kind, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
    });
    registry.registerKernel<RegressionAttrs>(back, BACKEND, {
      dtypes: FLOAT_DTYPES,
      compute: (p, _c, ins, req, outs) =>
        regressionBackward(rt, ew, kind, p, ins as readonly Blob[], req, outs as readonly Blob[]),
    });
  }
}
