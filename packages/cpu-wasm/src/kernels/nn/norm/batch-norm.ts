/**
 * cpu-wasm kernels of BatchNorm and _backward_BatchNorm (float32/float64).
 *
 * The data is viewed as (outer, C, inner) around the channel axis. Per-channel reductions and the
 * elementwise passes take one of two layouts (`ChannelLayout`):
 *
 * - runs (inner >= RUN_MIN, e.g. NCHW): item = channel, the loop runs over the `outer` contiguous
 *   (o, c) segments of length inner; chunks are channel ranges;
 * - columns (inner < RUN_MIN, e.g. NHWC or (N, C)): the data is a matrix of `outer` rows and
 *   W = C * inner columns, reduced down the rows into per-block partial column sums (blocks of at
 *   most COL_BLOCK rows, summed in float64 afterwards) and normalised with per-column vectors.
 *   Narrow matrices (W < 64) are folded: k rows side by side form one row of width k * W, so every
 *   loop call has at least 64 elements; the outer % k leftover rows run as a second pass.
 *
 * Statistics are two-pass (mean, then Σ (x - mean)²) like MXNet's CPU kernel, with the loops'
 * blocked float32 sums added in float64. Training mode (and no use_global_stats) normalises with
 * the batch statistics, saves mean and 1/sqrt(var + eps) as the hidden outputs and updates the
 * moving statistics in place with the biased variance (see the op definition for why here and not
 * in backward); otherwise the moving statistics are used and left alone.
 */
import type { Attrs, OpContext, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import type { LoopDef } from './loops.js';
import {
  AFFINE,
  BWD,
  COL_AFFINE,
  COL_BWD,
  COL_DOT,
  COL_SCALE,
  COL_SQDEV,
  COL_SUM,
  DOT2,
  SCALE,
  SQDEV,
  SUM,
} from './passes.js';
import { addAt, type Bind, modeOf, type NormCall, perFor, readBlob, withCall, writeBlob } from './runner.js';

export interface BatchNormAttrs extends Attrs {
  readonly eps: number;
  readonly momentum: number;
  readonly fix_gamma: boolean;
  readonly use_global_stats: boolean;
  readonly axis: number;
}

/** Segments shorter than this use the column layout. */
export const RUN_MIN = 16;
/** Rows (of the folded matrix) per partial-sum block in the column layout. */
export const COL_BLOCK = 256;
/** Minimum folded row width in the column layout. */
const MIN_WIDTH = 64;

/** (outer, C, inner) around axis `axis` of `shape`. */
export function aroundAxis(
  shape: readonly number[],
  axis: number,
): { outer: number; C: number; inner: number } {
  const a = axis < 0 ? axis + shape.length : axis;
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < a; i++) outer *= shape[i] as number;
  for (let i = a + 1; i < shape.length; i++) inner *= shape[i] as number;
  return { outer, C: shape[a] as number, inner };
}

/** A loop operand: a data-shaped stream (address) or one value per channel. */
type Operand = { readonly data: number } | { readonly chan: ArrayLike<number> };

/** Per-channel reductions and elementwise passes over (outer, C, inner) data. */
export class ChannelLayout {
  readonly call: NormCall;
  readonly outer: number;
  readonly C: number;
  readonly inner: number;
  readonly runs: boolean;

  constructor(call: NormCall, outer: number, C: number, inner: number) {
    this.call = call;
    this.outer = outer;
    this.C = C;
    this.inner = inner;
    this.runs = inner >= RUN_MIN;
  }

