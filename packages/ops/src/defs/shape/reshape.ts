/**
 * Ops that change only the shape, never the data order: Reshape (MXNet's special codes 0, -1, -2,
 * -3, -4 and `reverse`), Flatten, expand_dims, squeeze and reshape_like (the shape of a second
 * input; also how their gradients reshape the head gradient back, since builders never read
 * shapes). The NDArray layer normally makes these views; the definitions still carry kernels'
 * shape inference for graphs and `req`, and declare the output an in-place identity of the input
 * (MXNet `FInplaceIdentity`).
 */
import { type MXNetError, type Shape, shapeToString } from '@mx/base';
import type { GradientSpec } from '../../gradient.js';
import type { ShapeSlots } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, checkAxis, known, prod, shapeError } from './common.js';

const identityInplace = {
  inplaceOption: () => [[0, 0]] as const,
  inplaceIdentity: () => [true],
};

/** The gradient of every shape-only op: the head gradient reshaped back to the input's shape. */
export const RESHAPE_BACK: GradientSpec = {
  inputs: [0],
  build: (g) => [g.op1('reshape_like', [g.ograd(0), g.input(0)])],
};

/** MXNet's reshape_like range: [begin, end) of a shape of rank `ndims`, with its checks. */
export function reshapeLikeRange(
  ndims: number,
  side: 'lhs' | 'rhs',
  begin: number | null,
  end: number | null,
  fail: (m: string) => MXNetError,
): [number, number] {
  let b = begin ?? 0;
  if (b < 0) b += ndims;
  let e = end ?? ndims;
  if (end !== null && e < 0) e += ndims;
  const show = (v: number | null) => (v === null ? 'None' : String(v));
  if (e > ndims) throw fail(`Invalid end for ${side}_end=${show(end)} as dimension number is ${ndims}`);
  // The whole of a zero-dim shape (NumPy semantics) is the empty range.
  if (!(b < e) && !(begin === null && end === null && ndims === 0))
    throw fail(`Invalid begin, end, get ${side}_begin=${show(begin)}, ${side}_end=${show(end)}`);
  if (e < 0) throw fail(`Invalid end for ${side}_end=${show(end)}`);
  if (b < 0) throw fail(`Invalid begin for ${side}_begin=${show(begin)}`);
  return [b, e];
}

/**
 * MXNet's reshape codes applied to a known input shape: 0 copies a dim, -1 infers one dim, -2
 * copies all remaining dims, -3 merges two dims, -4 splits one dim into the next two values (one
 * of which may be -1). With `reverse` the codes are matched from the right.
 */
export function inferReshapeShape(
  spec: readonly number[],
  dshape: Shape,
  reverse: boolean,
  fail: (msg: string, hint?: string) => Error,
): number[] {
  const d = reverse ? [...dshape].reverse() : [...dshape];
  const p = reverse ? [...spec].reverse() : [...spec];
  const tmp: number[] = [];
  let src = 0;
  let inf = -1;
  for (let i = 0; i < p.length; i++) {
    const v = p[i] as number;
    if (v === 0) {
      if (src >= d.length)
        throw fail(`shape code 0 at position ${i} has no input dimension to copy`, 'use fewer 0 codes');
      tmp.push(d[src++] as number);
    } else if (v === -1) {
      if (inf >= 0) throw fail('One and only one dim can be inferred', 'use -1 at most once');
      inf = tmp.length;
      tmp.push(1);
      src++;
    } else if (v === -2) {
      while (src < d.length) tmp.push(d[src++] as number);
    } else if (v === -3) {
      if (src + 1 >= d.length)
        throw fail(`shape code -3 at position ${i} needs two input dimensions to merge`);
      tmp.push((d[src] as number) * (d[src + 1] as number));
      src += 2;
    } else if (v === -4) {
      if (i + 2 >= p.length) throw fail('shape code -4 must be followed by two values');
      if (src >= d.length) throw fail(`shape code -4 at position ${i} has no input dimension to split`);
      const d0 = d[src++] as number;
      let d1 = p[++i] as number;
      let d2 = p[++i] as number;
      if (d1 === -1 && d2 === -1) throw fail('Split dims cannot both be -1.');
      if (d1 === -1) d1 = d2 === 0 ? 0 : Math.trunc(d0 / d2);
      if (d2 === -1) d2 = d1 === 0 ? 0 : Math.trunc(d0 / d1);
      if (d1 < 0 || d2 < 0 || d1 * d2 !== d0)
        throw fail(`Split dims ${d1}, ${d2} do not divide original dim ${d0}`);
      tmp.push(d1, d2);
    } else if (v > 0) {
      tmp.push(v);
      src++;
    } else {
      throw fail(`invalid shape code ${v}`, 'dims are > 0, or one of the codes 0, -1, -2, -3, -4');
    }
  }
  const size = prod(dshape);
  if (inf >= 0) {
    const rest = prod(tmp);
    if (rest === 0) throw fail('cannot infer the -1 dimension when the other dimensions multiply to 0');
    tmp[inf] = Math.floor(size / rest);
  }
  if (reverse) tmp.reverse();
  if (prod(tmp) !== size) {
    throw fail(
      `Target shape size is different to source. Target: ${shapeToString(tmp)} Source: ${shapeToString(dshape)}`,
      `the new shape must hold exactly ${size} elements`,
    );
  }
  return tmp;
}

