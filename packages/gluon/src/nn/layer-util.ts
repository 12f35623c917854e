/**
 * Small helpers the conv, pooling, normalization and shuffle layers share: MXNet's "int or tuple"
 * arguments expanded per spatial axis (with the layer named when the length is wrong), Python's
 * tuple spelling for `toString` (MXNet's reprs print tuples), and the rank check that names the
 * layer and the shape it expected.
 */
import { MXNetError, shapeToString } from '@mx/base';

/** An MXNet "int or tuple of ints" argument. */
export type IntOrTuple = number | readonly number[];

/**
 * `value` as `n` integers (a number is repeated, as MXNet's layers do), checking the length and
 * that each entry is an integer >= `min`.
 */
export function expandTuple(
  layer: string,
  name: string,
  value: IntOrTuple,
  n: number,
  min: number,
): number[] {
  const out = typeof value === 'number' ? Array.from({ length: n }, () => value) : [...value];
  if (out.length !== n) {
    throw new MXNetError(
      `${layer}: ${name} must be a number or a list of ${n} ints, got (${out.join(', ')})`,
      {
        hint: `pass ${n} value(s), one per spatial axis`,
      },
    );
  }
  if (out.some((v) => !Number.isInteger(v) || v < min)) {
    throw new MXNetError(
      `${layer}: every ${name} value must be an integer >= ${min}, got (${out.join(', ')})`,
    );
  }
  return out;
}

/** Python's repr of a tuple: `(3,)`, `(3, 3)`. */
export function pyTuple(v: readonly number[]): string {
  return v.length === 1 ? `(${v[0]},)` : `(${v.join(', ')})`;
}

/** Throws unless `shape` has `rank` axes, naming the layer and the layout it expects. */
export function checkRank(layer: string, shape: readonly number[], rank: number, layout?: string): void {
  if (shape.length !== rank) {
    throw new MXNetError(
      `${layer} expects ${rank}-D input${layout === undefined ? '' : ` (${layout})`} but got input of shape ${shapeToString(shape)}`,
      { shapes: [shape], hint: `pass data with ${rank} axes` },
    );
  }
}

/** Throws unless `n` is a positive integer. */
export function checkPositive(layer: string, name: string, n: number): void {
  if (!Number.isInteger(n) || n <= 0)
    throw new MXNetError(`${layer}: ${name} must be a positive integer, got ${n}`);
}

/** Python's repr of a float: `1.0`, `0.9`, `1e-05`. */
export function pyFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-4 || a >= 1e16)) {
    const [m, e] = v.toExponential().split('e') as [string, string];
    const n = Number(e);
    return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return Number.isInteger(v) ? `${v}.0` : String(v);
}
