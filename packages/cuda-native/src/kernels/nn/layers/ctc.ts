/**
 * CTCLoss and _backward_ctc_loss on cuda.
 *
 * The forward (alpha) and backward (beta) recursions are sequential over time, so CTCLoss runs one
 * block per sequence: its threads split the S = 2L+1 states of the blank-extended label (and the C
 * classes for the log-softmax and gradient rows) and step through time together, a barrier per
 * step (the step count is block-uniform, so every barrier is in uniform control flow). Everything
 * is in log space and double, as cpu-wasm computes it (log-softmax per step, logAdd = max +
 * log1p(exp(min - max)), real -inf for log 0). Per-block scratch (rt.temp): lse (T), alpha (T x S),
 * two beta rows, ext (S), the state occupancies of one step (S) and their per-class sums (C); the
 * class sums are added by one thread in state order, as cpu-wasm adds them, then each class's
 * gradient is softmax - occupancy. Sequences whose labels cannot fit (L + repeats > T_b) get loss
 * 0 and gradient 0 (warp-ctc). Invalid lengths or label values, where cpu-wasm throws after
 * reading the data on the host, give NaN loss and gradient here: the device cannot raise an error.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { CUDA_DTYPES, type KernelArg, loadC } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../../kernel.js';
import { runMap } from './map.js';
import { bcastPlan, cptr, indexReaderC, type Mode, modeOf, putC, requireFloat, SourceCache } from './util.js';

interface CTCAttrs extends Attrs {
  readonly use_data_lengths: boolean;
  readonly use_label_lengths: boolean;
  readonly blank_label: 'first' | 'last';
}

const WG = 128;
const cache = new SourceCache('layers_ctc');

interface Spec {
  readonly xd: DTypeName;
  readonly labd: DTypeName;
  readonly dld?: DTypeName;
  readonly lld?: DTypeName;
  readonly lossd: DTypeName;
  readonly gradd: DTypeName;
  readonly ml: Mode;
  readonly mg: Mode;
}

function source(c: Spec, entry: string): string {
  const X = (i: string) => `((double)(${loadC('x', c.xd, i)}))`;
  const readers =
    indexReaderC('mx_rdlab', c.labd) +
    (c.dld ? indexReaderC('mx_rddl', c.dld) : '') +
    (c.lld ? indexReaderC('mx_rdll', c.lld) : '');
  const lenCode = c.lld
    ? 'long long q = mx_rdll(ll, b); if (q < 0 || q > Lw) status = 2; L = q < 0 ? 0 : (q > Lw ? Lw : q);'
    : 'for (long long j = 0; j < Lw; j++) { if (mx_rdlab(lab, b * Lw + j) == pad) { L = j; break; } }';
  return `${readers}static __device__ __forceinline__ double mx_logadd(double a, double b) {
  const double ninf = -__longlong_as_double(0x7ff0000000000000LL);
  if (a == ninf) return b;
  if (b == ninf) return a;
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}
extern "C" __global__ void ${entry}(${cptr(c.xd, 'x')}, ${cptr(c.labd, 'lab')}, ${cptr(c.dld ?? 'int32', 'dl')}, ${cptr(c.lld ?? 'int32', 'll')}, ${cptr(c.lossd, 'loss', false)}, ${cptr(c.gradd, 'grad', false)}, double* sc, long long T, long long N, long long C, long long Lw, long long S, long long region, long long blank, long long pad) {
  const double MX_INF = __longlong_as_double(0x7ff0000000000000LL);
  const double MX_NAN = __longlong_as_double(0x7ff8000000000000LL);
  __shared__ long long sTb, sL;
  __shared__ int sStatus;
  __shared__ double sLogZ;
  const long long th = threadIdx.x, nt = blockDim.x;
  double* LSE = sc + (long long)blockIdx.x * region;
  double* AL = LSE + T;
  double* BE = AL + T * S;
  double* EXT = BE + 2 * S;
  double* OCC = EXT + S;
  double* CLS = OCC + S;
  for (long long b = blockIdx.x; b < N; b += gridDim.x) {
    if (th == 0) {
      int status = 0;
      long long tb = T;
      ${c.dld ? 'long long d = mx_rddl(dl, b); if (d < 0 || d > T) status = 2; tb = d < 0 ? 0 : (d > T ? T : d);' : ''}
      long long L = Lw;
      ${lenCode}
      long long rep = 0;
      for (long long j = 0; j < L; j++) {
        long long v = mx_rdlab(lab, b * Lw + j);
        if (v < 0 || v >= C) status = 2;
        if (j > 0 && v == mx_rdlab(lab, b * Lw + j - 1)) rep++;
      }
      if (status == 0 && (L + rep > tb || tb == 0)) status = 1;
      sTb = tb; sL = L; sStatus = status;
    }
    __syncthreads();
    const long long Tb = sTb, SL = 2 * sL + 1;
    const int status = sStatus;
    const bool ok = status == 0;
    if (ok) {
      for (long long s = th; s < SL; s += nt) EXT[s] = s % 2 == 0 ? (double)blank : (double)mx_rdlab(lab, b * Lw + (s - 1) / 2);
      for (long long t = th; t < Tb; t += nt) {
        long long r = (t * N + b) * C;
        double m = -MX_INF;
        for (long long cc = 0; cc < C; cc++) { double v = ${X('r + cc')}; m = v > m ? v : m; }
        double sum = 0;
        for (long long cc = 0; cc < C; cc++) sum += exp(${X('r + cc')} - m);
        LSE[t] = m + log(sum);
      }
    }
    __syncthreads();
    for (long long t = 0; t < Tb; t++) {
      if (ok) {
        long long r = (t * N + b) * C;
        double lse = LSE[t];
        for (long long s = th; s < SL; s += nt) {
          long long e = (long long)EXT[s];
          double lp = ${X('r + e')} - lse;
          double a = -MX_INF;
          if (t == 0) {
            if (s < 2) a = lp;
          } else {
            const double* p = AL + (t - 1) * S;
            a = p[s];
            if (s >= 1) a = mx_logadd(a, p[s - 1]);
            if (s >= 2 && e != blank && e != (long long)EXT[s - 2]) a = mx_logadd(a, p[s - 2]);
            a = a == -MX_INF ? -MX_INF : a + lp;
          }
          AL[t * S + s] = a;
        }
      }
      __syncthreads();
    }
    if (th == 0) {
      double lz = 0;
      if (ok) {
        const double* last = AL + (Tb - 1) * S;
        lz = SL > 1 ? mx_logadd(last[SL - 1], last[SL - 2]) : last[0];
      }
      double l = ok ? -lz : 0.0;
      if (status == 2) l = MX_NAN;
      sLogZ = lz;
      ${putC('loss', c.lossd, 'b', 'l', c.ml)}
    }
    __syncthreads();
${c.mg === 'n' ? '' : gradCode(c, X)}    __syncthreads();
  }
}
`;
}

function gradCode(c: Spec, X: (i: string) => string): string {
  return `    const double logZ = sLogZ;
    for (long long cc = th; cc < C; cc += nt) CLS[cc] = 0;
    __syncthreads();
    for (long long tt = 0; tt < T; tt++) {
      long long t = T - 1 - tt;
      long long r = (t * N + b) * C;
      double* cur = BE + (t & 1) * S;
      const double* nxt = BE + ((t + 1) & 1) * S;
      if (ok && t < Tb) {
        for (long long s = th; s < SL; s += nt) {
          double v = -MX_INF;
          if (t == Tb - 1) {
            if (s + 2 >= SL) v = 0;
          } else {
            long long nr = r + N * C;
            double nl = LSE[t + 1];
            long long e0 = (long long)EXT[s];
            v = nxt[s] + (${X('nr + e0')} - nl);
            if (s + 1 < SL) v = mx_logadd(v, nxt[s + 1] + (${X('nr + (long long)EXT[s + 1]')} - nl));
            if (s + 2 < SL) {
              long long e2 = (long long)EXT[s + 2];
              if (e2 != blank && e2 != e0) v = mx_logadd(v, nxt[s + 2] + (${X('nr + e2')} - nl));
            }
          }
          cur[s] = v;
          double g = AL[t * S + s] + v - logZ;
          OCC[s] = g == -MX_INF ? 0.0 : exp(g);
        }
      }
      __syncthreads();
      if (ok && t < Tb && th == 0) {
        for (long long s = 0; s < SL; s++) CLS[(long long)EXT[s]] += OCC[s];
      }
      __syncthreads();
      for (long long cc = th; cc < C; cc += nt) {
        double v = 0;
        if (ok && t < Tb) { v = exp(${X('r + cc')} - LSE[t]) - CLS[cc]; CLS[cc] = 0; }
        if (status == 2 && t < Tb) v = MX_NAN;
        ${putC('grad', c.gradd, 'r + cc', 'v', c.mg)}
      }
      __syncthreads();
    }
`;
}

function ctc(
  host: CudaHost,
  a: CTCAttrs,
  inputs: readonly CudaBlob[],
  req: readonly OpReqType[],
  outs: readonly CudaBlob[],
) {
  const op = 'CTCLoss';
  const data = inputs[0] as CudaBlob;
  const label = inputs[1] as CudaBlob;
  requireFloat(op, [data], 'data');
  const [T, N, C] = data.shape as [number, number, number];
  const Lw = (label.shape[1] ?? 0) as number;
  const loss = outs[0] as CudaBlob;
  const grad = outs[1] as CudaBlob | undefined;
  const ml = modeOf(req[0], loss);
  const mg = grad === undefined ? 'n' : modeOf(req[1], grad);
  if (N === 0 || (ml === 'n' && mg === 'n')) return;
  const dl = a.use_data_lengths ? (inputs[2] as CudaBlob) : undefined;
  const ll = a.use_label_lengths ? (inputs[a.use_data_lengths ? 3 : 2] as CudaBlob) : undefined;
  const spec: Spec = {
    xd: data.dtype,
    labd: label.dtype,
    ...(dl ? { dld: dl.dtype } : {}),
    ...(ll ? { lld: ll.dtype } : {}),
    lossd: loss.dtype,
    gradd: grad?.dtype ?? data.dtype,
    ml,
    mg,
  };
  const key = `${spec.xd},${spec.labd},${spec.dld ?? '-'},${spec.lld ?? '-'},${spec.lossd},${spec.gradd}|${ml}${mg}`;
  const src = cache.get(key, (entry) => source(spec, entry));
  const S = 2 * Lw + 1;
  const region = T + T * S + 4 * S + C;
  const grid = Math.min(N, 4096);
  const scratch = host.rt.temp(8 * Math.max(1, region * grid));
  const ptr = (b: CudaBlob | undefined): KernelArg => ({
    t: 'ptr',
    v: b === undefined || b.size === 0 ? 0 : addr(b, op),
  });
  const args: KernelArg[] = [
    ptr(data),
    ptr(label),
    ptr(dl),
    ptr(ll),
    ptr(ml === 'n' ? undefined : loss),
    ptr(mg === 'n' ? undefined : grad),
    { t: 'ptr', v: scratch },
    ...[T, N, C, Lw, S, region].map((v): KernelArg => ({ t: 'i64', v })),
    { t: 'i64', v: a.blank_label === 'first' ? 0 : C - 1 },
    { t: 'i64', v: a.blank_label === 'first' ? 0 : -1 },
  ];
  host.rt.launch(src, [grid], [WG], args);
}

export function installCTC(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('CTCLoss')) {
    registry.registerKernel(
      'CTCLoss',
      CUDA,
      cudaKernel<CTCAttrs>(
        host,
        'CTCLoss',
        (a, inputs, req, outs) => ctc(host, a, inputs, req, outs),
        CUDA_DTYPES,
      ),
    );
  }
  if (registry.has('_backward_ctc_loss')) {
    registry.registerKernel(
      '_backward_ctc_loss',
      CUDA,
      cudaKernel<CTCAttrs>(
        host,
        '_backward_ctc_loss',
        (_a, [og, g], [r], [dx]) => {
          const op = '_backward_ctc_loss';
          const ograd = og as CudaBlob;
          const gr = g as CudaBlob;
          const out = dx as CudaBlob;
          requireFloat(op, [ograd, gr, out]);
          const N = (gr.shape[1] ?? 1) as number;
          const bcast = bcastPlan(op, out.shape, [1, N, 1]);
          runMap(host, {
            op,
            expr: 'a0 * a1',
            inputs: [ograd, gr],
            views: ['bcast', 'same'],
            bcast,
            out,
            mode: modeOf(r, out),
          });
        },
        CUDA_DTYPES,
      ),
    );
  }
}
