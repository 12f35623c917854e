/**
 * The loss output layers on webgpu: SoftmaxOutput (forward through the softmax row kernel over
 * MXNet's views; backward one invocation per element: (softmax - one_hot(label)) with label
 * smoothing, ignore_label and normalization, 'valid' counting the kept labels in a one-workgroup
 * pass first), the regression outputs (map kernel: identity/sigmoid forward, (out - label) ·
 * grad_scale / num_output or its sign backward) and smooth_l1. Label gradients are zero.
 */
import { MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, type SoftmaxOutputAttrs, softmaxOutputGeometry } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { grid1d } from '../../../runtime.js';
import { main1d, paramsDecl } from '../../../wgsl.js';
import {
  bind,
  f32bits,
  modeOf,
  put,
  requireFloat32,
  rowCombine,
  rowEntry,
  rowLoop,
  rowPlan,
  zeroFill,
} from './gpu-util.js';
import { runMap } from './map.js';
import { softmaxRows } from './softmax.js';

const WG = 256;

/** tmp[0] = max(1, #labels - #labels equal to ignore) (normalization 'valid'). */
function countValid(gpu: GpuHost, label: GpuBlob, tmp: GPUBuffer, ignore: number): void {
  const plan = rowPlan(1 << 20);
  const b = bind([label]);
  const entry = gpu.rt.pipeline(
    `layers-count-valid:${b.key}`,
    () => `${paramsDecl(4)}${b.decls}@group(0) @binding(2) var<storage, read_write> cnt: array<f32>;
${rowEntry(plan, '1u', 1)}  var acc = 0.0;
  ${rowLoop(plan, 'e', 'pu(1u)')} {
    acc += select(0.0, 1.0, i32(trunc(${b.names[0]}[pu(0u) + e])) == pi(2u));
  }
${rowCombine(plan, [['acc', 'ignored']], '+')}  if (lid == 0u) { cnt[0] = max(1.0, f32(pu(1u)) - ignored); }
}
`,
    4,
  );
  gpu.rt.dispatch(entry, [...b.buffers, tmp], [b.offsets[0] as number, label.size, ignore >>> 0], [1]);
}

function softmaxOutputBackward(
  gpu: GpuHost,
  p: SoftmaxOutputAttrs,
  ins: readonly GpuBlob[],
  req: readonly number[],
  outs: readonly GpuBlob[],
): void {
  const op = '_backward_SoftmaxOutput';
  const [og, label, y] = ins as [GpuBlob, GpuBlob, GpuBlob];
  const dx = outs[0] as GpuBlob;
  requireFloat32(op, [og, label, y, dx]);
  if (modeOf(req[1] as never, outs[1]) === 'w') zeroFill(gpu.rt, outs[1] as GpuBlob);
  const mode = modeOf(req[0] as never, dx);
  if (mode === 'n' || dx.size === 0) return;
  const prob = label.shape.length === y.shape.length && label.shape.every((d, i) => d === y.shape[i]);
  const { outer: n, m: k, inner: rest } = softmaxOutputGeometry(p, y.shape);
  if (!prob && label.size < n * rest) {
    throw new MXNetError(`label has ${label.size} elements for ${n * rest} rows of ${k} classes`, {
      op,
      params: p,
      shapes: ins.map((b) => b.shape),
      device: 'gpu(0)',
      hint: 'the label holds one class index per row',
    });
  }
  const ignore = Math.trunc(p.ignore_label);
  const valid = !prob && p.normalization === 'valid';
  let f = 1;
  if (!prob && !valid) {
    const count = p.normalization === 'batch' ? (p.multi_output ? n : label.size) : 1;
    f = p.grad_scale / ((p.multi_output ? rest : 1) * count);
  }
  const tmp = valid ? gpu.rt.createBuffer(4) : null;
  if (tmp !== null) countValid(gpu, label, tmp, ignore);
  const b = bind([og, label, y, dx]);
  const [G, L, Y, D] = b.names as [string, string, string, string];
  const flags = `${prob ? 'p' : 'c'}${valid ? 'v' : ''}${p.out_grad ? 'g' : ''}`;
  const slot = b.buffers.length + 1;
  const grad = prob
    ? `(${Y}[pu(3u) + i] - ${L}[pu(2u) + i]) * pf(12u)`
    : `select(${Y}[pu(3u) + i] - select(select(0.0, 1.0, c == cls), select(pf(10u), 1.0 - pf(9u), c == cls), pf(9u) > 0.0), 0.0, pu(8u) != 0u && cls == pi(7u)) * ${valid ? 'pf(12u) / cnt[0]' : 'pf(11u)'}`;
  const entry = gpu.rt.pipeline(
    `layers-softmax-output-bwd:${flags}:${mode}:${b.key}`,
    () =>
      `${paramsDecl(16)}${b.decls}${valid ? `@group(0) @binding(${slot}) var<storage, read_write> cnt: array<f32>;\n` : ''}${main1d(
        WG,
        'pu(0u)',
        `  let K = pu(5u); let rest = pu(6u);
  let c = i32((i / rest) % K);
  let cls = i32(trunc(${L}[pu(2u) + (i / (K * rest)) * rest + i % rest]));
  var v = ${grad};
  ${p.out_grad ? `v = v * ${G}[pu(1u) + i];` : `_ = ${G}[pu(1u)];`}
  ${put(D, 'pu(4u) + i', 'v', mode)}`,
      )}`,
    16,
  );
  const smooth = k > 1 ? p.smooth_alpha / (k - 1) : 0;
  const w = [
    dx.size,
    b.offsets[0] as number,
    b.offsets[1] as number,
    b.offsets[2] as number,
    b.offsets[3] as number,
    Math.max(1, k),
    Math.max(1, rest),
    ignore | 0,
    p.use_ignore ? 1 : 0,
    f32bits(p.smooth_alpha),
    f32bits(smooth),
    f32bits(f),
    f32bits(p.grad_scale),
  ];
  gpu.rt.dispatch(
    entry,
    tmp === null ? b.buffers : [...b.buffers, tmp],
    w.map((x) => x >>> 0),
    grid1d(dx.size, WG),
  );
  if (tmp !== null) gpu.rt.release(tmp);
}

