/**
 * Dtype inference of MXNet 2.0's NumPy elementwise ops. Binary array ops promote their operands
 * (NumPy's table, `promoteTypes` from @mx/base: MXNet's `MXNET_OPERATOR_REGISTER_NP_BINARY_MIXED_PRECISION`
 * ops), then a rule maps the promoted dtype to the output: `same`, `float` (integer/bool results
 * become float32, MXNet's default float; the np layer casts to float64 first under
 * `npx.setNp({ dtype: true })` so the op never reads a flag), `bool` (comparisons, logic,
 * predicates) and `int` (bitwise ops: integer or bool operands only). Scalar ops follow
 * `NumpyBinaryScalarType` (legacy common.ts) for `same`.
 */
import { broadcastShapes, DType, type DTypeName, isShapeKnown, MXNetError, promoteTypes } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { assignType, scalarType } from '../../elementwise/common.js';

/** How an op's output dtype follows from its (promoted) input dtype. */
export type ResultRule = 'same' | 'float' | 'bool' | 'int';

const isFloat = (t: DTypeName): boolean => DType[t].kind === 'f';

/** The output dtype of `rule` applied to the promoted input dtype `t`. */
export function ruleDtype(op: string, rule: ResultRule, t: DTypeName): DTypeName {
  switch (rule) {
    case 'same':
      return t;
    case 'float':
      return isFloat(t) ? t : 'float32';
    case 'bool':
      return 'bool';
    case 'int':
      if (isFloat(t)) {
        throw new MXNetError(
          `ufunc '${op.replace(/^_npi_/, '').replace(/_scalar$/, '')}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''`,
          { op, dtypes: [t], hint: 'bitwise ops take integer or bool arrays; cast with astype()' },
        );
      }
      return t;
    default:
      return rule satisfies never;
  }
}

/** Type inference of a binary array op: promote both inputs, then apply `rule`. */
export function binaryType(op: string, rule: ResultRule) {
  return (_attrs: unknown, inT: TypeSlots, outT: TypeSlots): boolean => {
    const a = inT[0];
    const b = inT[1];
    if (a === undefined || b === undefined) return false;
    assignType(op, outT, 0, ruleDtype(op, rule, promoteTypes(a, b)), 'output');
    return true;
  };
}

/** Type inference of an array-with-scalar op (`scalar`, `is_int` params). */
export function scalarOpType(op: string, rule: ResultRule) {
  return (attrs: { readonly is_int: boolean }, inT: TypeSlots, outT: TypeSlots): boolean => {
    if (rule === 'same') return scalarType(op, attrs, inT, outT);
    const a = inT[0];
    if (a === undefined) return false;
    let t = a;
    // An integer/bool array with a non-integer scalar computes in float64 (NumpyBinaryScalarType).
    if (!isFloat(a) && !attrs.is_int && rule !== 'int') t = 'float64';
    if (rule === 'int' && !attrs.is_int) ruleDtype(op, 'int', 'float64');
    assignType(op, outT, 0, ruleDtype(op, rule, t), 'output');
    return true;
  };
}

/** Type inference of a unary op. */
export function unaryType(op: string, rule: ResultRule) {
  return (_attrs: unknown, inT: TypeSlots, outT: TypeSlots): boolean => {
    const a = inT[0];
    if (a === undefined) return false;
    assignType(op, outT, 0, ruleDtype(op, rule, a), 'output');
    return true;
  };
}

const numpyShape = (s: readonly number[]): string => `(${s.join(',')}${s.length === 1 ? ',' : ''})`;

/**
 * NumPy broadcasting of the two inputs with NumPy's error text (`operands could not be broadcast
 * together with shapes (2,3) (4,)`), so np calls and graphs fail with the message NumPy users know.
 */
export function npBroadcastShape(op: string) {
  return (attrs: Readonly<Record<string, unknown>>, inS: ShapeSlots, outS: ShapeSlots): boolean => {
    const a = inS[0];
    const b = inS[1];
    if (a === undefined || b === undefined) return false;
    let out: number[];
    try {
      out = broadcastShapes(a, b);
    } catch (e) {
      throw new MXNetError(
        `operands could not be broadcast together with shapes ${numpyShape(a)} ${numpyShape(b)}`,
        {
          op,
          params: attrs,
          shapes: [a, b],
          hint: 'dimensions must be equal or 1, aligned from the right',
          cause: e,
        },
      );
    }
    const cur = outS[0];
    if (cur !== undefined && (cur.length !== out.length || cur.some((d, i) => d >= 0 && d !== out[i]))) {
      throw new MXNetError(
        `non-broadcastable output operand with shape ${numpyShape(cur)} doesn't match the broadcast shape ${numpyShape(out)}`,
        { op, params: attrs, shapes: [a, b], hint: `give the output the shape ${numpyShape(out)}` },
      );
    }
    outS[0] = out;
    return isShapeKnown(out);
  };
}
