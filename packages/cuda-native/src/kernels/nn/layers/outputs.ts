/**
 * The loss output layers on cuda: SoftmaxOutput (forward through the softmax row kernel over
 * MXNet's views; backward one thread per element: (softmax - one_hot(label)) with label smoothing,
 * ignore_label and normalization, in double as cpu-wasm computes it, 'valid' counting the kept
 * labels in a one-block pass into scratch first) and the regression outputs (map kernel:
 * identity/sigmoid forward, (out - label) · grad_scale / num_output or its sign backward). Label
 * gradients are zero.
 */
import { MXNetError } from '@mx/base';
import {
  type Attrs,
  type OpRegistry,
  type OpReqType,
  type SoftmaxOutputAttrs,
  softmaxOutputGeometry,
} from '@mx/ops';
import { BLOCK, blocksFor, loadC } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaCompute, type CudaHost, cudaKernel } from '../../../kernel.js';
import { runMap } from './map.js';
import { softmaxRows } from './softmax.js';
import { cptr, FLOATS, modeOf, putC, requireFloat, SourceCache } from './util.js';

const cache = new SourceCache('layers_smout');

/** *cnt = max(1, #labels - #labels equal to ignore) as double (normalization 'valid'). */
function countValid(host: CudaHost, op: string, label: CudaBlob, cnt: number, ignore: number): void {
  const src = cache.get(
    `count|${label.dtype}`,
    (
      entry,
    ) => `extern "C" __global__ void ${entry}(${cptr(label.dtype, 'l')}, double* cnt, long long n, long long ignore) {
  __shared__ double sh[${BLOCK}];
  double s = 0;
  for (long long e = threadIdx.x; e < n; e += blockDim.x) {
    double v = (double)(${loadC('l', label.dtype, 'e')});
    long long c = v != v ? 0LL : (long long)v;
    if (c == ignore) s += 1.0;
  }
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int t = blockDim.x / 2; t > 0; t >>= 1) {
    if (threadIdx.x < t) sh[threadIdx.x] += sh[threadIdx.x + t];
    __syncthreads();
  }
  if (threadIdx.x == 0) { double k = (double)n - sh[0]; cnt[0] = k < 1.0 ? 1.0 : k; }
}
`,
  );
  host.rt.launch(
    src,
    [1],
    [BLOCK],
    [
      { t: 'ptr', v: addr(label, op) },
      { t: 'ptr', v: cnt },
      { t: 'i64', v: label.size },
      { t: 'i64', v: ignore },
    ],
  );
}

