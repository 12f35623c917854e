/**
 * Activation, LeakyReLU and their backward ops on cuda: one C expression per act_type run by the
 * shared map kernel (map.ts), with cpu-wasm's formulas (log_sigmoid as min(x,0) - log1p(e^-|x|),
 * SELU's true derivative from the output, GELU gradients from x with sech² = 4/(eᵘ+e⁻ᵘ)²).
 *
 * prelu reads gamma per channel ('chan' view over MXNet's expand_shape: data axes 0 and/or 1); its
 * gamma gradient Σ select(x > 0, 0, g·x) is one block per gamma element reducing over that
 * channel's (outer, inner) elements. rrelu in training draws its slopes into the hidden mask with
 * the device Philox generator (random.ts) and uses (lower + upper) / 2 otherwise (also written to
 * the mask so backward works in both modes).
 */
import { MXNetError, type Shape } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { BLOCK, loadC } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaCompute, type CudaHost, cudaKernel } from '../../../kernel.js';
import { runMap } from './map.js';
import { fillRandom } from './random.js';
import { accOf, cptr, FLOATS, modeOf, putC, requireFloat, SourceCache } from './util.js';

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
  relu: 'a0 > (T)0 ? a0 : (T)0',
  sigmoid: 'mx_sigmoid(a0)',
  tanh: 'mx_tanh(a0)',
  softrelu: 'mx_softrelu(a0)',
  softsign: 'a0 / ((T)1 + mx_abs(a0))',
  log_sigmoid: '(a0 < (T)0 ? a0 : (T)0) - mx_log1p(mx_exp(-mx_abs(a0)))',
  mish: 'a0 * mx_tanh(mx_softrelu(a0))',
};

/** Backward over a0 = ograd, a1 = output, a2 = data. */
const ACT_BACKWARD: Readonly<Record<ActType, string>> = {
  relu: 'a1 > (T)0 ? a0 : (T)0',
  sigmoid: 'a0 * (a1 * ((T)1 - a1))',
  tanh: 'a0 * ((T)1 - a1 * a1)',
  softrelu: 'a0 * -mx_expm1(-a1)',
  softsign: 'a0 / (((T)1 + mx_abs(a2)) * ((T)1 + mx_abs(a2)))',
  log_sigmoid: 'a0 * -mx_expm1(a1)',
  mish: 'mx_mish_grad(a0, a2)',
};

const SELU_L = '(T)1.0507009873554805';
const SELU_A = '(T)1.6732632423543772';

/** LeakyReLU forward over a0 = data, p0 = slope. */
const LEAKY_FORWARD: Readonly<Record<Exclude<LeakyType, 'prelu' | 'rrelu'>, string>> = {
  leaky: 'mx_xelu(a0, p0)',
  elu: 'a0 > (T)0 ? a0 : p0 * mx_expm1(a0)',
  selu: `${SELU_L} * (a0 > (T)0 ? a0 : ${SELU_A} * mx_expm1(a0))`,
  gelu: 'mx_gelu_erf(a0)',
  gelu_erf: 'mx_gelu_erf(a0)',
  gelu_tanh: 'mx_gelu_tanh(a0)',
};

/** LeakyReLU backward over a0 = ograd, a1 = data, a2 = output, p0 = slope. */
const LEAKY_BACKWARD: Readonly<Record<Exclude<LeakyType, 'prelu' | 'rrelu'>, string>> = {
  leaky: 'a2 > (T)0 ? a0 : a0 * p0',
  elu: 'a2 > (T)0 ? a0 : a0 * (p0 + a2)',
  selu: `a2 > (T)0 ? a0 * ${SELU_L} : a0 * (a2 + ${SELU_L} * ${SELU_A})`,
  gelu: 'mx_gelu_erf_grad(a0, a1)',
  gelu_erf: 'mx_gelu_erf_grad(a0, a1)',
  gelu_tanh: 'mx_gelu_tanh_grad(a0, a1)',
};

/**
 * prelu's gamma against data as (outer, C, inner): gamma element c covers data[o, c, k]. gamma's
 * dims line up with data axes 0 and 1 only (MXNet expand_shape, validated by shape inference).
 */
