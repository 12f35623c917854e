/**
 * Convolution geometry as the im2col/col2im kernels read it: every convolution is described in its
 * own terms (a Deconvolution as the convolution it is the transpose of: the deconvolution's output
 * is that convolution's input), with 1-D/2-D spatial axes padded to 3-D with unit leading axes so one
 * kernel source serves every rank, and the MxDims triples the kernels take. Mirrors cpu-wasm's
 * convGeom/deconvGeom (MXNet's InferPad for target_shape).
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

type V3 = readonly [number, number, number];

/** Convolution from X (n, groups·cg, in...) to Y (n, groups·mg, out...). */
export interface ConvGeom {
  readonly n: number;
  readonly groups: number;
  readonly cg: number;
  readonly mg: number;
  readonly in: V3;
  readonly out: V3;
  readonly kernel: V3;
  readonly stride: V3;
  readonly dilate: V3;
  readonly pad: V3;
}

/** Expand 1-D/2-D tuples to [d, h, w]. */
export function to3(v: readonly number[], fill: number): [number, number, number] {
  const r = [fill, fill, fill];
  for (let i = 0; i < v.length; i++) r[3 - v.length + i] = v[i] as number;
  return r as [number, number, number];
}

const orFill = (v: readonly number[], n: number, x: number): readonly number[] =>
  v.length ? v : Array<number>(n).fill(x);

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
    in: to3(x.slice(2), 1),
    out: to3(y.slice(2), 1),
    kernel: to3(p.kernel, 1),
    stride: to3(orFill(p.stride, nd, 1), 1),
    dilate: to3(orFill(p.dilate, nd, 1), 1),
    pad: to3(pad, 0),
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
  if (!p.target_shape.some((x) => x !== 0)) return [...pad];
  return inSpatial.map((x, i) => {
    const total = (stride[i] as number) * (x - 1) + 1 + ((p.kernel[i] as number) - 1) * (dilate[i] as number);
    return (total - (p.target_shape[i] as number) + 1) >> 1;
  });
}

/** The convolution a Deconvolution of data (N, C, in...) into y (N, F, out...) is the transpose of. */
export function deconvGeom(p: DeconvAttrs, data: readonly number[], y: readonly number[]): ConvGeom {
  return windowGeom(p, y, data, deconvPad(p, data.slice(2)));
}

const prod = (v: readonly number[]): number => v.reduce((a, b) => a * b, 1);

/** Derived sizes: input/output/kernel positions, channels C = groups·cg and filters F = groups·mg. */
export function sizes(g: ConvGeom): { is: number; ns: number; ks: number; c: number; f: number } {
  return { is: prod(g.in), ns: prod(g.out), ks: prod(g.kernel), c: g.cg * g.groups, f: g.mg * g.groups };
}

/** The three MxDims the im2col/col2im kernels take: [in, out, C], [kernel, dilate], [stride, pad]. */
export function geomDims(g: ConvGeom): [number[], number[], number[]] {
  return [
    [...g.in, ...g.out, g.cg * g.groups],
    [...g.kernel, ...g.dilate],
    [...g.stride, ...g.pad],
  ];
}

/** A 1×1 window with unit stride and no pad: the column matrix of an image is the image itself. */
export function isPointwise(g: ConvGeom): boolean {
  return g.kernel.every((k) => k === 1) && g.stride.every((s) => s === 1) && g.pad.every((p) => p === 0);
}
