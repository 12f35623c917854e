/**
 * Convolution geometry as the implicit-GEMM shaders read it: sizes in the convolution's own terms
 * (a Deconvolution is described as the convolution it is the transpose of: its output is that
 * convolution's input), the spatial axes kept at their real count (1-3) so the generated index
 * math has no unit axes, and the uniform words every conv shader shares.
 */
import type { Attrs } from '@mx/ops';

export interface ConvAttrs extends Attrs {
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly dilate: readonly number[];
  readonly pad: readonly number[];
  readonly num_filter: number;
  readonly num_group: number;
  readonly no_bias: boolean;
}

export interface DeconvAttrs extends ConvAttrs {
  readonly adj: readonly number[];
  readonly target_shape: readonly number[];
}

/** Convolution from X (N, C, in...) to Y (N, F, out...) with G groups. */
export interface ConvGeom {
  readonly n: number;
  readonly groups: number;
  /** Input / output channels per group. */
  readonly cg: number;
  readonly mg: number;
  readonly in: readonly number[];
  readonly out: readonly number[];
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly dilate: readonly number[];
  readonly pad: readonly number[];
}

/** Expand 1-D/2-D tuples to [d, h, w]. */
export function to3(v: readonly number[], fill: number): [number, number, number] {
  const r = [fill, fill, fill];
  for (let i = 0; i < v.length; i++) r[3 - v.length + i] = v[i] as number;
  return r as [number, number, number];
}

const prod = (v: readonly number[]): number => v.reduce((a, b) => a * b, 1);
const orFill = (v: readonly number[], n: number, x: number): number[] =>
  v.length ? [...v] : Array(n).fill(x);

function windowGeom(
  p: ConvAttrs,
  x: readonly number[],
  y: readonly number[],
  pad: readonly number[],
): ConvGeom {
  const nd = p.kernel.length;
  return {
    n: x[0] as number,
    groups: p.num_group,
    cg: (x[1] as number) / p.num_group,
    mg: (y[1] as number) / p.num_group,
    in: x.slice(2),
    out: y.slice(2),
    kernel: [...p.kernel],
    stride: orFill(p.stride, nd, 1),
    dilate: orFill(p.dilate, nd, 1),
    pad: [...pad],
  };
}

/** Convolution of data (N, C, in...) into out (N, F, out...). */
export function convGeom(p: ConvAttrs, data: readonly number[], out: readonly number[]): ConvGeom {
  return windowGeom(p, data, out, orFill(p.pad, p.kernel.length, 0));
}

/** Deconvolution's pad per axis (MXNet InferPad: from target_shape when it is set). */
export function deconvPad(p: DeconvAttrs, inSpatial: readonly number[]): number[] {
  const nd = p.kernel.length;
  const stride = orFill(p.stride, nd, 1);
  const dilate = orFill(p.dilate, nd, 1);
  const pad = orFill(p.pad, nd, 0);
  if (!p.target_shape.some((x) => x !== 0)) return pad;
  return inSpatial.map((x, i) => {
    const total = (stride[i] as number) * (x - 1) + 1 + ((p.kernel[i] as number) - 1) * (dilate[i] as number);
    return (total - (p.target_shape[i] as number) + 1) >> 1;
  });
}

/** The convolution a Deconvolution of data (N, C, in...) into y (N, F, out...) is the transpose of. */
export function deconvGeom(p: DeconvAttrs, data: readonly number[], y: readonly number[]): ConvGeom {
  return windowGeom(p, y, data, deconvPad(p, data.slice(2)));
}

/** Sizes derived from a geometry. */
export function sizes(g: ConvGeom): { is: number; ns: number; ks: number; c: number; f: number } {
  return {
    is: prod(g.in),
    ns: prod(g.out),
    ks: prod(g.kernel),
    c: g.cg * g.groups,
    f: g.mg * g.groups,
  };
}

/** Uniform words shared by the conv shaders, from USER_WORDS of the GEMM skeleton on. */
export const CW = {
  N: 0,
  G: 1,
  CG: 2,
  MG: 3,
  NS: 4,
  IS: 5,
  KS: 6,
  OFF_X: 7,
  OFF_W: 8,
  OFF_Y: 9,
  OFF_BIAS: 10,
  /** Per spatial axis a: in, out, kernel, stride, dilate, pad at AXES + 6a + 0..5. */
  AXES: 11,
} as const;
export const CONV_WORDS = CW.AXES + 18;

/** The shared words of a geometry and element offsets. */
export function convWords(g: ConvGeom, off: { x: number; w: number; y: number; bias: number }): number[] {
  const s = sizes(g);
  const w = new Array<number>(CONV_WORDS).fill(0);
  w[CW.N] = g.n;
  w[CW.G] = g.groups;
  w[CW.CG] = g.cg;
  w[CW.MG] = g.mg;
  w[CW.NS] = s.ns;
  w[CW.IS] = s.is;
  w[CW.KS] = s.ks;
  w[CW.OFF_X] = off.x;
  w[CW.OFF_W] = off.w;
  w[CW.OFF_Y] = off.y;
  w[CW.OFF_BIAS] = off.bias;
  for (let a = 0; a < g.kernel.length; a++) {
    const b = CW.AXES + 6 * a;
    w[b] = g.in[a] as number;
    w[b + 1] = g.out[a] as number;
    w[b + 2] = g.kernel[a] as number;
    w[b + 3] = g.stride[a] as number;
    w[b + 4] = g.dilate[a] as number;
    w[b + 5] = g.pad[a] as number;
  }
  return w;
}
