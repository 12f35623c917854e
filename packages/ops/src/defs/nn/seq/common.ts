/**
 * Shared pieces of the seq family's definitions (Embedding, Sequence*, UpSampling, CTCLoss): one
 * error constructor carrying the op, params and shapes (MXNet's CHECK texts as the message, so users
 * can search for them), dtype checks for ops whose float data sits beside index-like inputs, and
 * the gradient shape of the backward ops that only produce the meaningful input gradients.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { shapeError } from '../../shape/common.js';

export { assignShape, known, prod } from '../../shape/common.js';

/** An MXNetError for a seq-family op, with its params and input shapes. */
export function seqError(
  op: string,
  message: string,
  attrs: Readonly<Record<string, unknown>>,
  inShapes: ShapeSlots,
  hint?: string,
): MXNetError {
  return shapeError(op, message, attrs, inShapes, hint);
}

export const FLOAT_DTYPES: readonly DTypeName[] = Object.freeze(['float32', 'float64']);

/** Throws unless `t` is float32 or float64 (the dtypes the seq family computes gradients in). */
export function requireFloat(op: string, what: string, t: DTypeName, inTypes: TypeSlots): void {
  if (!FLOAT_DTYPES.includes(t)) {
    throw new MXNetError(`needs float32 or float64 ${what}, got ${t}`, {
      op,
      dtypes: inTypes.map((d) => d ?? 'unknown'),
      hint: `cast ${what} with astype('float32')`,
    });
  }
}

/**
 * inferType of ops whose output has the dtype of input 0 and whose other inputs (sequence lengths,
 * "like" shape donors) may have any dtype; unknown extra inputs take input 0's dtype, as MXNet's
 * sequence ops do.
 */
export function dataTypeOthersAny(_attrs: unknown, inTypes: TypeSlots, outTypes: TypeSlots): boolean {
  const t = inTypes[0];
  if (t === undefined) return false;
  for (let i = 1; i < inTypes.length; i++) if (inTypes[i] === undefined) inTypes[i] = t;
  outTypes.fill(t);
  return true;
}
