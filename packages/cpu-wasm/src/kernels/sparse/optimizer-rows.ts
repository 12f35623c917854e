/**
 * The row loops of the optimizer updates with row_sparse gradients: MXNet 1.9.1's cpu kernels
 * (optimizer_op-inl.h SGDDnsRspKernel, SGDMomDnsRspDnsKernel, AdamDnsRspDnsKernel,
 * FtrlDnsRspDnsKernel, AdagradDnsRspDnsKernel; optimizer_op.cc SGDMomStdDnsRspDnsKernel,
 * AdamStdDnsRspDnsKernel; contrib/optimizer_op-inl.h GroupAdagradDnsRspKernel), transcribed in
 * their operation order.
 *
 * Every arithmetic result goes through `r` — `Math.fround` for float32, the identity for float64 —
 * so float32 updates round after each operation exactly as MXNet's float kernels (and the dense
 * wasm kernels here) do; the standard updates then equal the dense kernel on the densified
 * gradient. Parameters arrive rounded to float32 (MXNet's `float` fields) and are cast to DType,
 * and products of parameters are computed per call in DType, which is what MXNet computes per
 * element.
 *
 * Loops read the weight from `w`, the output buffer already holding the weight (the driver copies
 * it there unless the output is the weight's memory), and write the new weight there; states are
 * updated in place. `idx` holds the gradient's validated row ids, `g` its rows.
 */

/** A float32 or float64 view. */
export type Floats = Float32Array | Float64Array;
/** Rounding to DType after each operation. */
export type Round = (x: number) => number;

/** What every update loop gets (views taken after any allocation). */
export interface RowArgs {
  /** Rows of the weight, and elements per row. */
  readonly rows: number;
  readonly rowLen: number;
  /** Gradient row ids (ascending, in range) and values (`idx.length` rows of `rowLen`). */
  readonly idx: Float64Array;
  readonly g: Floats;
  /** The weight, updated in place (the output's memory). */
  readonly w: Floats;
  /** The states, all rows, updated in place. */
  readonly s: readonly Floats[];
  /** DType rounding. */
  readonly r: Round;
}

/** The numeric parameters (MXNet `float` fields, rounded to float32; 0 where an op has none). */
export interface Params {
  readonly lr: number;
  readonly wd: number;
  readonly rescale: number;
  /** clip_gradient: clipping is on when >= 0. */
  readonly clip: number;
  readonly momentum: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
  readonly lamda1: number;
  readonly beta: number;
}

/** MXNet `mshadow_op::clip::Map(x, bound)` (NaN passes through). */
function clip(x: number, c: number): number {
  // biome-ignore lint/complexity/useMathMinMax: MXNet's comparisons, whose signed zeros Math.max does not keep
  return x > c ? c : x < -c ? -c : x;
}

/** MXNet `mshadow_op::sign::Map`. */
function sign(x: number): number {
  return x < 0 ? -1 : x > 0 ? 1 : 0;
}

/**
 * MXNet's standard SGD with a row_sparse gradient, first half: `weight *= (1 - lr*wd)` over every
 * element, the factor computed in float (`static_cast<DType>(1 - param.lr * param.wd)`).
 */
export function sgdDecayAll(a: RowArgs, p: Params): void {
  const f = Math.fround(1 - Math.fround(p.lr * p.wd));
  const { w, r } = a;
  for (let i = 0; i < w.length; i++) w[i] = r((w[i] as number) * f);
}

/** SGDDnsRspKernel over the gradient rows, with weight decay `wd` (0 after `sgdDecayAll`). */
export function sgdRows(a: RowArgs, p: Params, wd: number): void {
  const { idx, g, w, r, rowLen } = a;
  const lr = p.lr;
  const decay = r(1 - r(lr * wd));
  const rescale = p.rescale;
  const c = p.clip;
  const lrRescale = r(lr * rescale);
  for (let i = 0; i < idx.length; i++) {
    const base = (idx[i] as number) * rowLen;
    const gBase = i * rowLen;
    for (let j = 0; j < rowLen; j++) {
      const d = base + j;
      const step =
        c >= 0
          ? r(lr * clip(r(rescale * (g[gBase + j] as number)), c))
          : r(lrRescale * (g[gBase + j] as number));
      w[d] = r(r(decay * (w[d] as number)) - step);
    }
  }
}