export function preluGeometry(gamma: Shape, data: Shape): { outer: number; C: number; inner: number } {
  const full = new Array<number>(data.length).fill(1);
  let s = gamma.length - 1;
  for (let i = data.length - 1; i >= 0 && s >= 0; i--) {
    const g = gamma[s] as number;
    if (i <= 1 && (data[i] === g || g === 1)) {
      full[i] = g;
      s--;
    }
  }
  if (s !== -1) {
    throw new MXNetError(
      `Cannot broadcast gamma to data. gamma: (${gamma.join(', ')}), data: (${data.join(', ')})`,
      {
        op: 'LeakyReLU',
        shapes: [data, gamma],
        device: 'gpu',
        hint: 'give gamma one value per channel (data axis 1) or a single value',
      },
    );
  }
  let size = 1;
  for (const d of data) size *= d;
  const k0 = (full[0] ?? 1) !== 1;
  const k1 = data.length > 1 && (full[1] ?? 1) !== 1;
  const d0 = (data[0] ?? 1) as number;
  const d1 = (data[1] ?? 1) as number;
  if (size === 0) return { outer: 0, C: Math.max(1, prodOf(gamma)), inner: 1 };
  if (k0 && k1) return { outer: 1, C: d0 * d1, inner: size / (d0 * d1) };
  if (k0) return { outer: 1, C: d0, inner: size / d0 };
  if (k1) return { outer: d0, C: d1, inner: size / (d0 * d1) };
  return { outer: 1, C: 1, inner: size };
}

function prodOf(s: Shape): number {
  let n = 1;
  for (const d of s) n *= d;
  return n;
}

const dgCache = new SourceCache('layers_prelu_dg');

/** dgamma[c] (=|+=) Σ_{o,k} select(x > 0, 0, g·x) over channel c's elements: one block per c. */
function preluGammaGrad(
  host: CudaHost,
  g: CudaBlob,
  x: CudaBlob,
  dg: CudaBlob,
  req: OpReqType | undefined,
): void {
  const m = modeOf(req, dg);
  if (m === 'n') return;
  const op = '_backward_LeakyReLU';
  const { outer, C, inner } = preluGeometry(dg.shape, x.shape);
  const acc = accOf([g.dtype, x.dtype, dg.dtype]);
  const key = `${g.dtype},${x.dtype},${dg.dtype}|${m}`;
  const src = dgCache.get(
    key,
    (
      entry,
    ) => `extern "C" __global__ void ${entry}(${cptr(g.dtype, 'g')}, ${cptr(x.dtype, 'x')}, ${cptr(dg.dtype, 'dg', false)}, long long C, long long outer, long long inner) {
  __shared__ ${acc} sh[${BLOCK}];
  for (long long c = blockIdx.x; c < C; c += gridDim.x) {
    ${acc} s = 0;
    long long n = outer * inner;
    for (long long e = threadIdx.x; e < n; e += blockDim.x) {
      long long idx = ((e / inner) * C + c) * inner + e % inner;
      ${acc} xv = (${acc})(${loadC('x', x.dtype, 'idx')});
      if (!(xv > (${acc})0)) s += (${acc})(${loadC('g', g.dtype, 'idx')}) * xv;
    }
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int t = blockDim.x / 2; t > 0; t >>= 1) {
      if (threadIdx.x < t) sh[threadIdx.x] += sh[threadIdx.x + t];
      __syncthreads();
    }
    if (threadIdx.x == 0) { ${putC('dg', dg.dtype, 'c', 'sh[0]', m)} }
    __syncthreads();
  }
}
`,
  );
  host.rt.launch(
    src,
    [Math.min(C, 65535)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(g, op) },
      { t: 'ptr', v: addr(x, op) },
      { t: 'ptr', v: addr(dg, op) },
      { t: 'i64', v: C },
      { t: 'i64', v: outer },
      { t: 'i64', v: inner },
    ],
  );
}

function rreluSlope(p: LeakyAttrs): number {
  return Math.fround((Math.fround(p.lower_bound) + Math.fround(p.upper_bound)) / 2);
}

