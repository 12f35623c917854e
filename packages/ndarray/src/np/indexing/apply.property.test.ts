/**
 * fast-check (seed 1616, 2000 runs per property, ~5 s): `getIndex` / `setIndex` through the real ops on cpu-wasm
 * (slice, views, `_npi_boolean_mask`, `_npx_nonzero`, `gather_nd`, `_slice_assign*`,
 * `_scatter_set_nd`, the mask assignments) against the pure reference indexer (`getRef` /
 * `setRef`, itself checked against a brute-force NumPy definition and NumPy's recorded cases).
 * Random shapes up to 4-D; keys of ints, slices of every step sign, None, ellipses, scalar
 * booleans, integer arrays (int32/int64, negative and out-of-range values, repeats) and boolean
 * masks, alone or mixed. Index arrays go in as device np arrays (the kernels' data-dependent
 * checks) or, when they can be, JS lists (the planner's host checks). Both sides must agree on
 * the result or both refuse with an MXNetError; a refused `set` leaves x unchanged. Everything
 * runs under the runtime's leak check.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { NDArray } from '../../ndarray.js';
import { createRuntime } from '../../runtime.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { getIndex, type NpIndexItem, setIndex } from './apply.js';
import { planIndex } from './plan.js';
import { getRef, setRef } from './reference.js';
import { isArr, maskItem, nestedList, numbers, size } from './test-util.js';
import { ellipsis, type IndexItem, s } from './types.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const c = new NpContext(rt, new NpFlags());
afterAll(() => rt.dispose());

const SEED = 1616;

/** A key for `shape` drawn from a tape of naturals (fast-check shrinks the tape). */
function buildKey(shape: readonly number[], tape: readonly number[]): IndexItem[] {
  let t = 0;
  const next = (n: number) => (tape[t++ % tape.length] as number) % n;
  const key: IndexItem[] = [];
  let axis = 0;
  const len = next(shape.length + 2) + (next(4) === 0 ? 1 : 0);
  for (let i = 0; i < len; i++) {
    const n = shape[axis] ?? 2;
    const u = next(20);
    if (u < 2) key.push(null);
    else if (u < 3) key.push(ellipsis);
    else if (u < 4) key.push(next(4) !== 0);
    else if (u < 7) {
      // Mostly in range, sometimes one past either end.
      key.push(next(2 * n + 2) - n - 1);
      axis++;
    } else if (u < 11) {
      const part = () => (next(3) === 0 ? null : next(2 * n + 5) - n - 2);
      key.push(s(part(), part(), [null, 1, 2, 3, -1, -2, -3][next(7)] as number | null));
      axis++;
    } else if (u < 16) {
      const ashape = ([[], [1], [2], [3], [2, 1], [1, 2], [2, 2], [0], [4]] as number[][])[
        next(9)
      ] as number[];
      key.push({
        kind: 'array',
        shape: ashape,
        dtype: next(2) === 0 ? 'int64' : 'int32',
        // In [-n - 1, n]: negative wraps, and now and then one is out of range.
        values: Array.from({ length: size(ashape) }, () => next(2 * n + 2) - n - 1),
      });
      axis++;
    } else {
      const mask = maskItem(next, shape, axis, n, 10);
      key.push(mask);
      axis += mask.shape.length;
    }
  }
  return key;
}

/**
 * The key for `getIndex` / `setIndex`: arrays as device np arrays (pushed to `temps`), or as JS
 * nested lists when `host` and the array has a non-empty, non-0-d shape.
 */
function toNpKey(key: readonly IndexItem[], host: boolean, temps: NDArray[]): NpIndexItem[] {
  return key.map((k) => {
    if (!isArr(k)) return k;
    const vals = Array.from(k.values ?? [], (v) => (k.dtype === 'bool' ? Boolean(v) : Number(v)));
    if (host && k.shape.length > 0 && !k.shape.includes(0)) return nestedList(k.shape, vals) as NpIndexItem;
    const flat = c.fromValues(vals as never, k.dtype as 'bool');
    temps.push(flat);
    if (k.shape.length === 1) return flat;
    const shaped = c.view(flat, k.shape);
    temps.push(shaped);
    return shaped;
  });
}

