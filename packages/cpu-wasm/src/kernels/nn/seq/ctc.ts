/**
 * cpu-wasm kernels of CTCLoss and _backward_ctc_loss.
 *
 * CTCLoss computes, per sequence b with length T_b and labels l (length L_b): log-softmax of the
 * activations over the first T_b steps, the forward (alpha) recursion over the blank-extended label
 * sequence (S = 2L + 1 states; a skip over a blank is allowed between different labels) and, when
 * the hidden `grad` output is requested, the backward (beta) recursion; the gradient with respect
 * to the activations is softmax - posterior occupancy of each class, 0 for steps at or after T_b.
 * All of it in log space and float64 whatever the data dtype (warp-ctc works in the data's type;
 * float64 only removes rounding). Loss = -log p(l | x). A sequence whose labels cannot fit
 * (L + repeats > T_b) gets loss 0 and gradient 0, as warp-ctc's CPU code returns.
 *
 * Lengths and labels are validated before anything is written: data_lengths in [0, T], label
 * lengths in [0, label width], label values in [0, alphabet_size). MXNet reads out of bounds there.
 */
import { MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { type Blob, defineKernel, floatView, readInts, storeFloat } from './util.js';

interface CTCAttrs {
  readonly use_data_lengths: boolean;
  readonly use_label_lengths: boolean;
  readonly blank_label: 'first' | 'last';
}

const NEG_INF = Number.NEGATIVE_INFINITY;

function logAdd(a: number, b: number): number {
  if (a === NEG_INF) return b;
  if (b === NEG_INF) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

function ctcError(message: string, attrs: CTCAttrs, shapes: readonly (readonly number[])[], hint: string) {
  return new MXNetError(message, {
    op: 'CTCLoss',
    params: attrs as unknown as Record<string, unknown>,
    shapes,
    device: 'cpu-wasm',
    hint,
  });
}

/**
 * One sequence: loss, and when `grad` is given, the gradient rows t < T written into `grad`
 * (T x C, zero-initialised by the caller). `lp` holds the log-softmax rows (T x C).
 */
function sequenceLoss(
  lp: Float64Array,
  T: number,
  C: number,
  labels: readonly number[],
  blank: number,
  grad: Float64Array | null,
): number {
  const L = labels.length;
  let repeats = 0;
  for (let i = 1; i < L; i++) if (labels[i] === labels[i - 1]) repeats++;
  if (L + repeats > T) return 0;
  if (T === 0) return 0;
  const S = 2 * L + 1;
  const ext = new Int32Array(S);
  for (let s = 0; s < S; s++) ext[s] = s % 2 === 0 ? blank : (labels[(s - 1) >> 1] as number);
  // skip[s]: the transition s-2 -> s is allowed (s is a label different from the one before).
  const skip = new Uint8Array(S);
  for (let s = 2; s < S; s++) skip[s] = ext[s] !== blank && ext[s] !== ext[s - 2] ? 1 : 0;
  const alpha = new Float64Array(T * S).fill(NEG_INF);
  alpha[0] = lp[blank] as number;
  if (S > 1) alpha[1] = lp[ext[1] as number] as number;
  for (let t = 1; t < T; t++) {
    const cur = t * S;
    const prev = cur - S;
    const row = t * C;
    for (let s = 0; s < S; s++) {
      let a = alpha[prev + s] as number;
      if (s >= 1) a = logAdd(a, alpha[prev + s - 1] as number);
      if (skip[s]) a = logAdd(a, alpha[prev + s - 2] as number);
      alpha[cur + s] = a === NEG_INF ? NEG_INF : a + (lp[row + (ext[s] as number)] as number);
    }
  }
  const last = (T - 1) * S;
  const logZ =
    S > 1 ? logAdd(alpha[last + S - 1] as number, alpha[last + S - 2] as number) : (alpha[last] as number);
  if (grad !== null) {
    // beta[s] at step t: log p(steps t+1.. | state s at t); occupancy = alpha + beta - logZ.
    let beta = new Float64Array(S).fill(NEG_INF);
    let next = new Float64Array(S);
    beta[S - 1] = 0;
    if (S > 1) beta[S - 2] = 0;
    const occ = new Float64Array(C);
    for (let t = T - 1; t >= 0; t--) {
      const row = t * C;
      if (t < T - 1) {
        const nrow = (t + 1) * C;
        for (let s = 0; s < S; s++) {
          const e1 = lp[nrow + (ext[s] as number)] as number;
          let b = (beta[s] as number) + e1;
          if (s + 1 < S)
            b = logAdd(b, (beta[s + 1] as number) + (lp[nrow + (ext[s + 1] as number)] as number));
          if (s + 2 < S && skip[s + 2])
            b = logAdd(b, (beta[s + 2] as number) + (lp[nrow + (ext[s + 2] as number)] as number));
          next[s] = b;
        }
        [beta, next] = [next, beta];
      }
      occ.fill(0);
      const cur = t * S;
      for (let s = 0; s < S; s++) {
        const g = (alpha[cur + s] as number) + (beta[s] as number) - logZ;
        if (g !== NEG_INF) occ[ext[s] as number] = (occ[ext[s] as number] as number) + Math.exp(g);
      }
      for (let c = 0; c < C; c++) grad[row + c] = Math.exp(lp[row + c] as number) - (occ[c] as number);
    }
  }
  return -logZ;
}

export function installCTC(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<CTCAttrs>(registry, 'CTCLoss', (a, inputs, req, outputs) => {
    const data = inputs[0] as Blob;
    const label = inputs[1] as Blob;
    const lossOut = outputs[0] as Blob;
    const gradOut = outputs[1] as Blob;
    const rLoss = req[0] as OpReqType;
    const rGrad = req[1] as OpReqType;
    floatView(rt, data, 'CTCLoss', 'data');
    const [Tmax, N, C] = data.shape as [number, number, number];
    const Lw = label.shape[1] as number;
    const shapes = inputs.map((b) => (b as Blob).shape);
    const blank = a.blank_label === 'first' ? 0 : C - 1;
    const pad = a.blank_label === 'first' ? 0 : -1;
    const dl = a.use_data_lengths ? readInts(rt, inputs[2] as Blob) : null;
    const ll = a.use_label_lengths ? readInts(rt, inputs[a.use_data_lengths ? 3 : 2] as Blob) : null;
    const lab = readInts(rt, label);
    // Validate everything first: nothing is written when an input is bad.
    const T = new Int32Array(N);
    const seqs: number[][] = [];
    for (let b = 0; b < N; b++) {
      const tb = dl === null ? Tmax : (dl[b] as number);
      if (tb < 0 || tb > Tmax)
        throw ctcError(
          `data_lengths[${b}] = ${tb} is outside [0, ${Tmax}] (the data has ${Tmax} time steps)`,
          a,
          shapes,
          'data lengths count time steps of the data',
        );
      T[b] = tb;
      let len: number;
      if (ll !== null) {
        len = ll[b] as number;
        if (len < 0 || len > Lw)
          throw ctcError(
            `label_lengths[${b}] = ${len} is outside [0, ${Lw}] (the label has ${Lw} columns)`,
            a,
            shapes,
            'label lengths count entries of each label row',
          );
      } else {
        len = Lw;
        for (let i = 0; i < Lw; i++)
          if (lab[b * Lw + i] === pad) {
            len = i;
            break;
          }
      }
      const seq: number[] = [];
      for (let i = 0; i < len; i++) {
        const v = lab[b * Lw + i] as number;
        if (v < 0 || v >= C)
          throw ctcError(
            `label value ${v} at (${b}, ${i}) is outside [0, ${C - 1}] (alphabet_size ${C})`,
            a,
            shapes,
            a.blank_label === 'first'
              ? "with blank_label='first' labels are 1..alphabet_size-1, padded with 0"
              : "with blank_label='last' labels are 0..alphabet_size-2, padded with -1",
          );
        seq.push(v);
      }
      seqs.push(seq);
    }
    const wantGrad = rGrad !== OpReq.null && gradOut !== undefined && gradOut.size > 0;
    const losses = new Float64Array(N);
    const gradAll = wantGrad ? new Float64Array(Tmax * N * C) : null;
    const x = rt.view(data) as Float32Array | Float64Array;
    for (let b = 0; b < N; b++) {
      const tb = T[b] as number;
      const lp = new Float64Array(tb * C);
      for (let t = 0; t < tb; t++) {
        const xi = (t * N + b) * C;
        let m = NEG_INF;
        for (let c = 0; c < C; c++) m = Math.max(m, x[xi + c] as number);
        let sum = 0;
        for (let c = 0; c < C; c++) sum += Math.exp((x[xi + c] as number) - m);
        const lse = m + Math.log(sum);
        for (let c = 0; c < C; c++) lp[t * C + c] = (x[xi + c] as number) - lse;
      }
      const g = gradAll === null ? null : new Float64Array(tb * C);
      losses[b] = sequenceLoss(lp, tb, C, seqs[b] as number[], blank, g);
      if (g !== null && gradAll !== null) {
        for (let t = 0; t < tb; t++) gradAll.set(g.subarray(t * C, (t + 1) * C), (t * N + b) * C);
      }
    }
    if (rLoss !== OpReq.null && lossOut.size > 0)
      storeFloat(rt.view(lossOut) as Float32Array, 0, losses, rLoss);
    if (gradAll !== null) storeFloat(rt.view(gradOut) as Float32Array, 0, gradAll, rGrad);
  });

  defineKernel<CTCAttrs>(registry, '_backward_ctc_loss', (_a, [ograd, grad], [r], [dx]) => {
    const og = ograd as Blob;
    const g = grad as Blob;
    const out = dx as Blob;
    if (r === OpReq.null || out.size === 0) return;
    const [T, N, C] = g.shape as [number, number, number];
    const o = floatView(rt, og, '_backward_ctc_loss', 'output gradient');
    const gv = floatView(rt, g, '_backward_ctc_loss', 'grad');
    const dst = floatView(rt, out, '_backward_ctc_loss', 'data gradient');
    const add = r === OpReq.add;
    for (let t = 0; t < T; t++)
      for (let b = 0; b < N; b++) {
        const s = o[b] as number;
        const at = (t * N + b) * C;
        for (let c = 0; c < C; c++) {
          const v = s * (gv[at + c] as number);
          dst[at + c] = add ? (dst[at + c] as number) + v : v;
        }
      }
  });
}
