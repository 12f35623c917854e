/**
 * Shared pieces of the np creation ops: NumPy's "negative dimensions" check, the `dtype` param
 * with MXNet 2.0's `None` default, and `via`, which makes an `_npi_*` op's kernel from a legacy
 * op's kernel on the same backend (MXNet 2.0 registers both names on one FCompute: `_npi_zeros`
 * is `FillCompute<cpu, 0>` like `_zeros`), mapping the params and, for `diagflat`, the blob shapes.
 * So both backends run these ops wherever they run the legacy one, with no second kernel to keep.
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { OpDef } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { Attrs, Kernel, TBlob } from '../../../types.js';

/** NumPy's error for a negative length (`np.zeros(-1)`, `np.eye(-2)`). */
export function checkDims(op: string, dims: readonly number[], params: Record<string, unknown>): void {
  if (dims.some((d) => d < 0)) {
    throw new MXNetError('negative dimensions are not allowed', {
      op,
      params,
      hint: 'lengths of a new array are integers >= 0',
    });
  }
}

/** MXNet 2.0's `dtype` field of the np creation ops: `None` (the op's default dtype) or a dtype. */
export const npDtypeParam = (doc = 'Target data type.'): ReturnType<typeof P.dtype> =>
  P.dtype({ default: null, doc });

type CompositeKernel = NonNullable<OpDef['compositeKernel']>;

/** How `via` maps one call onto the legacy kernel. */
export interface ViaMap<A> {
  /** The legacy op's params for these `_npi_*` params. */
  readonly attrs: (a: A) => Attrs;
  /** Inputs as the legacy kernel sees them (e.g. reshaped); default unchanged. */
  readonly inputs?: (a: A, ins: readonly TBlob[]) => readonly TBlob[];
  /** Outputs as the legacy kernel sees them; default unchanged. */
  readonly outputs?: (a: A, outs: readonly TBlob[]) => readonly TBlob[];
}

/** A kernel that runs `target`'s kernel with mapped params and blobs. */
export function via<A>(target: string, map: ViaMap<A>): CompositeKernel {
  return (kernelOf) => {
    const k = kernelOf(target);
    const compute = k?.compute;
    if (k === undefined || compute === undefined) return undefined;
    const ins = map.inputs ?? ((_a: A, x: readonly TBlob[]) => x);
    const outs = map.outputs ?? ((_a: A, x: readonly TBlob[]) => x);
    const check = k.checkDTypes;
    const kernel: Kernel = {
      ...(k.execType !== undefined ? { execType: k.execType } : {}),
      ...(k.dtypes !== undefined ? { dtypes: k.dtypes } : {}),
      ...(check !== undefined
        ? {
            checkDTypes: (a: Attrs, i: readonly DTypeName[], o: readonly DTypeName[]) =>
              check(map.attrs(a as A), i, o),
          }
        : {}),
      compute: (a, ctx, i, req, o) => compute(map.attrs(a as A), ctx, ins(a as A, i), req, outs(a as A, o)),
    };
    return kernel;
  };
}

/** `b` seen as a 1-D blob of its size (a contiguous blob's flattening). */
export function flat(b: TBlob): TBlob {
  return { ...b, shape: [b.size] as Shape };
}
