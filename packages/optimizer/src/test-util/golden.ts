/**
 * Test helpers shared by the golden tests: schedulers from the golden files' `{type, options}`
 * specs, and an element-wise closeness check that reports the worst element.
 */
import {
  CosineScheduler,
  FactorScheduler,
  type LRScheduler,
  MultiFactorScheduler,
  PolyScheduler,
} from '../lr-scheduler.js';

export interface SchedulerSpec {
  readonly type: string;
  readonly options: Record<string, unknown>;
}

/** A scheduler from the generator's spec (the options are the TS options, camelCase). */
export function makeScheduler(spec: SchedulerSpec | null): LRScheduler | undefined {
  if (spec === null) return undefined;
  const o = spec.options as never;
  switch (spec.type) {
    case 'factor':
      return new FactorScheduler(o);
    case 'multifactor':
      return new MultiFactorScheduler(o);
    case 'poly':
      return new PolyScheduler(o);
    case 'cosine':
      return new CosineScheduler(o);
    default:
      throw new Error(`unknown scheduler type ${spec.type}`);
  }
}

/**
 * The worst element of `got` vs `want` as `|got - want| / (atol + rtol*|want|)` (<= 1 passes), and
 * where it is; NaN anywhere counts as a failure.
 */
export function worst(
  got: ArrayLike<number>,
  want: readonly number[],
  atol: number,
  rtol: number,
): { ratio: number; at: number; got: number; want: number } {
  let r = { ratio: 0, at: -1, got: 0, want: 0 };
  if (got.length !== want.length)
    return { ratio: Number.POSITIVE_INFINITY, at: -1, got: got.length, want: want.length };
  for (let i = 0; i < want.length; i++) {
    const g = got[i] as number;
    const w = want[i] as number;
    const ratio = Number.isNaN(g) ? Number.POSITIVE_INFINITY : Math.abs(g - w) / (atol + rtol * Math.abs(w));
    if (ratio > r.ratio) r = { ratio, at: i, got: g, want: w };
  }
  return r;
}