/** MXNet `ReverseReshapeInferShape`: fill one unknown input dim from a known output. */
function backFill(inShapes: ShapeSlots, out: Shape): boolean {
  const s = inShapes[0];
  if (s === undefined) return false;
  const unknown = s.filter((d) => d < 0).length;
  if (unknown !== 1) return unknown === 0;
  const knownProd = s.reduce((a, d) => (d < 0 ? a : a * d), 1);
  inShapes[0] = s.map((d) => (d < 0 ? (knownProd === 0 ? 0 : prod(out) / knownProd) : d));
  return true;
}

function legacyTarget(dshape: Shape, target: readonly number[], keepHighest: boolean): number[] {
  const out = [...target];
  if (keepHighest && out.length > 0) out[0] = dshape[0] as number;
  const zeros: number[] = [];
  for (let i = keepHighest ? 1 : 0; i < out.length; i++) if (out[i] === 0) zeros.push(i);
  if (zeros.length === 1) {
    out[zeros[0] as number] = 1;
    const rest = prod(out);
    out[zeros[0] as number] = rest === 0 ? 0 : prod(dshape) / rest;
  }
  return out;
}

export function registerReshape(registry: OpRegistry): void {
  registry.define({
    name: 'Reshape',
    aliases: ['reshape'],
    doc: 'Reshapes the input array (a copy with the new shape; special codes 0, -1, -2, -3, -4).',
    params: {
      shape: P.tuple(P.int(), { default: Object.freeze([]) as readonly number[], doc: 'The target shape' }),
      reverse: P.bool({
        default: false,
        doc: 'If true then the special values are inferred from right to left',
      }),
      target_shape: P.optional(P.shape(), {
        doc: '(Deprecated! Use ``shape`` instead.) Target new shape. One and only one dim can be 0, in which case it will be inferred from the rest of dims',
      }),
      keep_highest: P.bool({
        default: false,
        doc: '(Deprecated! Use ``shape`` instead.) Whether keep the highest dim unchanged.',
      }),
    },
    ...identityInplace,
    gradient: RESHAPE_BACK,
    inferShape(attrs, inShapes, outShapes) {
      const dshape = inShapes[0];
      const fail = (msg: string, hint?: string) =>
        shapeError(
          'Reshape',
          msg,
          attrs,
          inShapes,
          hint ?? `input shape ${dshape ? shapeToString(dshape) : '?'}`,
        );
      let oshape: number[];
      if (attrs.shape.length > 0) {
        if (!known(dshape)) {
          const out = outShapes[0];
          return known(out) ? backFill(inShapes, out) && known(inShapes[0]) : false;
        }
        oshape = inferReshapeShape(attrs.shape, dshape, attrs.reverse, fail);
      } else if (attrs.target_shape !== null) {
        if (!known(dshape)) return false;
        oshape = legacyTarget(dshape, attrs.target_shape, attrs.keep_highest);
        if (prod(oshape) !== prod(dshape))
          throw fail(
            `Target shape size is different to source. Target: ${shapeToString(oshape)} Source: ${shapeToString(dshape)}`,
          );
      } else {
        const out = outShapes[0];
        if (!known(out)) return false;
        if (!backFill(inShapes, out) || !known(inShapes[0])) return false;
        if (prod(inShapes[0] as Shape) !== prod(out))
          throw fail(`Target shape size is different to source. Target: ${shapeToString(out)}`);
        return true;
      }
      assignShape('Reshape', outShapes, 0, oshape, attrs);
      return true;
    },
  });

  registry.define({
    name: 'Flatten',
    aliases: ['flatten', '_npx_batch_flatten'],
    doc: 'Flattens the input array into a 2-D array by collapsing the higher dimensions: (d0, d1*...*dk).',
    ...identityInplace,
    gradient: RESHAPE_BACK,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      if (d.length === 0)
        throw shapeError('Flatten', 'Flatten needs an input with at least 1 dimension', attrs, inShapes);
      assignShape('Flatten', outShapes, 0, [d[0] as number, prod(d, 1)], attrs);
      return true;
    },
  });

  registry.define({
    name: 'expand_dims',
    doc: 'Inserts a new axis of size 1 into the array shape.',
    params: {
      axis: P.int({
        doc: "Position where new axis is to be inserted. Suppose that the input `NDArray`'s dimension is `ndim`, the range of the inserted axis is `[-ndim, ndim]`",
      }),
    },
    ...identityInplace,
    gradient: RESHAPE_BACK,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const n = d.length;
      let axis = attrs.axis;
      if (axis < 0) axis += n + 1;
      if (axis < 0 || axis > n)
        throw shapeError(
          'expand_dims',
          `axis must be in the range [${-n - 1}, ${n}] (${attrs.axis} provided)`,
          attrs,
          inShapes,
        );
      assignShape('expand_dims', outShapes, 0, [...d.slice(0, axis), 1, ...d.slice(axis)], attrs);
      return true;
    },
  });

  registry.define({
    name: 'squeeze',
    doc: 'Removes axes of length one (all of them, or those in `axis`).',
    params: {
      axis: P.optional(P.tuple(P.int()), {
        doc: 'Selects a subset of the single-dimensional entries in the shape. If an axis is selected with shape entry greater than one, an error is raised.',
      }),
    },
    ...identityInplace,
    gradient: RESHAPE_BACK,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const n = d.length;
      const drop = new Array<boolean>(n).fill(false);
      if (attrs.axis !== null) {
        for (const a of attrs.axis) {
          const ax = checkAxis('squeeze', a, n, attrs, inShapes);
          if (d[ax] !== 1)
            throw shapeError(
              'squeeze',
              `cannot select an axis to squeeze out which has size=${d[ax]} not equal to one`,
              attrs,
              inShapes,
            );
          if (drop[ax]) throw shapeError('squeeze', 'duplicate value in axis', attrs, inShapes);
          drop[ax] = true;
        }
      } else {
        for (let i = 0; i < n; i++) drop[i] = d[i] === 1;
      }
      const out = d.filter((_, i) => !drop[i]);
      // MXNet's legacy squeeze keeps one axis when every axis is squeezed out: (1, 1) -> (1,).
      if (out.length === 0 && n > 0) out.push(1);
      assignShape('squeeze', outShapes, 0, out, attrs);
      return true;
    },
  });

  registry.define({
    name: 'reshape_like',
    aliases: ['_npx_reshape_like'],
    doc:
      'Reshapes lhs (or its dims [lhs_begin, lhs_end)) to the shape of rhs (or its dims [rhs_begin, ' +
      "rhs_end)); only rhs's shape is read. Negative indices count from the end, None means the end.",
    params: {
      lhs_begin: P.optional(P.int(), {
        doc: 'Defaults to 0. The beginning index along which the lhs dimensions are to be reshaped. Supports negative indices.',
      }),
      lhs_end: P.optional(P.int(), {
        doc: 'Defaults to None. The ending index along which the lhs dimensions are to be used for reshaping. Supports negative indices.',
      }),
      rhs_begin: P.optional(P.int(), {
        doc: 'Defaults to 0. The beginning index along which the rhs dimensions are to be used for reshaping. Supports negative indices.',
      }),
      rhs_end: P.optional(P.int(), {
        doc: 'Defaults to None. The ending index along which the rhs dimensions are to be used for reshaping. Supports negative indices.',
      }),
    },
    numInputs: 2,
    listInputNames: ['lhs', 'rhs'],
    ...identityInplace,
    ignoreInputs: () => [1],
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0] ?? outTypes[0];
      if (t === undefined) return false;
      inTypes[0] = t;
      outTypes[0] = t;
      return inTypes[1] !== undefined;
    },
    inferShape(attrs, inShapes, outShapes) {
      const l = inShapes[0];
      const r = inShapes[1];
      if (!known(l) || !known(r)) return false;
      const fail = (m: string) => shapeError('reshape_like', m, attrs, inShapes);
      const [lb, le] = reshapeLikeRange(l.length, 'lhs', attrs.lhs_begin, attrs.lhs_end, fail);
      const [rb, re] = reshapeLikeRange(r.length, 'rhs', attrs.rhs_begin, attrs.rhs_end, fail);
      const out = [...l.slice(0, lb), ...r.slice(rb, re), ...l.slice(le)];
      if (prod(out) !== prod(l))
        throw shapeError(
          'reshape_like',
          `Cannot reshape lhs with shape ${shapeToString(l)} to new shape ${shapeToString(out)} because they have different size.`,
          attrs,
          inShapes,
          'pick rhs dims (rhs_begin/rhs_end) holding as many elements as the lhs dims they replace',
        );
      assignShape('reshape_like', outShapes, 0, out, attrs);
      return true;
    },
    gradient: {
      inputs: [0],
      build: (g) => [g.op1('reshape_like', [g.ograd(0), g.input(0)]), null],
    },
  });
}