/** An np array of `shape` holding `values` (float64, or int32 for `int`). */
function source(
  shape: readonly number[],
  values: readonly number[],
  int: boolean,
  temps: NDArray[],
): NDArray {
  const flat = c.fromValues([...values], int ? 'int32' : 'float64');
  if (shape.length === 1) return flat;
  temps.push(flat);
  return c.view(flat, shape);
}

function outcome<T>(f: () => T): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * NumPy 1.24 lets an out-of-range index array through when the result has no elements (a
 * DeprecationWarning; later NumPy raises, as the reference indexer does): both are accepted there.
 */
function emptyOutOfBounds(refError: unknown, resultSize: number): boolean {
  return resultSize === 0 && refError instanceof MXNetError && /out of bounds/.test(refError.message);
}

/** The element count of the region `key` selects, planned without bounds checks (0 or more). */
function emptyRegion(shape: readonly number[], key: readonly IndexItem[]): number {
  const hidden = key.map((k) => (isArr(k) && k.dtype !== 'bool' ? { ...k, values: undefined } : k));
  const r = outcome(() => planIndex(shape, hidden as IndexItem[]));
  return r.ok ? size(r.value.shape) : 1;
}

const caseArb = fc.record({
  shape: fc
    .array(fc.integer({ min: 0, max: 4 }), { maxLength: 4 })
    .map((sh) => sh.map((d) => (d === 4 ? 1 : d === 0 && sh.length > 2 ? 2 : d))),
  tape: fc.array(fc.nat(1000), { minLength: 40, maxLength: 40 }),
  single: fc.boolean(),
  host: fc.boolean(),
  int: fc.boolean(),
});

const about = (shape: readonly number[], key: readonly IndexItem[], host: boolean) =>
  `${JSON.stringify(shape)} [${key
    .map((k) =>
      k === ellipsis
        ? '...'
        : isArr(k)
          ? `${k.dtype}${JSON.stringify(k.shape)}${JSON.stringify(Array.from(k.values ?? []))}`
          : JSON.stringify(k),
    )
    .join(', ')}]${host ? ' (lists)' : ''}`;

