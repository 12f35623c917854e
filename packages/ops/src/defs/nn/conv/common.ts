/**
 * What Convolution, Deconvolution and Pooling share: MXNet's parameter normalisation (an empty
 * stride/dilate/pad means 1/1/0 per spatial axis, set by the param parsers of convolution.cc,
 * deconvolution.cc and pooling.cc), the layout rules, and a slot writer that merges partially known
 * shapes (-1 = unknown dim) and explains a mismatch with the op's params, so the user sees which
 * param or input to change.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots } from '../../../op-def.js';

/** Channel-first layout name for 1, 2 and 3 spatial axes. */
export const CHANNEL_FIRST = ['NCW', 'NCHW', 'NCDHW'] as const;
/** Every layout name MXNet's Convolution/Deconvolution accept as a param value. */
export const CONV_LAYOUTS = ['NCW', 'NCHW', 'NCDHW', 'NHWC', 'NDHWC'] as const;
/** Every layout name MXNet's Pooling accepts. */
export const POOL_LAYOUTS = ['NCW', 'NCHW', 'NCDHW', 'NWC', 'NHWC', 'NDHWC'] as const;

/** The op's params as given (for error context). */
export type ParamView = Readonly<Record<string, unknown>>;

export function fmt(s: readonly number[]): string {
  return shapeToString(s);
}

/** `(1, 1)`-style defaulting of an optional per-axis tuple, with MXNet's length check. */
export function perAxis(
  op: string,
  name: string,
  what: string,
  value: readonly number[],
  kernel: readonly number[],
  dflt: number,
  params: ParamView,
): number[] {
  if (value.length === 0) return kernel.map(() => dflt);
  if (value.length !== kernel.length) {
    throw new MXNetError(
      `${what} must have the same number of dimensions with kernel_size, but kernel_size is set to ${fmt(kernel)} while ${name} is ${fmt(value)}`,
      { op, params, hint: `pass ${name} with ${kernel.length} value(s), one per spatial axis` },
    );
  }
  return [...value];
}

/** Throws unless every entry is >= min (kernel/stride/dilate > 0, pad >= 0). */
export function checkMin(
  op: string,
  name: string,
  value: readonly number[],
  min: number,
  params: ParamView,
): void {
  if (value.some((v) => v < min)) {
    throw new MXNetError(`incorrect ${name} size: ${fmt(value)}`, {
      op,
      params,
      hint: `every ${name} value must be ${min === 0 ? 'non-negative' : `at least ${min}`}`,
    });
  }
}

/**
 * Fill slot `i` with `shape`, or merge it with a partially known shape already there; a
 * contradiction is an MXNetError naming the slot, both shapes, the data shape and the params.
 */
export function assignSlot(
  op: string,
  slots: ShapeSlots,
  i: number,
  shape: Shape,
  what: string,
  context: { readonly params: ParamView; readonly data?: Shape; readonly hint?: string },
): void {
  const have = slots[i];
  if (have === undefined) {
    slots[i] = [...shape];
    return;
  }
  const ok =
    have.length === shape.length && have.every((d, j) => d < 0 || (shape[j] as number) < 0 || d === shape[j]);
  if (!ok) {
    const data = context.data ? ` for data ${fmt(context.data)}` : '';
    throw new MXNetError(`${what} shape mismatch: got ${fmt(have)} but ${op} expects ${fmt(shape)}${data}`, {
      op,
      params: context.params,
      shapes: [have, shape],
      hint: context.hint ?? `pass a ${what} of shape ${fmt(shape)}, or change the params`,
    });
  }
  slots[i] = have.map((d, j) => (d < 0 ? (shape[j] as number) : d));
}

/** True when the shape and all its dims are known. */
export function known(s: Shape | undefined): s is Shape {
  return s?.every((d) => d >= 0) === true;
}