type RegKind = 'linear' | 'logistic' | 'mae';
const REG_FORWARD: Readonly<Record<RegKind, string>> = {
  linear: 'a0',
  logistic: 'mx_sigmoid(a0)',
  mae: 'a0',
};
/** Over a0 = out, a1 = label, p0 = grad_scale / num_output. MAE: 1 if out - label > 0 else -1. */
const REG_BACKWARD: Readonly<Record<RegKind, string>> = {
  linear: '(a0 - a1) * p0',
  logistic: '(a0 - a1) * p0',
  mae: 'select(-p0, p0, a0 - a1 > 0.0)',
};

export function installOutputs(registry: OpRegistry, gpu: GpuHost): void {
  const F32 = ['float32'] as const;
  registry.registerKernel(
    'SoftmaxOutput',
    'webgpu',
    gpuKernel<SoftmaxOutputAttrs>(
      gpu,
      'SoftmaxOutput',
      (p, ins, req, outs) => {
        const x = ins[0] as GpuBlob;
        const out = outs[0] as GpuBlob;
        requireFloat32('SoftmaxOutput', [x, out]);
        softmaxRows(gpu, {
          op: 'SoftmaxOutput',
          backward: false,
          log: false,
          a: x,
          out,
          mode: modeOf(req[0], out),
          geo: softmaxOutputGeometry(p, x.shape),
          temperature: 1,
        });
      },
      F32,
    ),
  );
  registry.registerKernel(
    '_backward_SoftmaxOutput',
    'webgpu',
    gpuKernel<SoftmaxOutputAttrs>(
      gpu,
      '_backward_SoftmaxOutput',
      (p, ins, req, outs) => softmaxOutputBackward(gpu, p, ins, req, outs),
      F32,
    ),
  );
  const kinds: readonly (readonly [string, string, RegKind])[] = [
    ['LinearRegressionOutput', '_backward_linear_reg_out', 'linear'],
    ['LogisticRegressionOutput', '_backward_logistic_reg_out', 'logistic'],
    ['MAERegressionOutput', '_backward_mae_reg_out', 'mae'],
  ];
  for (const [fwd, back, kind] of kinds) {
    registry.registerKernel(
      fwd,
      'webgpu',
      gpuKernel(
        gpu,
        fwd,
        (_p, ins, req, outs) => {
          requireFloat32(fwd, [...ins, ...outs]);
          const out = outs[0] as GpuBlob;
          runMap(gpu, {
            op: fwd,
            name: `reg-${kind}`,
            expr: REG_FORWARD[kind],
            inputs: [ins[0] as GpuBlob],
            out,
            mode: modeOf(req[0], out),
          });
        },
        F32,
      ),
    );
    registry.registerKernel(
      back,
      'webgpu',
      gpuKernel<{ grad_scale: number } & Attrs>(
        gpu,
        back,
        (p, ins, req, outs) => {
          const [label, y] = ins as [GpuBlob, GpuBlob];
          const dx = outs[0] as GpuBlob;
          requireFloat32(back, [label, y, dx]);
          if (modeOf(req[1], outs[1]) === 'w') zeroFill(gpu.rt, outs[1] as GpuBlob);
          const lead = label.shape[0] ?? 1;
          const numOutput = lead === 0 ? 1 : label.size / lead;
          runMap(gpu, {
            op: back,
            name: `reg-bwd-${kind}`,
            expr: REG_BACKWARD[kind],
            inputs: [y, label],
            params: [Math.fround(p.grad_scale / numOutput)],
            out: dx,
            mode: modeOf(req[0], dx),
          });
        },
        F32,
      ),
    );
  }
  registry.registerKernel(
    'smooth_l1',
    'webgpu',
    gpuKernel<{ scalar: number } & Attrs>(
      gpu,
      'smooth_l1',
      (p, ins, req, outs) => {
        requireFloat32('smooth_l1', [...ins, ...outs]);
        const out = outs[0] as GpuBlob;
        const s = Math.fround(p.scalar);
        const bsq = Math.fround(s * s);
        runMap(gpu, {
          op: 'smooth_l1',
          name: 'smooth-l1',
          // p0 = σ², p1 = 1/σ²
          expr: 'select(select(0.5 * a0 * a0 * p0, -a0 - 0.5 * p1, a0 < -p1), a0 - 0.5 * p1, a0 > p1)',
          inputs: [ins[0] as GpuBlob],
          params: [bsq, Math.fround(1 / bsq)],
          out,
          mode: modeOf(req[0], out),
        });
      },
      F32,
    ),
  );
}
