/**
 * cpu-wasm kernels of GroupNorm, InstanceNorm and their backward ops (float32/float64).
 *
 * Data (N, C, inner...) with G groups of Cg = C / G channels (InstanceNorm: G = C): each (n, g)
 * is one contiguous run of L = Cg · inner elements, so the statistics are two run-sum passes per
 * group. The normalise and gradient passes run per (n, c) segment of length inner, where gamma is
 * one scalar: out = (x - mean) · (γ_c / std) + β_c; backward reduces Σ g and Σ g (x - mean) per
 * segment, combines them per group in JavaScript (with γ) and applies
 *   dx = γ_c r g - r S1 / L - (x - mean) r³ S2 / L,   S1 = Σ γ g, S2 = Σ γ g (x - mean) over the group,
 * with r = 1/std; grad_gamma_c = Σ_n r Σ g (x - mean), grad_beta_c = Σ_n Σ g.
 *
 * Hidden outputs: GroupNorm saves mean and std = sqrt(var + eps) of shape (N, G); InstanceNorm
 * saves mean and var (MXNet's legacy op keeps the variance) of shape (N, C).
 */
import type { Attrs, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { AFFINE, BWD, DOT2, SQDEV, SUM } from './passes.js';
import { addAt, modeOf, perFor, readBlob, withCall, writeBlob } from './runner.js';

export interface GroupNormAttrs extends Attrs {
  readonly eps: number;
  readonly num_groups?: number;
}

export type GroupKind = 'group' | 'instance';

interface Geo {
  readonly N: number;
  readonly C: number;
  readonly G: number;
  readonly Cg: number;
  readonly inner: number;
  readonly L: number;
}

function geometry(kind: GroupKind, attrs: GroupNormAttrs, shape: readonly number[]): Geo {
  const N = shape[0] as number;
  const C = shape[1] as number;
  let inner = 1;
  for (let i = 2; i < shape.length; i++) inner *= shape[i] as number;
  const G = kind === 'instance' ? C : (attrs.num_groups as number);
  const Cg = G > 0 ? C / G : 0;
  return { N, C, G, Cg, inner, L: Cg * inner };
}

export function groupNormForward(
  rt: CpuWasmRuntime,
  kind: GroupKind,
  attrs: GroupNormAttrs,
  ins: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outs: readonly TBlob<number>[],
): void {
  const [x, gamma, beta] = ins as [TBlob<number>, TBlob<number>, TBlob<number>];
  const y = outs[0] as TBlob<number>;
  const { N, C, G, Cg, inner, L } = geometry(kind, attrs, x.shape);
  const rows = N * G;
  const eps = attrs.eps;
  withCall(rt, x.dtype, kind === 'group' ? 'GroupNorm' : 'InstanceNorm', (call) => {
    const sz = call.sz;
    const xa = rt.address(x);
    const per = perFor(L);
    const xb = { base: xa, stride: L * sz };
    const sumA = call.f64(rows);
    call.run(SUM, { items: rows, per, len: L, ops: [xb], sums: [sumA] });
    const mean = call.read64(sumA, rows).map((v) => v / L);
    const meanA = call.f64Of(mean);
    const sqA = call.f64(rows);
    call.run(SQDEV, { items: rows, per, len: L, ops: [xb, { base: meanA, stride: 8 }], sums: [sqA] });
    const variance = call.read64(sqA, rows).map((v) => v / L);
    const std = variance.map((v) => Math.sqrt(v + eps));
    writeBlob(rt, outs[1], mean, req[1]);
    writeBlob(rt, outs[2], kind === 'group' ? std : variance, req[2]);
    const rY = req[0] ?? OpReq.null;
    if (rY === OpReq.null || y.size === 0) return;
    const gam = readBlob(rt, gamma);
    const scale = new Float64Array(N * C);
    for (let s = 0; s < N * C; s++) {
      const c = s % C;
      scale[s] = (gam[c] as number) / (std[Math.floor(s / Cg)] as number);
    }
    const seg = (base: number) => ({ base, stride: inner * sz });
    call.run(AFFINE, {
      items: N * C,
      per: perFor(inner),
      len: inner,
      ops: [
        seg(xa),
        { base: meanA, div: Cg, stride: 8 },
        { base: call.f64Of(scale), stride: 8 },
        { base: call.f64Of(readBlob(rt, beta)), mod: C, stride: 8 },
      ],
      out: seg(rt.address(y)),
      mode: modeOf(rY),
    });
  });
}

export function groupNormBackward(
  rt: CpuWasmRuntime,
  kind: GroupKind,
  attrs: GroupNormAttrs,
  ins: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outs: readonly TBlob<number>[],
): void {
  // GroupNorm: (ograd, data, gamma, mean, std); InstanceNorm: (ograd, mean, var, data, gamma).
  const [og, x, gamma, savedMean, savedSpread] = (kind === 'group'
    ? ins
    : [ins[0], ins[3], ins[4], ins[1], ins[2]]) as TBlob<number>[] as [
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
  ];
  const dx = outs[0] as TBlob<number>;
  const { N, C, G, Cg, inner, L } = geometry(kind, attrs, x.shape);
  const rows = N * G;
  const [rData, rGamma, rBeta] = [req[0] ?? OpReq.null, req[1] ?? OpReq.null, req[2] ?? OpReq.null];
  withCall(rt, x.dtype, kind === 'group' ? '_backward_GroupNorm' : '_backward_InstanceNorm', (call) => {
    const sz = call.sz;
    const spread = readBlob(rt, savedSpread);
    const r = kind === 'group' ? spread.map((v) => 1 / v) : spread.map((v) => 1 / Math.sqrt(v + attrs.eps));
    const gam = readBlob(rt, gamma);
    const meanA = call.f64Of(readBlob(rt, savedMean));
    const seg = (base: number) => ({ base, stride: inner * sz });
    const mBind = { base: meanA, div: Cg, stride: 8 };
    const segs = N * C;
    const per = perFor(inner);
    const sgA = call.f64(segs);
    const sgxA = call.f64(segs);
    call.run(DOT2, {
      items: segs,
      per,
      len: inner,
      ops: [seg(rt.address(og)), seg(rt.address(x)), mBind],
      sums: [sgA, sgxA],
    });
    const sg = call.read64(sgA, segs);
    const sgx = call.read64(sgxA, segs);
    const dGamma = new Float64Array(C);
    const dBeta = new Float64Array(C);
    const S1 = new Float64Array(rows);
    const S2 = new Float64Array(rows);
    for (let s = 0; s < segs; s++) {
      const c = s % C;
      const row = Math.floor(s / Cg);
      addAt(dGamma, c, (r[row] as number) * (sgx[s] as number));
      addAt(dBeta, c, sg[s] as number);
      addAt(S1, row, (gam[c] as number) * (sg[s] as number));
      addAt(S2, row, (gam[c] as number) * (sgx[s] as number));
    }
    writeBlob(rt, outs[1], dGamma, rGamma);
    writeBlob(rt, outs[2], dBeta, rBeta);
    if (rData === OpReq.null || dx.size === 0) return;
    const a = new Float64Array(segs);
    const d = new Float64Array(segs);
    const k = new Float64Array(segs);
    for (let s = 0; s < segs; s++) {
      const row = Math.floor(s / Cg);
      const rr = r[row] as number;
      a[s] = (gam[s % C] as number) * rr;
      d[s] = (-(S1[row] as number) / L) * rr;
      k[s] = (rr * rr * rr * (S2[row] as number)) / L;
    }
    call.run(BWD, {
      items: segs,
      per,
      len: inner,
      ops: [
        seg(rt.address(og)),
        seg(rt.address(x)),
        { base: call.f64Of(a), stride: 8 },
        { base: call.f64Of(d), stride: 8 },
        mBind,
        { base: call.f64Of(k), stride: 8 },
      ],
      out: seg(rt.address(dx)),
      mode: modeOf(rData),
    });
  });
}
