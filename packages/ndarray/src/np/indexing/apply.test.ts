/**
 * `getIndex` / `setIndex` through the real ops on cpu-wasm against NumPy 1.24's recorded cases
 * (tools/golden/np/indexing.py → __golden__/indexing.json). Sources are arange, so a result's
 * values are source positions. Index arrays go to the device as np arrays (the data-dependent
 * path: kernel bounds checks, `_npx_nonzero` counts); every tenth case also runs with JS lists
 * (host values: the planner's checks). Views: MXNet 2.0's rule, checked by storage sharing.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import type { NDArray } from '../../ndarray.js';
import { createRuntime } from '../../runtime.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { getIndex, type NpIndexItem, setIndex } from './apply.js';
import { label, loadIndexingGolden, nestedList, numbers, type RawItem, size } from './test-util.js';
import { ellipsis, s } from './types.js';

const golden = loadIndexingGolden();

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const c = new NpContext(rt, new NpFlags());
afterAll(() => rt.dispose());

const arange = (shape: readonly number[], fill?: number) =>
  c.fromValues(
    Array.from({ length: size(shape) }, (_, i) => fill ?? i),
    'float64',
  );
const source = (shape: readonly number[], fill?: number): NDArray => {
  const flat = arange(shape, fill);
  if (shape.length === 1) return flat;
  const v = c.view(flat, shape);
  flat.dispose();
  return v;
};

/** Decode a key; arrays become device np arrays (`temps`) or, with `host`, JS lists. */
function decode(item: RawItem, temps: NDArray[], host: boolean): NpIndexItem {
  if (item === '...') return ellipsis;
  if (item === null || typeof item === 'number' || typeof item === 'boolean') return item;
  if ('s' in item) return s(item.s[0] ?? null, item.s[1] ?? null, item.s[2] ?? null);
  if ('f' in item) return item.f;
  const values = item.d === 'bool' ? item.v.map((v) => v !== 0) : item.v;
  // JS lists hold integers or booleans only, and cannot type an empty list (NumPy's [] is an integer array).
  const listable =
    (item.d === 'bool' || item.d.startsWith('int') || item.d.startsWith('uint')) && !item.a.includes(0);
  if (host && item.a.length > 0 && listable) return nestedList(item.a, values) as NpIndexItem;
  const flat = c.fromValues(values as never, item.d as 'bool');
  temps.push(flat);
  if (item.a.length === 1) return flat;
  const shaped = c.view(flat, item.a);
  temps.push(shaped);
  return shaped;
}

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('np indexing get through ops (cpu-wasm), against NumPy', () => {
  it.each(golden.get.map((g, i) => [label(g), g, i] as const))('%s', (_, g, i) => {
    for (const host of i % 10 === 0 ? [false, true] : [false]) {
      const temps: NDArray[] = [];
      const x = source(g.shape);
      try {
        const key = g.key.map((k) => decode(k, temps, host));
        if (g.error) {
          // Static errors throw at the call; data-dependent ones (device index values) at the read.
          const err = caught(() => {
            const r = getIndex(c, x, key);
            temps.push(r);
            r.dataSync();
          });
          expect(err).toBeInstanceOf(MXNetError);
          expect((err as MXNetError).message).toContain(g.error.message.trim());
          continue;
        }
        const want = g.result as { shape: number[]; values: number[] };
        const r = getIndex(c, x, key);
        temps.push(r);
        expect([...r.shape]).toEqual(want.shape);
        expect(numbers(r)).toEqual(want.values);
        if (g.mx_view === true && want.values.length > 0) expect(r.chunk).toBe(x.chunk);
        if (g.mx_view !== true && want.values.length > 0) expect(r.chunk).not.toBe(x.chunk);
      } finally {
        for (const t of temps) t.dispose();
        x.dispose();
      }
    }
  });
});

describe('np indexing set through ops (cpu-wasm), against NumPy', () => {
  it.each(golden.set.map((g, i) => [`${label(g)} = ${JSON.stringify(g.value_shape)}`, g, i] as const))(
    '%s',
    (_, g, i) => {
      for (const host of i % 10 === 0 ? [false, true] : [false]) {
        const temps: NDArray[] = [];
        const x = source(g.shape, -1);
        const value = source(g.value_shape);
        try {
          const key = g.key.map((k) => decode(k, temps, host));
          if (g.error) {
            const err = caught(() => {
              setIndex(c, x, key, value);
              x.dataSync();
            });
            expect(err).toBeInstanceOf(MXNetError);
            expect((err as MXNetError).message).toContain(g.error.message.trim());
            // No partial writes: x is unchanged (a failed in-place op leaves x failed or intact).
            const after = caught(() => numbers(x));
            if (!(after instanceof Error)) expect(numbers(x).every((v) => v === -1)).toBe(true);
            continue;
          }
          setIndex(c, x, key, value);
          expect(numbers(x)).toEqual(g.result);
        } finally {
          for (const t of temps) t.dispose();
          value.dispose();
          x.dispose();
        }
      }
    },
  );
});
