/**
 * fast-check (seed 16, bounded): random shapes up to 4-D and random keys (ints, slices of every
 * step sign, None, ellipses, scalar booleans, integer arrays, boolean masks) — the plan-executing
 * reference indexer against a brute-force definition of NumPy's indexing written independently
 * here (axis-by-axis recursion for basic keys; for advanced keys, one basic lookup per element of
 * the broadcast block, the block then placed by NumPy's rule). Also: views read contiguous runs,
 * and plans made without index values have the same shapes.
 */
import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planIndex } from './plan.js';
import { getRef, setRef } from './reference.js';
import { isArr, maskItem, size } from './test-util.js';
import { ellipsis, type IndexItem, type SliceIndex, s } from './types.js';

const isSl = (v: unknown): v is SliceIndex =>
  typeof v === 'object' && v !== null && (v as SliceIndex).kind === 'slice';

// ---- the brute-force definition ------------------------------------------------------------

function pick(n: number, sl: SliceIndex): number[] {
  const step = sl.step ?? 1;
  const out: number[] = [];
  if (step > 0) {
    let lo = sl.start ?? 0;
    let hi = sl.stop ?? n;
    if (lo < 0) lo += n;
    if (hi < 0) hi += n;
    lo = Math.min(Math.max(lo, 0), n);
    hi = Math.min(Math.max(hi, 0), n);
    for (let i = lo; i < hi; i += step) out.push(i);
  } else {
    let first = sl.start ?? n - 1;
    let last = sl.stop ?? -n - 1;
    if (sl.start !== null && first < 0) first += n;
    if (last < 0) last += n;
    first = Math.min(Math.max(first, -1), n - 1);
    last = Math.min(Math.max(last, -1), n - 1);
    for (let i = first; i > last; i += step) out.push(i);
  }
  return out;
}

type B = number | SliceIndex | null;

/** Basic indexing by recursion over axes: flat source positions and the result shape. */
function basicPositions(shape: readonly number[], key: readonly B[]): { shape: number[]; pos: number[] } {
  const strides = shape.map((_, i) => size(shape.slice(i + 1)));
  const outShape: number[] = [];
  let axis = 0;
  for (const k of key) {
    if (k === null) outShape.push(1);
    else if (isSl(k)) outShape.push(pick(shape[axis++] as number, k).length);
    else {
      // Checked up front: NumPy refuses a bad integer even where nothing is selected.
      const n = shape[axis++] as number;
      if (k < -n || k >= n) throw new Error('int out of bounds');
    }
  }
  const pos: number[] = [];
  const rec = (i: number, off: number, ax: number): void => {
    if (i === key.length) {
      pos.push(off);
      return;
    }
    const k = key[i] as B;
    if (k === null) rec(i + 1, off, ax);
    else if (isSl(k))
      for (const j of pick(shape[ax] as number, k)) rec(i + 1, off + j * (strides[ax] as number), ax + 1);
    else {
      const n = shape[ax] as number;
      if (k < -n || k >= n) throw new Error('int out of bounds');
      rec(i + 1, off + (k < 0 ? k + n : k) * (strides[ax] as number), ax + 1);
    }
  };
  rec(0, 0, 0);
  return { shape: outShape, pos };
}

interface Adv {
  shape: number[];
  values: number[];
  virtual: boolean; // a scalar boolean: takes no axis
  at: number; // position in the user's key
}