describe('getIndex / setIndex through the ops vs the reference indexer (fast-check)', () => {
  it('get: same shape and values, or both refuse with an MXNetError', async () => {
    const tally = { compared: 0, refused: 0, mask: 0, gather: 0, emptyBounds: 0 };
    await rt.nd.leakCheck(() => {
      fc.assert(
        fc.property(caseArb, ({ shape, tape, single, host, int }) => {
          const key = buildKey(shape, tape);
          const values = Array.from({ length: size(shape) }, (_, i) => i);
          // A key of one item, given alone — unless it is a JS list (a top-level list is a tuple).
          const alone =
            single && key.length === 1 && !(host && isArr(key[0]) && (key[0].shape.length ?? 0) > 0);
          const ref = outcome(() => getRef(values, shape, alone ? (key[0] as IndexItem) : key));
          const temps: NDArray[] = [];
          try {
            const x = source(shape, values, int, temps);
            temps.push(x);
            const npKey = toNpKey(key, host, temps);
            const index = alone ? (npKey[0] as NpIndexItem) : npKey;
            const got = outcome(() => {
              const r = getIndex(c, x, index);
              temps.push(r);
              return { shape: [...r.shape], values: numbers(r) };
            });
            const what = about(shape, key, host);
            if (!got.ok) expect(got.error, what).toBeInstanceOf(MXNetError);
            if (!ref.ok && got.ok && emptyOutOfBounds(ref.error, size(got.value.shape))) {
              tally.emptyBounds++;
              return;
            }
            expect(got.ok, `${what}: ${got.ok ? 'ops succeeded' : String(got.error)}`).toBe(ref.ok);
            if (!ref.ok || !got.ok) {
              tally.refused++;
              return;
            }
            tally.compared++;
            if (ref.value.plan.kind !== 'basic') tally[ref.value.plan.kind === 'mask' ? 'mask' : 'gather']++;
            expect(got.value.shape, what).toEqual(ref.value.shape);
            expect(got.value.values, what).toEqual(ref.value.values);
          } finally {
            for (const a of temps) a.dispose();
          }
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });
    expect(tally.compared).toBeGreaterThan(900);
    expect(tally.mask).toBeGreaterThan(40);
    expect(tally.gather).toBeGreaterThan(100);
    expect(tally.refused).toBeGreaterThan(300);
  }, 60_000);

  it('set: same values written, or both refuse and x is unchanged', async () => {
    const tally = { compared: 0, refused: 0, scalar: 0, mask: 0, gather: 0, emptyBounds: 0 };
    await rt.nd.leakCheck(() => {
      fc.assert(
        fc.property(caseArb, fc.array(fc.nat(4), { maxLength: 6 }), (arb, shrink) => {
          const { shape, tape, host, int } = arb;
          const key = buildKey(shape, tape);
          const before = Array.from({ length: size(shape) }, (_, i) => -1 - i);
          // The region's shape (where the key selects one), and a value that broadcasts to it:
          // some axes 1, a leading axis dropped or a leading 1 added, or a JS scalar.
          const region = outcome(() => getRef(before, shape, key));
          const R = region.ok ? region.value.shape : [2];
          let V = R.map((d, i) => (shrink[i] === 0 ? 1 : d));
          if (shrink[5] === 1) V = V.slice(Math.min(V.length, 1));
          if (shrink[5] === 2) V = [1, ...V];
          if (shrink[5] === 3) V = [...V.slice(0, -1), (V[V.length - 1] ?? 0) + 1]; // does not broadcast
          const scalar = shrink.length === 0;
          const vvals = Array.from({ length: size(V) }, (_, i) => 1000 + i);
          const ref = outcome(() => setRef(before, shape, key, scalar ? 7 : { shape: V, values: vvals }));
          const temps: NDArray[] = [];
          try {
            const x = source(shape, before, int, temps);
            temps.push(x);
            const npKey = toNpKey(key, host, temps);
            const value = scalar ? 7 : source(V, vvals, int, temps);
            if (typeof value !== 'number') temps.push(value);
            const got = outcome(() => {
              setIndex(c, x, npKey, value);
              return numbers(x);
            });
            const what = `${about(shape, key, host)} = ${scalar ? 7 : JSON.stringify(V)}`;
            if (!got.ok) expect(got.error, what).toBeInstanceOf(MXNetError);
            const empty = region.ok ? size(region.value.shape) : emptyRegion(shape, key);
            if (!ref.ok && got.ok && emptyOutOfBounds(ref.error, empty)) {
              expect(got.value, what).toEqual(before);
              tally.emptyBounds++;
              return;
            }
            expect(got.ok, `${what}: ${got.ok ? 'ops succeeded' : String(got.error)}`).toBe(ref.ok);
            if (!ref.ok || !got.ok) {
              tally.refused++;
              // Nothing written: x is intact (or, if a failed in-place op marked it, unreadable).
              const after = outcome(() => numbers(x));
              if (after.ok) expect(after.value, what).toEqual(before);
              return;
            }
            tally.compared++;
            if (scalar) tally.scalar++;
            const kind = ref.value.plan.target.kind;
            if (kind !== 'basic') tally[kind === 'mask' ? 'mask' : 'gather']++;
            expect(got.value, what).toEqual(ref.value.values);
          } finally {
            for (const a of temps) a.dispose();
          }
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });
    expect(tally.compared).toBeGreaterThan(900);
    expect(tally.mask).toBeGreaterThan(40);
    expect(tally.gather).toBeGreaterThan(100);
    expect(tally.scalar).toBeGreaterThan(100);
    expect(tally.refused).toBeGreaterThan(300);
  }, 60_000);
});