/** One momentum row: `mom = momentum*mom - (lr*wd)*w - lr*clip(rescale*g)`, `w += mom`. */
function momRow(a: RowArgs, p: Params, row: number, gv: Floats, gBase: number): void {
  const { w, r, rowLen } = a;
  const mom = a.s[0] as Floats;
  const { lr, momentum, clip: c, rescale } = p;
  const rate = r(lr * p.wd);
  const lrRescale = r(lr * rescale);
  const base = row * rowLen;
  for (let j = 0; j < rowLen; j++) {
    const d = base + j;
    const gj = gv[gBase + j] as number;
    const step = c >= 0 ? r(lr * clip(r(rescale * gj), c)) : r(lrRescale * gj);
    const wj = w[d] as number;
    const m = r(r(r(momentum * (mom[d] as number)) - r(rate * wj)) - step);
    mom[d] = m;
    w[d] = r(wj + m);
  }
}

/** SGDMomDnsRspDnsKernel: the gradient rows only. */
export function sgdMomLazy(a: RowArgs, p: Params): void {
  for (let i = 0; i < a.idx.length; i++) momRow(a, p, a.idx[i] as number, a.g, i * a.rowLen);
}

/** SGDMomStdDnsRspDnsKernel: every row, with a zero gradient where the gradient stores none. */
export function sgdMomStd(a: RowArgs, p: Params): void {
  const zeros = new Float64Array(a.rowLen);
  let k = 0;
  for (let row = 0; row < a.rows; row++) {
    if (k < a.idx.length && a.idx[k] === row) {
      momRow(a, p, row, a.g, k * a.rowLen);
      k++;
    } else momRow(a, p, row, zeros, 0);
  }
}

/**
 * One Adam row. `std` picks AdamStdDnsRspDnsKernel's arithmetic (a missing gradient row gives
 * `g = w*wd`; var adds `(1-beta2)*square(g)`), else AdamDnsRspDnsKernel's (without clipping, var
 * adds `(1-beta2)*g*g`, left to right).
 */
function adamRow(a: RowArgs, p: Params, row: number, gv: Floats | null, gBase: number, std: boolean): void {
  const { w, r, rowLen } = a;
  const mean = a.s[0] as Floats;
  const vr = a.s[1] as Floats;
  const { lr, wd, beta1, beta2, epsilon, clip: c, rescale } = p;
  const om1 = r(1 - beta1);
  const om2 = r(1 - beta2);
  const base = row * rowLen;
  for (let j = 0; j < rowLen; j++) {
    const d = base + j;
    const wj = w[d] as number;
    const gr = gv === null ? r(wj * wd) : r(r((gv[gBase + j] as number) * rescale) + r(wj * wd));
    let m: number;
    let v: number;
    if (c >= 0) {
      const cg = clip(gr, c);
      m = r(r(beta1 * (mean[d] as number)) + r(om1 * cg));
      v = r(r(beta2 * (vr[d] as number)) + r(om2 * r(cg * cg)));
    } else {
      m = r(r(beta1 * (mean[d] as number)) + r(om1 * gr));
      const decayed = r(beta2 * (vr[d] as number));
      v = std ? r(decayed + r(om2 * r(gr * gr))) : r(decayed + r(r(om2 * gr) * gr));
    }
    mean[d] = m;
    vr[d] = v;
    w[d] = r(wj - r(r(lr * m) / r(r(Math.sqrt(v)) + epsilon)));
  }
}

/** AdamDnsRspDnsKernel: the gradient rows only. */
export function adamLazy(a: RowArgs, p: Params): void {
  for (let i = 0; i < a.idx.length; i++) adamRow(a, p, a.idx[i] as number, a.g, i * a.rowLen, false);
}

