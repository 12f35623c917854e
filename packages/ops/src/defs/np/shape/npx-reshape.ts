/**
 * `_npx_reshape` (alias `_npi_reshape`): MXNet 2.0's `npx.reshape`, whose special codes differ from
 * the legacy Reshape's — -1 infers a dim, -2 copies one input dim, -3 drops an input dim of size 1,
 * -4 copies every remaining input dim, -5 merges two input dims, -6 splits one into the next two
 * values (one of them may be -1); `reverse` matches the codes from the right. The data never moves,
 * so the op's kernel is the backend's Reshape copy (a composite) and the np layer makes a view; the
 * op exists so a traced graph keeps the codes, as MXNet 2.0's deferred compute records them.
 */
import { type Shape, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known, prod, shapeError } from '../../shape/common.js';
import { RESHAPE_BACK } from '../../shape/reshape.js';
import { composite } from './composite.js';

const show = (s: readonly number[]) => `(${s.join(',')}${s.length === 1 ? ',' : ''})`;

/** The codes matched left to right over `src` (MXNet `NumpyXReshapeInferShape`). */
function forward(src: Shape, target: readonly number[], fail: (msg: string) => Error): number[] {
  if (target.every((d) => d >= 0)) {
    if (prod(target) !== prod(src)) throw fail('the sizes differ');
    return [...target];
  }
  const out: number[] = [];
  let unknown = -1;
  let s = 0;
  const take = (code: number): number => {
    if (s >= src.length) throw fail(`code ${code} has no input dimension left to read`);
    return src[s++] as number;
  };
  const infer = (at: number) => {
    if (unknown >= 0) throw fail('One and only one dim can be inferred');
    unknown = at;
  };
  for (let i = 0; i < target.length; i++) {
    const v = target[i] as number;
    if (v === -1) {
      infer(out.length);
      out.push(-1);
      s++;
    } else if (v === -2) {
      out.push(take(v));
    } else if (v === -3) {
      if (take(v) !== 1) throw fail('-3 index should only be used to skip dimension size 1');
    } else if (v === -4) {
      while (s < src.length) out.push(src[s++] as number);
    } else if (v === -5) {
      if (s + 1 >= src.length) throw fail('Not enough dimensions left for the product');
      out.push((src[s] as number) * (src[s + 1] as number));
      s += 2;
    } else if (v === -6) {
      if (i + 2 >= target.length) throw fail('-6 must be followed by the two dims to split into');
      const d0 = take(v);
      let d1 = target[++i] as number;
      let d2 = target[++i] as number;
      if (d1 === -1 && d2 === -1) throw fail('Split dims cannot both be -1.');
      if (d1 === -1) d1 = d2 === 0 ? 0 : Math.trunc(d0 / d2);
      if (d2 === -1) d2 = d1 === 0 ? 0 : Math.trunc(d0 / d1);
      if (d1 < 0 || d2 < 0 || d1 * d2 !== d0)
        throw fail(`Split dims ${d1}, ${d2} do not divide original dim ${d0}`);
      out.push(d1, d2);
    } else if (v >= 0) {
      out.push(v);
      s++;
    } else {
      throw fail(`Dimension size must be greater than or equal to -6, received ${v}`);
    }
  }
  if (unknown >= 0) {
    const rest = out.reduce((a, d, i) => (i === unknown ? a : a * d), 1);
    if (rest === 0 || prod(src) % rest !== 0) throw fail('the -1 dimension cannot be inferred');
    out[unknown] = prod(src) / rest;
  }
  if (prod(out) !== prod(src)) throw fail('the sizes differ');
  return out;
}

/**
 * The shape `npx.reshape(a, newshape, {reverse})` gives an input of shape `src` (MXNet 2.0's
 * rules); `fail` builds the error for a code that does not fit.
 */
export function npxReshapeShape(
  src: Shape,
  newshape: readonly number[],
  reverse: boolean,
  fail: (msg: string) => Error,
): number[] {
  const wrap = (msg: string) =>
    fail(
      `Cannot reshape array of shape ${show(src)} into shape ${show(newshape)} , reverse = ${reverse ? 1 : 0}: ${msg}`,
    );
  if (newshape.filter((d) => d === -1).length > 1) throw wrap('Can only specify one unknown dimension');
  if (!reverse) return forward(src, newshape, wrap);
  return forward([...src].reverse(), [...newshape].reverse(), wrap).reverse();
}

export function registerNpxReshape(registry: OpRegistry): void {
  const op = '_npx_reshape';
  registry.define({
    name: op,
    aliases: ['_npi_reshape'],
    doc:
      'Reshapes without moving data, with MXNet 2.0 npx codes: -1 infer, -2 copy a dim, -3 drop a size-1 ' +
      'dim, -4 copy the remaining dims, -5 merge two dims, -6 split a dim into the next two values.',
    params: {
      newshape: P.tuple(P.int(), {
        doc:
          'The new shape should be compatible with the original shape. One dim can be -1 (inferred); ' +
          '-2 to -6 are the special codes.',
      }),
      reverse: P.bool({
        default: false,
        doc: 'If true then the special values are inferred from right to left',
      }),
      order: P.string({ default: 'C', doc: "Read and place the elements in this index order (only 'C')." }),
    },
    listInputNames: ['a'],
    inplaceOption: () => [[0, 0]] as const,
    inplaceIdentity: () => [true],
    gradient: RESHAPE_BACK,
    inferShape(attrs, inShapes, outShapes) {
      if (attrs.order !== 'C')
        throw shapeError(op, `order='${attrs.order}' is not supported`, attrs, inShapes, "use order='C'");
      const src = inShapes[0];
      if (!known(src)) return false;
      const out = npxReshapeShape(src, attrs.newshape, attrs.reverse, (m) =>
        shapeError(op, m, attrs, inShapes, `input shape ${shapeToString(src)}`),
      );
      assignShape(op, outShapes, 0, out, attrs);
      return true;
    },
    compositeKernel: composite<Readonly<Record<string, unknown>>>(['Reshape'], (_a, inputs, req, outputs) => [
      {
        kernel: 'Reshape',
        attrs: {
          shape: (outputs[0] as (typeof outputs)[0]).shape,
          reverse: false,
          target_shape: null,
          keep_highest: false,
        },
        inputs,
        req,
        outputs,
      },
    ]),
  });
}
