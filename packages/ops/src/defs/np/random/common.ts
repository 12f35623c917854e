/**
 * Shared pieces of MXNet 2.0's np samplers (src/operator/numpy/random/dist_common.h): the `size`
 * field (`dmlc::optional<Tuple<index_t>>`), the distribution parameters that are either a scalar
 * param or a tensor input (`input1`, `input2` in order, as MXNet's `FListInputNames` does), and the
 * two shape rules every sampler uses — `TwoparamsDistOpShape` (output = `size`, which the tensor
 * parameters must broadcast to; without `size`, the broadcast of the parameters) and
 * `UnaryDistOpShape` (the same with one parameter and no broadcasting check of its own).
 */
import { broadcastShapes, type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ResourceRequestKind, ShapeSlots, TypeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import { assignShape, known } from '../../init/common.js';

/** MXNet's np samplers request kRandom (one generator) and temp space. */
export const NP_SAMPLE_RESOURCES: readonly ResourceRequestKind[] = Object.freeze(['random', 'tempSpace']);

/** The `size` field: the output shape, or None for the parameters' broadcast shape. */
export const sizeParam = () =>
  P.optional(P.tuple(P.int()), {
    doc: 'Output shape. If the given shape is, e.g., (m, n, k), then m * n * k samples are drawn. Default is None, in which case a single value is returned.',
  });

/** The `ctx` field (only used for imperative calls; '' = the default device, as the init ops' `ctx`). */
export const npCtxParam = () =>
  P.string({
    default: '',
    doc: 'Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.',
  });

/** A distribution parameter given as a scalar param, or None when it is a tensor input. */
export const distParam = (doc: string, dflt: number | null = null) =>
  P.optional(P.float(), { default: dflt, doc });

/** The float `dtype` field of uniform/normal/gamma/laplace (None: float32, MXNet's default dtype off np mode). */
export const floatDtypeParam = () =>
  P.enum(['None', 'float32', 'float64', 'float16'] as const, {
    default: 'None',
    doc: "DType of the output in case this can't be inferred. Defaults to float32 or float64 if not defined (dtype=None).",
  });

/** Which of the named parameters are tensor inputs (their param is None), in input order. */
export function tensorParams(attrs: Readonly<Record<string, unknown>>, names: readonly string[]): string[] {
  return names.filter((n) => attrs[n] === null || attrs[n] === undefined);
}

/** MXNet's input names: none, `input1`, or `input1, input2`. */
export function inputNames(count: number): readonly string[] {
  return ['input1', 'input2'].slice(0, count);
}

function shapeError(op: string, message: string, shapes: Shape[], hint: string): MXNetError {
  return new MXNetError(message, { op, shapes, hint });
}

/** MXNet `CheckBroadcastable(from, to)`: `from` broadcasts to `to` without changing `to`. */
export function checkBroadcastable(op: string, from: Shape, to: Shape): void {
  const off = to.length - from.length;
  const bad =
    off < 0 ||
    from.some((d, i) => {
      const t = to[off + i] as number;
      return d !== t && d !== 1 && d >= 0 && t >= 0;
    });
  if (bad) {
    throw shapeError(
      op,
      `operands could not be broadcast together with shapes ${shapeToString(from)} ${shapeToString(to)}`,
      [from, to],
      'each tensor parameter must broadcast to size (NumPy rules)',
    );
  }
}

/** `size` checked: non-negative dims. */
function sizeShape(op: string, size: readonly number[]): Shape {
  for (const d of size) {
    if (d < 0) {
      throw new MXNetError(`negative dimensions are not allowed (size ${shapeToString(size)})`, {
        op,
        params: { size: shapeToString(size) },
        hint: 'size dims must be integers >= 0',
      });
    }
  }
  return [...size];
}

/**
 * MXNet `TwoparamsDistOpShape` / `UnaryDistOpShape` for `nOut` outputs (the hidden noise output has
 * the sample's shape). Returns true once the output shape is known.
 */
export function distShape(
  op: string,
  size: readonly number[] | null,
  ins: ShapeSlots,
  outs: ShapeSlots,
  nOut = 1,
): boolean {
  if (size !== null) {
    const out = sizeShape(op, size);
    assignShape(op, outs, 0, out);
    for (const s of ins) if (known(s)) checkBroadcastable(op, s, out);
  } else {
    if (!ins.every(known)) return false;
    let out: Shape;
    try {
      out = broadcastShapes(...(ins as Shape[]));
    } catch {
      throw shapeError(
        op,
        `operands could not be broadcast together with shapes ${ins.map((s) => shapeToString(s as Shape)).join(' ')}`,
        ins as Shape[],
        'the tensor parameters must broadcast together (NumPy rules)',
      );
    }
    assignShape(op, outs, 0, out);
  }
  for (let i = 1; i < nOut; i++) assignShape(op, outs, i, outs[0] as Shape, 'noise output');
  return known(outs[0]);
}

/** Every output takes `dtype` (MXNet's sampler `FInferType`s ignore the input dtypes). */
export function distType(op: string, dtype: DTypeName, outs: TypeSlots, nOut = 1): boolean {
  for (let i = 0; i < nOut; i++) {
    const cur = outs[i];
    if (cur !== undefined && cur !== dtype) {
      throw new MXNetError(`Type inconsistent, Provided = ${cur}, inferred type = ${dtype}`, {
        op,
        dtypes: [cur],
        hint: `the output of ${op} is ${dtype}; pass dtype='${cur}' where the op has a dtype param`,
      });
    }
    outs[i] = dtype;
  }
  return true;
}

/** The output dtype of a `floatDtypeParam`: the param, float32 for None. */
export function floatOut(dtype: string): DTypeName {
  return dtype === 'None' ? 'float32' : (dtype as DTypeName);
}