function bruteGet(shape: readonly number[], key0: readonly IndexItem[]): { shape: number[]; pos: number[] } {
  // A 0-d integer array is an integer (MXNet 2.0's rule, kept: NumPy would treat it as a 0-d
  // advanced index, which differs only in copy-vs-view and in bounds checks under an empty block).
  const key = key0.map((k) =>
    isArr(k) && k.dtype !== 'bool' && k.shape.length === 0 ? Number(k.values?.[0]) : k,
  );
  const used = key.reduce<number>(
    (a, k) =>
      a +
      (k === null || k === ellipsis || typeof k === 'boolean'
        ? 0
        : isArr(k) && k.dtype === 'bool'
          ? k.shape.length
          : 1),
    0,
  );
  if (key.filter((k) => k === ellipsis).length > 1 || used > shape.length) throw new Error('bad key');
  const full: (B | Adv)[] = [];
  let axis = 0;
  const fillCount = shape.length - used;
  const fill = () => {
    for (let i = 0; i < fillCount; i++, axis++) full.push(s());
  };
  key.forEach((k, at) => {
    if (k === ellipsis) {
      fill();
      return;
    }
    if (typeof k === 'boolean' || (isArr(k) && k.dtype === 'bool' && k.shape.length === 0)) {
      const on = typeof k === 'boolean' ? k : Boolean(k.values?.[0]);
      full.push({ shape: [on ? 1 : 0], values: on ? [0] : [], virtual: true, at });
      return;
    }
    if (isArr(k) && k.dtype === 'bool') {
      const mask = Array.from(k.values ?? [], Boolean);
      k.shape.forEach((d, j) => {
        if (d !== shape[axis + j]) throw new Error('mask shape');
      });
      const coords: number[][] = k.shape.map(() => []);
      mask.forEach((on, flat) => {
        if (!on) return;
        let r = flat;
        for (let j = k.shape.length - 1; j >= 0; j--) {
          (coords[j] as number[]).push(r % (k.shape[j] as number));
          r = Math.floor(r / (k.shape[j] as number));
        }
      });
      for (const c of coords) full.push({ shape: [c.length], values: c, virtual: false, at });
      axis += k.shape.length;
      return;
    }
    if (isArr(k))
      full.push({ shape: [...k.shape], values: Array.from(k.values ?? [], Number), virtual: false, at });
    else full.push(k as B);
    if (k !== null) axis++;
  });
  if (!key.includes(ellipsis)) fill();
  const advanced = full.filter((k): k is Adv => typeof k === 'object' && k !== null && 'virtual' in k);
  if (advanced.length === 0) return basicPositions(shape, full as B[]);

  // Integers join the advanced indices (as 0-d arrays); NumPy checks them even when the block is empty.
  const items = full.map((k, i): B | Adv => {
    if (typeof k !== 'number') return k;
    const n = shape[axisOf(full, i)] as number;
    if (k < -n || k >= n) throw new Error('int out of bounds');
    return { shape: [], values: [k], virtual: false, at: key.length + i };
  });
  const advs = items.filter((k): k is Adv => typeof k === 'object' && k !== null && 'virtual' in k);
  const bnd = Math.max(...advs.map((a) => a.shape.length));
  const block = new Array<number>(bnd).fill(1);
  for (const a of advs)
    a.shape.forEach((d, i) => {
      const j = bnd - a.shape.length + i;
      if (block[j] === 1) block[j] = d;
      else if (d !== 1 && d !== block[j]) throw new Error('broadcast');
    });
  // Adjacency in the user's key: integers carry their key position through `full`'s order.
  const keyPos: number[] = [];
  {
    let idx = 0;
    key.forEach((k, at) => {
      if (k === ellipsis) {
        idx += fillCount;
        return;
      }
      const width = isArr(k) && k.dtype === 'bool' ? k.shape.length : 1;
      for (let w = 0; w < width; w++) {
        const it = items[idx++];
        if (typeof it === 'object' && it !== null && 'virtual' in it) keyPos.push(at);
      }
    });
  }
  const adjacent = keyPos.every(
    (p, i) => i === 0 || p === (keyPos[i - 1] as number) || p === (keyPos[i - 1] as number) + 1,
  );
  const firstAdv = items.findIndex((k) => typeof k === 'object' && k !== null && 'virtual' in k);
  const before = items.slice(0, firstAdv).filter((k) => k === null || isSl(k)).length;
  const p = adjacent ? before : 0;

  const subs: { shape: number[]; pos: number[] }[] = [];
  const bsize = size(block);
  for (let b = 0; b < bsize; b++) {
    const sub = items.flatMap((k, i): B[] => {
      if (!(typeof k === 'object' && k !== null && 'virtual' in k)) return [k as B];
      if (k.virtual) return [];
      let r = b;
      let flat = 0;
      let mul = 1;
      for (let d = bnd - 1; d >= 0; d--) {
        const coord = r % (block[d] as number);
        r = Math.floor(r / (block[d] as number));
        const ad = d - (bnd - k.shape.length);
        if (ad >= 0) {
          if ((k.shape[ad] as number) !== 1) flat += coord * mul;
          mul *= k.shape[ad] as number;
        }
      }
      const v = k.values[flat] as number;
      const n = shape[axisOf(items, i)] as number;
      if (v < -n || v >= n) throw new Error('index out of bounds');
      return [v];
    });
    subs.push(basicPositions(shape, sub));
  }
  const S = items.flatMap((k, i) =>
    k === null ? [1] : isSl(k) ? [pick(shape[axisOf(items, i)] as number, k).length] : [],
  );
  const pre = size(S.slice(0, p));
  const post = size(S.slice(p));
  const pos: number[] = [];
  for (let i = 0; i < pre; i++)
    for (let b = 0; b < bsize; b++)
      for (let j = 0; j < post; j++) pos.push(subs[b]?.pos[i * post + j] as number);
  return { shape: [...S.slice(0, p), ...block, ...S.slice(p)], pos };
}

