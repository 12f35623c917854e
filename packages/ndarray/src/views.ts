/**
 * Geometry of the integer views (`NDArray.slice`, `NDArray.at`): bounds checked and normalised
 * once, here, for the three places that place a view — the eager view, its autograd record and
 * its deferred compute record — so they always agree on which elements a view covers.
 */
import { MXNetError } from '@mx/base';

/** Rows `[b, e)` of `slice(begin, end)` on the first axis; negative bounds count from the end. */
export function sliceRows(
  shape: readonly number[],
  begin: number,
  end: number | undefined,
): [number, number] {
  if (shape.length === 0)
    throw new MXNetError('cannot slice a zero-dim array', { op: 'slice', shapes: [shape] });
  if (!Number.isInteger(begin) || (end !== undefined && !Number.isInteger(end))) {
    throw new MXNetError(`slice bounds must be integers, got (${begin}, ${end})`, {
      op: 'slice',
      shapes: [shape],
    });
  }
  const n = shape[0] as number;
  const norm = (i: number) => (i < 0 ? Math.max(0, i + n) : Math.min(i, n));
  const b = norm(begin);
  return [b, Math.max(b, norm(end ?? n))];
}

/**
 * The element offset of `at(...indices)` and the indices made non-negative; an index out of
 * bounds, or too many indices, is an MXNetError.
 */
export function atIndex(
  shape: readonly number[],
  indices: readonly number[],
): { offset: number; begin: number[] } {
  if (indices.length > shape.length) {
    throw new MXNetError(`too many indices (${indices.length}) for an array of ${shape.length} dims`, {
      op: 'at',
      shapes: [shape],
    });
  }
  let offset = 0;
  let stride = shape.reduce((p, d) => p * d, 1);
  const begin: number[] = new Array(indices.length);
  for (let k = 0; k < indices.length; k++) {
    const n = shape[k] as number;
    const raw = indices[k] as number;
    const i = raw < 0 ? raw + n : raw;
    if (!Number.isInteger(raw) || i < 0 || i >= n) {
      throw new MXNetError(`index ${raw} is out of bounds for axis ${k} with size ${n}`, {
        op: 'at',
        shapes: [shape],
      });
    }
    stride = stride / n;
    offset += i * stride;
    begin[k] = i;
  }
  return { offset, begin };
}