function softmaxOutputBackward(
  host: CudaHost,
  p: SoftmaxOutputAttrs,
  ins: readonly CudaBlob[],
  req: readonly OpReqType[],
  outs: readonly CudaBlob[],
): void {
  const op = '_backward_SoftmaxOutput';
  const [og, label, y] = ins as [CudaBlob, CudaBlob, CudaBlob];
  const dx = outs[0] as CudaBlob;
  requireFloat(op, [og, label, y, dx]);
  const dl = outs[1];
  if (dl !== undefined && modeOf(req[1], dl) === 'w')
    runMap(host, { op, expr: '(T)0', inputs: [], out: dl, mode: 'w' });
  const mode = modeOf(req[0], dx);
  if (mode === 'n') return;
  const prob = label.shape.length === y.shape.length && label.shape.every((d, i) => d === y.shape[i]);
  const { outer: n, m: k, inner: rest } = softmaxOutputGeometry(p, y.shape);
  if (!prob && label.size < n * rest) {
    throw new MXNetError(`label has ${label.size} elements for ${n * rest} rows of ${k} classes`, {
      op,
      params: p,
      shapes: ins.map((b) => b.shape),
      device: 'gpu',
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
  if (dx.dtype === 'float32') f = Math.fround(f);
  const cnt = valid ? host.rt.temp(8) : 0;
  if (valid) countValid(host, op, label, cnt, ignore);
  const rdL = (i: string) => `(double)(${loadC('l', label.dtype, i)})`;
  const rdY = `(double)(${loadC('y', y.dtype, 'i')})`;
  const body = prob
    ? `double v = (${rdY} - ${rdL('i')}) * gs;`
    : `long long c = (i / rest) % K;
    double lv = ${rdL('(i / (K * rest)) * rest + i % rest')};
    long long cls = lv != lv ? 0LL : (long long)lv;
    double v;
    if (use_ignore && cls == ignore) v = 0.0;
    else if (alpha > 0.0) v = ${rdY} - (c == cls ? 1.0 - alpha : smooth);
    else v = ${rdY} - (c == cls ? 1.0 : 0.0);
    v *= ${valid ? '(gs / cnt[0])' : 'f'};`;
  const key = `bwd|${prob ? 'p' : 'c'}${valid ? 'v' : ''}${p.out_grad ? 'g' : ''}|${og.dtype},${label.dtype},${y.dtype},${dx.dtype}|${mode}`;
  const src = cache.get(
    key,
    (
      entry,
    ) => `extern "C" __global__ void ${entry}(${cptr(og.dtype, 'g')}, ${cptr(label.dtype, 'l')}, ${cptr(y.dtype, 'y')}, ${cptr(dx.dtype, 'dx', false)}, const double* cnt, long long n, long long K, long long rest, long long ignore, int use_ignore, double alpha, double smooth, double f, double gs) {
  MX_GRID_LOOP(i, n) {
    ${body}
    ${p.out_grad ? `v *= (double)(${loadC('g', og.dtype, 'i')});` : ''}
    ${putC('dx', dx.dtype, 'i', 'v', mode)}
  }
}
`,
  );
  host.rt.launch(
    src,
    [blocksFor(dx.size)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(og, op) },
      { t: 'ptr', v: addr(label, op) },
      { t: 'ptr', v: addr(y, op) },
      { t: 'ptr', v: addr(dx, op) },
      { t: 'ptr', v: cnt },
      { t: 'i64', v: dx.size },
      { t: 'i64', v: Math.max(1, k) },
      { t: 'i64', v: Math.max(1, rest) },
      { t: 'i64', v: ignore },
      { t: 'i32', v: p.use_ignore ? 1 : 0 },
      { t: 'f64', v: p.smooth_alpha },
      { t: 'f64', v: k > 1 ? p.smooth_alpha / (k - 1) : 0 },
      { t: 'f64', v: f },
      { t: 'f64', v: p.grad_scale },
    ],
  );
}

type RegKind = 'linear' | 'logistic' | 'mae';
const REG_FORWARD: Readonly<Record<RegKind, string>> = {
  linear: 'a0',
  logistic: 'mx_sigmoid(a0)',
  mae: 'a0',
};
/** Over a0 = out, a1 = label, p0 = grad_scale / num_output. MAE: MXNet's minus_sign. */
const REG_BACKWARD: Readonly<Record<RegKind, string>> = {
  linear: '(a0 - a1) * p0',
  logistic: '(a0 - a1) * p0',
  mae: 'a0 - a1 > (T)0 ? p0 : -p0',
};

export function installOutputs(registry: OpRegistry, host: CudaHost): void {
  const reg = <A extends Attrs>(name: string, fn: CudaCompute<A>) => {
    if (registry.has(name)) registry.registerKernel(name, CUDA, cudaKernel<A>(host, name, fn, FLOATS));
  };
  reg<SoftmaxOutputAttrs>('SoftmaxOutput', (p, ins, req, outs) => {
    const x = ins[0] as CudaBlob;
    const out = outs[0] as CudaBlob;
    requireFloat('SoftmaxOutput', [x, out]);
    softmaxRows(host, {
      op: 'SoftmaxOutput',
      backward: false,
      log: false,
      a: x,
      out,
      mode: modeOf(req[0], out),
      geo: softmaxOutputGeometry(p, x.shape),
      temperature: 1,
    });
  });
  reg<SoftmaxOutputAttrs>('_backward_SoftmaxOutput', (p, ins, req, outs) =>
    softmaxOutputBackward(host, p, ins, req, outs),
  );
  const kinds: readonly (readonly [string, string, RegKind])[] = [
    ['LinearRegressionOutput', '_backward_linear_reg_out', 'linear'],
    ['LogisticRegressionOutput', '_backward_logistic_reg_out', 'logistic'],
    ['MAERegressionOutput', '_backward_mae_reg_out', 'mae'],
  ];
  for (const [fwd, back, kind] of kinds) {
    reg(fwd, (_p, ins, req, outs) => {
      requireFloat(fwd, [...ins, ...outs]);
      const out = outs[0] as CudaBlob;
      runMap(host, {
        op: fwd,
        expr: REG_FORWARD[kind],
        inputs: [ins[0] as CudaBlob],
        out,
        mode: modeOf(req[0], out),
      });
    });
    reg<{ grad_scale: number } & Attrs>(back, (p, ins, req, outs) => {
      const [label, y] = ins as [CudaBlob, CudaBlob];
      const dx = outs[0] as CudaBlob;
      requireFloat(back, [label, y, dx]);
      const dl = outs[1];
      if (dl !== undefined && modeOf(req[1], dl) === 'w')
        runMap(host, { op: back, expr: '(T)0', inputs: [], out: dl, mode: 'w' });
      const lead = label.shape[0] ?? 1;
      const numOutput = lead === 0 ? 1 : label.size / lead;
      const scale = p.grad_scale / numOutput;
      runMap(host, {
        op: back,
        expr: REG_BACKWARD[kind],
        inputs: [y, label],
        params: [dx.dtype === 'float64' ? scale : Math.fround(scale)],
        out: dx,
        mode: modeOf(req[0], dx),
      });
    });
  }
}