/** AdamStdDnsRspDnsKernel: every row. */
export function adamStd(a: RowArgs, p: Params): void {
  let k = 0;
  for (let row = 0; row < a.rows; row++) {
    if (k < a.idx.length && a.idx[k] === row) {
      adamRow(a, p, row, a.g, k * a.rowLen, true);
      k++;
    } else adamRow(a, p, row, null, 0, true);
  }
}

/** FtrlDnsRspDnsKernel: the gradient rows of z, n and the weight. */
export function ftrlRows(a: RowArgs, p: Params): void {
  const { idx, g, w, r, rowLen } = a;
  const z = a.s[0] as Floats;
  const n = a.s[1] as Floats;
  const { lr, lamda1, beta, wd, clip: c, rescale } = p;
  for (let i = 0; i < idx.length; i++) {
    const base = (idx[i] as number) * rowLen;
    const gBase = i * rowLen;
    for (let j = 0; j < rowLen; j++) {
      const d = base + j;
      const gr = r((g[gBase + j] as number) * rescale);
      const cg = c >= 0 ? clip(gr, c) : gr;
      const sq = r(cg * cg);
      const nj = n[d] as number;
      const sigma = r(r(r(r(Math.sqrt(r(nj + sq))) - r(Math.sqrt(nj))) * (w[d] as number)) / lr);
      const zj = r((z[d] as number) + r(cg - sigma));
      const n2 = r(nj + sq);
      z[d] = zj;
      n[d] = n2;
      const num = r(r(sign(zj) * lamda1) - zj);
      const den = r(r(r(beta + r(Math.sqrt(n2))) / lr) + wd);
      w[d] = r(r(num / den) * (Math.abs(zj) > lamda1 ? 1 : 0));
    }
  }
}

/** AdagradDnsRspDnsKernel: `history += g^2; w -= g/sqrt(history + eps) * lr` on the gradient rows. */
export function adagradRows(a: RowArgs, p: Params): void {
  const { idx, g, w, r, rowLen } = a;
  const h = a.s[0] as Floats;
  const { lr, epsilon, clip: c, rescale } = p;
  for (let i = 0; i < idx.length; i++) {
    const base = (idx[i] as number) * rowLen;
    const gBase = i * rowLen;
    for (let j = 0; j < rowLen; j++) {
      const d = base + j;
      const gr0 = r((g[gBase + j] as number) * rescale);
      const gr = c >= 0 ? clip(gr0, c) : gr0;
      const hs = r((h[d] as number) + r(gr * gr));
      h[d] = hs;
      const div = r(gr / r(Math.sqrt(r(hs + epsilon))));
      w[d] = r((w[d] as number) - r(div * lr));
    }
  }
}

/**
 * GroupAdagradDnsRspKernel: per gradient row, `history[row] += mean(g^2)` (the sum of squares in
 * DType, divided by the row length), then `w -= lr*g/sqrt(history[row] + eps)`.
 */
export function groupAdagradRows(a: RowArgs, p: Params): void {
  const { idx, g, w, r, rowLen } = a;
  const h = a.s[0] as Floats;
  const { lr, epsilon, clip: c, rescale } = p;
  const scaled = (x: number): number => {
    const v = r(x * rescale);
    return c >= 0 ? clip(v, c) : v;
  };
  for (let i = 0; i < idx.length; i++) {
    const row = idx[i] as number;
    const base = row * rowLen;
    const gBase = i * rowLen;
    let ssq = 0;
    for (let j = 0; j < rowLen; j++) {
      const gr = scaled(g[gBase + j] as number);
      ssq = r(ssq + r(gr * gr));
    }
    const hs = r((h[row] as number) + r(ssq / rowLen));
    h[row] = hs;
    const root = r(Math.sqrt(r(hs + epsilon)));
    for (let j = 0; j < rowLen; j++) {
      const gr = scaled(g[gBase + j] as number);
      w[base + j] = r((w[base + j] as number) - r(r(lr * gr) / root));
    }
  }
}