function axisOf(items: readonly (B | Adv)[], i: number): number {
  let axis = 0;
  for (let j = 0; j < i; j++) {
    const k = items[j];
    if (k === null || (typeof k === 'object' && 'virtual' in k && k.virtual)) continue;
    axis++;
  }
  return axis;
}

// ---- random keys ---------------------------------------------------------------------------

/** A key for `shape` built from a random tape (fast-check shrinks the tape). */
function buildKey(shape: readonly number[], tape: readonly number[]): IndexItem[] {
  let t = 0;
  const next = (n: number) => (tape[t++ % tape.length] as number) % n;
  const key: IndexItem[] = [];
  let axis = 0;
  const len = next(shape.length + 2) + (next(4) === 0 ? 1 : 0);
  for (let i = 0; i < len; i++) {
    const n = shape[axis] ?? 2;
    const u = next(20);
    const int = () => next(2 * n + 2) - n - 1;
    if (u < 2) key.push(null);
    else if (u < 3) key.push(ellipsis);
    else if (u < 4) key.push(next(4) !== 0);
    else if (u < 7) {
      key.push(int());
      axis++;
    } else if (u < 12) {
      const part = () => (next(3) === 0 ? null : next(2 * n + 5) - n - 2);
      key.push(s(part(), part(), [null, 1, 2, 3, -1, -2, -3][next(7)] as number | null));
      axis++;
    } else if (u < 17) {
      const ashape = ([[], [1], [2], [3], [2, 1], [1, 2], [2, 2], [0]] as number[][])[next(8)] as number[];
      key.push({
        kind: 'array',
        shape: ashape,
        dtype: 'int64',
        values: Array.from({ length: size(ashape) }, () => next(2 * n + 1) - n),
      });
      axis++;
    } else {
      const mask = maskItem(next, shape, axis, n, 8);
      key.push(mask);
      axis += mask.shape.length;
    }
  }
  return key;
}

const caseArb = fc.record({
  shape: fc
    .array(fc.integer({ min: 0, max: 4 }), { maxLength: 4 })
    .map((sh) => sh.map((d) => (d === 4 ? 1 : d === 0 && sh.length > 2 ? 2 : d))),
  tape: fc.array(fc.nat(1000), { minLength: 40, maxLength: 40 }),
  single: fc.boolean(),
});

