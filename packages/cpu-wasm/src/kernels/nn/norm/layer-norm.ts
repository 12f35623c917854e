/**
 * cpu-wasm kernels of LayerNorm and _backward_LayerNorm (float32/float64).
 *
 * Over the last axis (the transformer case) every row is a contiguous run: statistics are two
 * run-sum passes per row (float64 across the loops' blocks), the normalise pass streams gamma and
 * beta alongside the row, and backward is one reduction pass (Σ g·γ, Σ g·γ·(x - mean) per row) plus
 * one fused pass writing the data gradient and adding g·x̂ and g into per-chunk partial column sums
 * for grad_gamma/grad_beta (chunks of at most GB_ROWS rows, combined in float64).
 *
 * Over another axis the data is (outer, C, inner) and each of the outer blocks is a C × inner
 * matrix normalised down its columns: the loops run along the contiguous inner axis with per-block
 * vectors of mean and 1/std (sums down the C rows accumulate in the data dtype).
 *
 * Hidden outputs: mean and std = sqrt(var + eps), of data's shape with the axis set to 1. Backward
 * reads them (MXNet's inputs) rather than recomputing.
 */
import type { Attrs, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { aroundAxis } from './batch-norm.js';
import {
  COL_SQDEV,
  COL_SUM,
  LN_APPLY,
  LN_BACK,
  LN_DOT,
  LN_GB,
  LNC_APPLY,
  LNC_BACK,
  LNC_DOT,
  LNC_GB,
  SQDEV,
  SUM,
} from './passes.js';
import { addAt, modeOf, perFor, readBlob, withCall, writeBlob } from './runner.js';

export interface LayerNormAttrs extends Attrs {
  readonly axis: number;
  readonly eps: number;
}

/** Rows per chunk (and per partial-sum block) of the last-axis backward pass, at most. */
export const GB_ROWS = 256;

export function layerNormForward(
  rt: CpuWasmRuntime,
  attrs: LayerNormAttrs,
  ins: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outs: readonly TBlob<number>[],
): void {
  const [x, gamma, beta] = ins as [TBlob<number>, TBlob<number>, TBlob<number>];
  const y = outs[0] as TBlob<number>;
  const { outer, C, inner } = aroundAxis(x.shape, attrs.axis);
  const eps = attrs.eps;
  const rY = req[0] ?? OpReq.null;
  withCall(rt, x.dtype, 'LayerNorm', (call) => {
    const sz = call.sz;
    const xa = rt.address(x);
    if (inner === 1) {
      const rows = outer;
      const per = perFor(C);
      const xb = { base: xa, stride: C * sz };
      const sumA = call.f64(rows);
      call.run(SUM, { items: rows, per, len: C, ops: [xb], sums: [sumA] });
      const mean = call.read64(sumA, rows).map((v) => v / C);
      const meanA = call.f64Of(mean);
      const sqA = call.f64(rows);
      call.run(SQDEV, { items: rows, per, len: C, ops: [xb, { base: meanA, stride: 8 }], sums: [sqA] });
      const std = call.read64(sqA, rows).map((v) => Math.sqrt(v / C + eps));
      writeBlob(rt, outs[1], mean, req[1]);
      writeBlob(rt, outs[2], std, req[2]);
      if (rY === OpReq.null || y.size === 0) return;
      const rA = call.f64Of(std.map((v) => 1 / v));
      call.run(LN_APPLY, {
        items: rows,
        per,
        len: C,
        ops: [
          xb,
          { base: meanA, stride: 8 },
          { base: rA, stride: 8 },
          { base: rt.address(gamma) },
          { base: rt.address(beta) },
        ],
        out: { base: rt.address(y), stride: C * sz },
        mode: modeOf(rY),
      });
      return;
    }
    // (outer, C, inner): items are the (o, c) rows of length inner; chunks hold whole blocks.
    const items = outer * C;
    const per = perFor(inner * C, 1) * C;
    const xb = { base: xa, stride: inner * sz };
    const vecBind = (base: number) => ({ base, div: C, stride: inner * sz });
    const sumArr = call.zeros(outer * inner);
    call.run(COL_SUM, { items, per, len: inner, ops: [xb], accs: [vecBind(sumArr)] });
    const mean = Float64Array.from(call.vdt(sumArr, outer * inner)).map((v) => v / C);
    const M = call.dtOf(mean);
    const sqArr = call.zeros(outer * inner);
    call.run(COL_SQDEV, { items, per, len: inner, ops: [xb, vecBind(M)], accs: [vecBind(sqArr)] });
    const std = Float64Array.from(call.vdt(sqArr, outer * inner)).map((v) => Math.sqrt(v / C + eps));
    writeBlob(rt, outs[1], mean, req[1]);
    writeBlob(rt, outs[2], std, req[2]);
    if (rY === OpReq.null || y.size === 0) return;
    const R = call.dtOf(std.map((v) => 1 / v));
    call.run(LNC_APPLY, {
      items,
      per,
      len: inner,
      ops: [
        xb,
        vecBind(M),
        vecBind(R),
        { base: call.f64Of(readBlob(rt, gamma)), mod: C, stride: 8 },
        { base: call.f64Of(readBlob(rt, beta)), mod: C, stride: 8 },
      ],
      out: { base: rt.address(y), stride: inner * sz },
      mode: modeOf(rY),
    });
  });
}

export function layerNormBackward(
  rt: CpuWasmRuntime,
  attrs: LayerNormAttrs,
  ins: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outs: readonly TBlob<number>[],
): void {
  const [og, x, gamma, savedMean, savedStd] = ins as [
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
  ];
  const dx = outs[0] as TBlob<number>;
  const { outer, C, inner } = aroundAxis(x.shape, attrs.axis);
  const [rData, rGamma, rBeta] = [req[0] ?? OpReq.null, req[1] ?? OpReq.null, req[2] ?? OpReq.null];
  const wantData = rData !== OpReq.null && dx.size > 0;
  const wantGB = rGamma !== OpReq.null || rBeta !== OpReq.null;
  withCall(rt, x.dtype, '_backward_LayerNorm', (call) => {
    const sz = call.sz;
    const ga = rt.address(og);
    const xa = rt.address(x);
    const dGamma = new Float64Array(C);
    const dBeta = new Float64Array(C);
    if (inner === 1) {
      const rows = outer;
      const per = perFor(C, 1, GB_ROWS);
      const rowBind = (base: number) => ({ base, stride: C * sz });
      const meanA = call.f64Of(readBlob(rt, savedMean));
      const r = readBlob(rt, savedStd).map((v) => 1 / v);
      const rA = call.f64Of(r);
      const nb = Math.ceil(rows / per);
      const partG = call.zeros(Math.max(1, nb * C));
      const partB = call.zeros(Math.max(1, nb * C));
      const accs = [
        { base: partG, div: per, stride: C * sz },
        { base: partB, div: per, stride: C * sz },
      ];
      if (wantData) {
        const s1 = call.f64(rows);
        const s2 = call.f64(rows);
        const G = { base: rt.address(gamma) };
        call.run(LN_DOT, {
          items: rows,
          per,
          len: C,
          ops: [rowBind(ga), rowBind(xa), G, { base: meanA, stride: 8 }],
          sums: [s1, s2],
        });
        const a = call.read64(s1, rows).map((v) => v / C);
        const b = call.read64(s2, rows).map((v, i) => ((r[i] as number) * v) / C);
        call.run(LN_BACK, {
          items: rows,
          per,
          len: C,
          ops: [
            rowBind(ga),
            rowBind(xa),
            G,
            { base: meanA, stride: 8 },
            { base: rA, stride: 8 },
            { base: call.f64Of(a), stride: 8 },
            { base: call.f64Of(b), stride: 8 },
          ],
          out: rowBind(rt.address(dx)),
          mode: modeOf(rData),
          accs,
        });
      } else if (wantGB) {
        call.run(LN_GB, {
          items: rows,
          per,
          len: C,
          ops: [rowBind(ga), rowBind(xa), { base: meanA, stride: 8 }, { base: rA, stride: 8 }],
          accs,
        });
      }
      if (wantGB) {
        const pg = call.vdt(partG, nb * C);
        for (let i = 0; i < nb * C; i++) addAt(dGamma, i % C, pg[i] as number);
        const pb = call.vdt(partB, nb * C);
        for (let i = 0; i < nb * C; i++) addAt(dBeta, i % C, pb[i] as number);
      }
    } else {
      const items = outer * C;
      const per = perFor(inner * C, 1) * C;
      const rowBind = (base: number) => ({ base, stride: inner * sz });
      const vecBind = (base: number) => ({ base, div: C, stride: inner * sz });
      const M = rt.address(savedMean);
      const rv = readBlob(rt, savedStd).map((v) => 1 / v);
      const R = call.dtOf(rv);
      const sgx = call.f64(items);
      const sg = call.f64(items);
      if (wantData) {
        const gam = { base: call.f64Of(readBlob(rt, gamma)), mod: C, stride: 8 };
        const S1 = call.zeros(outer * inner);
        const S2 = call.zeros(outer * inner);
        call.run(LNC_DOT, {
          items,
          per,
          len: inner,
          ops: [rowBind(ga), rowBind(xa), gam, vecBind(M)],
          accs: [vecBind(S1), vecBind(S2)],
        });
        const A = call.dtOf(Float64Array.from(call.vdt(S1, outer * inner)).map((v) => v / C));
        const Bv = call.dtOf(
          Float64Array.from(call.vdt(S2, outer * inner)).map((v, i) => ((rv[i] as number) * v) / C),
        );
        call.run(LNC_BACK, {
          items,
          per,
          len: inner,
          ops: [rowBind(ga), rowBind(xa), gam, vecBind(M), vecBind(R), vecBind(A), vecBind(Bv)],
          out: rowBind(rt.address(dx)),
          mode: modeOf(rData),
          sums: [sgx, sg],
        });
      } else if (wantGB) {
        call.run(LNC_GB, {
          items,
          per,
          len: inner,
          ops: [rowBind(ga), rowBind(xa), vecBind(M), vecBind(R)],
          sums: [sgx, sg],
        });
      }
      if (wantGB) {
        const a = call.read64(sgx, items);
        const b = call.read64(sg, items);
        for (let i = 0; i < items; i++) {
          addAt(dGamma, i % C, a[i] as number);
          addAt(dBeta, i % C, b[i] as number);
        }
      }
    }
    writeBlob(rt, outs[1], dGamma, rGamma);
    writeBlob(rt, outs[2], dBeta, rBeta);
  });
}