  /** Per-channel float64 totals of `run`'s sums (runs) or `col`'s accumulators (columns). */
  reduce(run: LoopDef, col: LoopDef, ops: readonly Operand[]): Float64Array[] {
    const { call, outer, C, inner } = this;
    if (this.runs) {
      const nSums = run.sums?.length ?? 0;
      const sums = Array.from({ length: nSums }, () => call.f64(C));
      call.run(run, {
        items: C,
        per: perFor(outer * inner),
        count: outer,
        len: inner,
        ops: ops.map((o) => this.#runBind(o)),
        sums,
      });
      return sums.map((s) => call.read64(s, C));
    }
    const nAcc = col.accs?.length ?? 0;
    const cols = this.#columns(col, ops, nAcc);
    // Fold columns into channels.
    return cols.map((w) => {
      const out = new Float64Array(C);
      for (let k = 0; k < w.length; k++) addAt(out, Math.floor(k / inner), w[k] as number);
      return out;
    });
  }

  /** out (=|+=) `run`/`col` over the data. */
  apply(run: LoopDef, col: LoopDef, ops: readonly Operand[], out: number, req: OpReqType): void {
    if (req === OpReq.null) return;
    const { call, outer, C, inner } = this;
    const mode = modeOf(req);
    if (this.runs) {
      call.run(run, {
        items: C,
        per: perFor(outer * inner),
        count: outer,
        len: inner,
        ops: ops.map((o) => this.#runBind(o)),
        out: this.#runBind({ data: out }),
        mode,
      });
      return;
    }
    const g = this.#fold();
    const vec = ops.map((o) => ('data' in o ? -1 : call.dtOf(this.#expand(o.chan, g.wk))));
    const binds = (tail: boolean): Bind[] =>
      ops.map((o, i) => ('data' in o ? this.#colStream(o.data, g, tail) : { base: vec[i] as number }));
    call.run(col, {
      items: g.rows,
      per: g.block,
      len: g.wk,
      ops: binds(false),
      out: this.#colStream(out, g, false),
      mode,
    });
    call.run(col, {
      items: g.tail,
      per: g.tail,
      len: g.w,
      ops: binds(true),
      out: this.#colStream(out, g, true),
      mode,
    });
  }

  #runBind(o: Operand): Bind {
    const { sz } = this.call;
    if ('data' in o) return { base: o.data, stride: this.inner * sz, ostride: this.C * this.inner * sz };
    return { base: this.call.f64Of(o.chan), stride: 8 };
  }

  /** The folded matrix: rows of wk = k * w elements, `tail` leftover rows of w. */
  #fold(): { w: number; wk: number; rows: number; tail: number; block: number } {
    const w = this.C * this.inner;
    const k = w >= MIN_WIDTH ? 1 : Math.ceil(MIN_WIDTH / Math.max(1, w));
    const rows = Math.floor(this.outer / k);
    const wk = w * k;
    const block = Math.max(1, Math.min(COL_BLOCK, Math.floor((1 << 16) / Math.max(1, wk))));
    return { w, wk, rows, tail: this.outer - rows * k, block };
  }

  #colStream(base: number, g: { w: number; wk: number; rows: number }, tail: boolean): Bind {
    const { sz } = this.call;
    return tail ? { base: base + g.rows * g.wk * sz, stride: g.w * sz } : { base, stride: g.wk * sz };
  }

  /** Per-channel values repeated over inner and the fold: length wk. */
  #expand(chan: ArrayLike<number>, wk: number): Float64Array {
    const w = this.C * this.inner;
    const out = new Float64Array(wk);
    for (let k = 0; k < wk; k++) out[k] = chan[Math.floor((k % w) / this.inner)] as number;
    return out;
  }

  /** Column totals (length W, float64) of each accumulator of `def`. */
  #columns(def: LoopDef, ops: readonly Operand[], nAcc: number): Float64Array[] {
    const { call } = this;
    const g = this.#fold();
    const nb = Math.ceil(g.rows / g.block);
    const parts = Array.from({ length: nAcc }, () => call.zeros(Math.max(1, nb * g.wk)));
    const tails = Array.from({ length: nAcc }, () => call.zeros(Math.max(1, g.w)));
    const vec = ops.map((o) => ('data' in o ? -1 : call.dtOf(this.#expand(o.chan, g.wk))));
    const binds = (tail: boolean): Bind[] =>
      ops.map((o, i) => ('data' in o ? this.#colStream(o.data, g, tail) : { base: vec[i] as number }));
    const sz = call.sz;
    call.run(def, {
      items: g.rows,
      per: g.block,
      len: g.wk,
      ops: binds(false),
      accs: parts.map((p) => ({ base: p, div: g.block, stride: g.wk * sz })),
    });
    call.run(def, {
      items: g.tail,
      per: g.tail,
      len: g.w,
      ops: binds(true),
      accs: tails.map((p) => ({ base: p })),
    });
    return parts.map((p, j) => {
      const out = new Float64Array(g.w);
      const pv = call.vdt(p, nb * g.wk);
      for (let i = 0; i < nb * g.wk; i++) addAt(out, i % g.w, pv[i] as number);
      const tv = call.vdt(tails[j] as number, g.w);
      for (let i = 0; i < g.w; i++) addAt(out, i, tv[i] as number);
      return out;
    });
  }
}

export function batchNormForward(
  rt: CpuWasmRuntime,
  attrs: BatchNormAttrs,
  ctx: OpContext,
  ins: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outs: readonly TBlob<number>[],
): void {
  const [x, gamma, beta, movingMean, movingVar] = ins as [
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
  ];
  const { outer, C, inner } = aroundAxis(x.shape, attrs.axis);
  const n = outer * inner;
  const eps = attrs.eps;
  withCall(rt, x.dtype, 'BatchNorm', (call) => {
    const L = new ChannelLayout(call, outer, C, inner);
    const xa = rt.address(x);
    let mean: Float64Array;
    let invstd: Float64Array;
    if (ctx.isTrain && !attrs.use_global_stats) {
      const [s] = L.reduce(SUM, COL_SUM, [{ data: xa }]) as [Float64Array];
      mean = s.map((v) => v / n);
      const [q] = L.reduce(SQDEV, COL_SQDEV, [{ data: xa }, { chan: mean }]) as [Float64Array];
      invstd = new Float64Array(C);
      const mom = attrs.momentum;
      const mm = rt.view(movingMean) as Float32Array | Float64Array;
      const mv = rt.view(movingVar) as Float32Array | Float64Array;
      for (let c = 0; c < C; c++) {
        const sq = q[c] as number;
        const variance = sq / n;
        invstd[c] = sq === 0 && eps === 0 ? 0 : 1 / Math.sqrt(variance + eps);
        mm[c] = (mm[c] as number) * mom + (mean[c] as number) * (1 - mom);
        mv[c] = (mv[c] as number) * mom + variance * (1 - mom);
      }
    } else {
      mean = readBlob(rt, movingMean);
      invstd = readBlob(rt, movingVar).map((v) => 1 / Math.sqrt(v + eps));
    }
    writeBlob(rt, outs[1], mean, req[1]);
    writeBlob(rt, outs[2], invstd, req[2]);
    const y = outs[0] as TBlob<number>;
    if (y.size === 0) return;
    const g = attrs.fix_gamma ? null : readBlob(rt, gamma);
    const scale = invstd.map((v, c) => v * (g === null ? 1 : (g[c] as number)));
    L.apply(
      AFFINE,
      COL_AFFINE,
      [{ data: xa }, { chan: mean }, { chan: scale }, { chan: readBlob(rt, beta) }],
      rt.address(y),
      req[0] ?? OpReq.null,
    );
  });
}

export function batchNormBackward(
  rt: CpuWasmRuntime,
  attrs: BatchNormAttrs,
  ctx: OpContext,
  ins: readonly TBlob<number>[],
  req: readonly OpReqType[],
  outs: readonly TBlob<number>[],
): void {
  const [og, savedMean, savedInvstd, x, gamma, , movingMean, movingVar] = ins as TBlob<number>[] as [
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
    TBlob<number>,
  ];
  const { outer, C, inner } = aroundAxis(x.shape, attrs.axis);
  const n = outer * inner;
  const training = ctx.isTrain && !attrs.use_global_stats;
  const [rData, rGamma, rBeta] = [req[0] ?? OpReq.null, req[1] ?? OpReq.null, req[2] ?? OpReq.null];
  withCall(rt, x.dtype, '_backward_BatchNorm', (call) => {
    const L = new ChannelLayout(call, outer, C, inner);
    const mean = training ? readBlob(rt, savedMean) : readBlob(rt, movingMean);
    const invstd = training
      ? readBlob(rt, savedInvstd)
      : readBlob(rt, movingVar).map((v) => 1 / Math.sqrt(v + attrs.eps));
    const w = attrs.fix_gamma ? new Float64Array(C).fill(1) : readBlob(rt, gamma);
    const ga = rt.address(og);
    const xa = rt.address(x);
    const dx = outs[0] as TBlob<number>;
    const needSums =
      rGamma !== OpReq.null || rBeta !== OpReq.null || (training && rData !== OpReq.null && dx.size > 0);
    const [sg, sgx] = needSums
      ? (L.reduce(DOT2, COL_DOT, [{ data: ga }, { data: xa }, { chan: mean }]) as [
          Float64Array,
          Float64Array,
        ])
      : [new Float64Array(C), new Float64Array(C)];
    writeBlob(
      rt,
      outs[1],
      attrs.fix_gamma ? new Float64Array(C) : sgx.map((v, c) => v * (invstd[c] as number)),
      rGamma,
    );
    writeBlob(rt, outs[2], sg, rBeta);
    if (dx.size === 0 || rData === OpReq.null) return;
    const iw = invstd.map((v, c) => v * (w[c] as number));
    if (training) {
      const d = sg.map((v, c) => (-v / n) * (iw[c] as number));
      const k = sgx.map(
        (v, c) => ((v * (invstd[c] as number) * (invstd[c] as number)) / n) * (iw[c] as number),
      );
      L.apply(
        BWD,
        COL_BWD,
        [{ data: ga }, { data: xa }, { chan: iw }, { chan: d }, { chan: mean }, { chan: k }],
        rt.address(dx),
        rData,
      );
    } else {
      L.apply(SCALE, COL_SCALE, [{ data: ga }, { chan: iw }], rt.address(dx), rData);
    }
  });
}