function outcome<T>(f: () => T): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
}

describe('reference indexer vs brute force (fast-check, seed 16)', () => {
  it('get: same result, or both refuse', () => {
    let compared = 0;
    fc.assert(
      fc.property(caseArb, ({ shape, tape, single }) => {
        const key = buildKey(shape, tape);
        const index = single && key.length === 1 && !Array.isArray(key[0]) ? (key[0] as IndexItem) : key;
        const values = Array.from({ length: size(shape) }, (_, i) => i);
        const ref = outcome(() => getRef(values, shape, index));
        const brute = outcome(() => bruteGet(shape, key));
        if (!ref.ok) expect(ref.error).toBeInstanceOf(MXNetError);
        const about = () =>
          `${JSON.stringify(shape)} ${JSON.stringify(key)}: ${ref.ok ? '' : String(ref.error)}`;
        expect(ref.ok, about()).toBe(brute.ok);
        if (!ref.ok || !brute.ok) return;
        compared++;
        expect(ref.value.shape).toEqual(brute.value.shape);
        expect(ref.value.values).toEqual(brute.value.pos);
        const plan = ref.value.plan;
        if (plan.kind === 'basic' && plan.view && ref.value.values.length > 0)
          expect(ref.value.values).toEqual(ref.value.values.map((_, i) => plan.offset + i));
        const hidden = key.map((k) =>
          isArr(k)
            ? {
                kind: 'array' as const,
                shape: k.shape,
                dtype: k.dtype,
                count: Array.from(k.values ?? []).filter(Boolean).length,
              }
            : k,
        );
        expect(planIndex(shape, hidden).shape).toEqual(ref.value.shape);
      }),
      { seed: 16, numRuns: 4000 },
    );
    expect(compared).toBeGreaterThan(1500);
  });

  it('set: writes what the brute-force positions and broadcasting say', () => {
    let compared = 0;
    fc.assert(
      fc.property(caseArb, fc.array(fc.nat(3), { maxLength: 6 }), ({ shape, tape }, shrink) => {
        const key = buildKey(shape, tape);
        const brute = outcome(() => bruteGet(shape, key));
        if (!brute.ok) return;
        const R = brute.value.shape;
        // A value shape that broadcasts: some axes 1, some leading axes dropped or a leading 1 added.
        let V = R.map((d, i) => (shrink[i] === 0 ? 1 : d));
        if (shrink[5] === 1) V = V.slice(Math.min(V.length, 1));
        if (shrink[5] === 2) V = [1, ...V];
        if (shrink.length === 0 && size(R) === 1) V = [];
        const value = { shape: V, values: Array.from({ length: size(V) }, (_, i) => 1000 + i) };
        const before = Array.from({ length: size(shape) }, () => -1);
        const got = outcome(() => setRef(before, shape, key, value));
        // NumPy's one-element and whole-mask paths refuse some shapes that broadcast: not brute force's business.
        if (!got.ok) {
          expect(got.error).toBeInstanceOf(MXNetError);
          expect((got.error as MXNetError).reason).toMatch(
            /^(setting an array element|NumPy boolean array indexing assignment requires)/,
          );
          return;
        }
        const want = [...before];
        const lead = R.length - V.length;
        brute.value.pos.forEach((p, k) => {
          let r = k;
          let src = 0;
          let mul = 1;
          for (let d = R.length - 1; d >= 0; d--) {
            const c = r % (R[d] as number);
            r = Math.floor(r / (R[d] as number));
            const vd = d - lead;
            if (vd >= 0) {
              if ((V[vd] as number) !== 1) src += c * mul;
              mul *= V[vd] as number;
            }
          }
          want[p] = value.values[src] as number;
        });
        compared++;
        expect(got.value.values).toEqual(want);
      }),
      { seed: 16, numRuns: 3000 },
    );
    expect(compared).toBeGreaterThan(800);
  });
});