export function installActivations(registry: OpRegistry, host: CudaHost): void {
  const reg = (name: string, fn: CudaCompute<LeakyAttrs>) => {
    if (registry.has(name))
      registry.registerKernel(name, CUDA, cudaKernel<LeakyAttrs>(host, name, fn, FLOATS));
  };
  reg('Activation', (p, ins, req, outs) => {
    requireFloat('Activation', [...ins, ...outs]);
    const out = outs[0] as CudaBlob;
    const t = (p as unknown as ActAttrs).act_type;
    runMap(host, {
      op: 'Activation',
      expr: ACT_FORWARD[t],
      inputs: [ins[0] as CudaBlob],
      out,
      mode: modeOf(req[0], out),
    });
  });
  reg('_backward_Activation', (p, ins, req, outs) => {
    requireFloat('_backward_Activation', [...ins, ...outs]);
    const out = outs[0] as CudaBlob;
    const t = (p as unknown as ActAttrs).act_type;
    runMap(host, {
      op: '_backward_Activation',
      expr: ACT_BACKWARD[t],
      inputs: ins,
      out,
      mode: modeOf(req[0], out),
    });
  });
  reg('LeakyReLU', (p, ins, req, outs, ctx) => {
    const op = 'LeakyReLU';
    requireFloat(op, [...ins, ...outs]);
    const data = ins[0] as CudaBlob;
    const out = outs[0] as CudaBlob;
    const mode = modeOf(req[0], out);
    if (p.act_type === 'prelu') {
      const gamma = ins[1] as CudaBlob;
      const chan = preluGeometry(gamma.shape, data.shape);
      runMap(host, {
        op,
        expr: 'mx_xelu(a0, a1)',
        inputs: [data, gamma],
        views: ['same', 'chan'],
        chan,
        out,
        mode,
      });
      return;
    }
    if (p.act_type === 'rrelu') {
      const mask = outs[1] as CudaBlob;
      if (mask.size === 0) return;
      if (ctx.isTrain) {
        const lo = p.lower_bound;
        fillRandom(host, op, ctx, mask, 'uniform', lo, p.upper_bound - lo);
        runMap(host, { op, expr: 'mx_xelu(a0, a1)', inputs: [data, mask], out, mode });
      } else {
        const s = rreluSlope(p);
        // The mask is overwritten with the slope (as cpu-wasm's fill), whatever its req beyond null.
        if (modeOf(req[1], mask) !== 'n')
          runMap(host, { op, expr: 'p0', inputs: [], params: [s], out: mask, mode: 'w' });
        runMap(host, { op, expr: LEAKY_FORWARD.leaky, inputs: [data], params: [s], out, mode });
      }
      return;
    }
    runMap(host, { op, expr: LEAKY_FORWARD[p.act_type], inputs: [data], params: [p.slope], out, mode });
  });
  reg('_backward_LeakyReLU', (p, ins, req, outs) => {
    const op = '_backward_LeakyReLU';
    requireFloat(op, [...ins, ...outs]);
    const g = ins[0] as CudaBlob;
    const data = ins[1] as CudaBlob;
    const dx = outs[0] as CudaBlob;
    const mode = modeOf(req[0], dx);
    if (p.act_type === 'prelu') {
      const gamma = ins[2] as CudaBlob;
      const chan = preluGeometry(gamma.shape, data.shape);
      const expr = 'a1 > (T)0 ? a0 : a0 * a2';
      runMap(host, {
        op,
        expr,
        inputs: [g, data, gamma],
        views: ['same', 'same', 'chan'],
        chan,
        out: dx,
        mode,
      });
      if (data.size > 0) preluGammaGrad(host, g, data, outs[1] as CudaBlob, req[1]);
      else if (modeOf(req[1], outs[1]) === 'w') {
        runMap(host, { op, expr: '(T)0', inputs: [], out: outs[1] as CudaBlob, mode: 'w' });
      }
      return;
    }
    if (p.act_type === 'rrelu') {
      const expr = 'a1 > (T)0 ? a0 : a0 * a2';
      runMap(host, { op, expr, inputs: [g, ins[2] as CudaBlob, ins[3] as CudaBlob], out: dx, mode });
      return;
    }
    const inputs = [g, data, ins[2] as CudaBlob];
    runMap(host, { op, expr: LEAKY_BACKWARD[p.act_type], inputs, params: [p.slope], out: dx, mode });
  });
}
