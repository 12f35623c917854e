/**
 * The reduce family's golden cases (tools/golden/ops/reduce.py → conformance/src/__golden__/
 * reduce.json) run through the cpu-wasm harness: visible outputs (shape, dtype, values within each
 * case's rtol/atol; integers exact), error cases raising an MXNetError with the expected text, and
 * the harness still usable after every error. Outputs MXNet hides (sort's and topk 'value''s
 * indices) are not compared.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DType, type DTypeName, isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray, type OpResult } from '../../test-util/run-op.js';

/** Values of output `i` as numbers. */
function vals(out: readonly OpResult[], i = 0): number[] {
  const d = out[i]?.data;
  if (d === undefined) throw new Error(`missing output ${i}`);
  return Array.from(d as ArrayLike<number | bigint>, Number);
}

interface RawArray {
  shape: number[];
  dtype: string;
  data: (number | string)[];
}
interface RawCase {
  name: string;
  op: string;
  params: Record<string, unknown>;
  inputs: RawArray[];
  outputs?: RawArray[];
  error?: string;
  rtol: number;
  atol: number;
}

const file = fileURLToPath(new URL('../../../../conformance/src/__golden__/reduce.json', import.meta.url));
const cases = (JSON.parse(readFileSync(file, 'utf8')) as { cases: RawCase[] }).cases;

const num = (v: number | string): number =>
  typeof v === 'number' ? v : v === 'nan' ? Number.NaN : v === 'inf' ? Infinity : -Infinity;

function host(a: RawArray): HostArray {
  const dtype = a.dtype as DTypeName;
  return { shape: a.shape, dtype, data: a.data.map((v) => (DType[dtype].bigint ? BigInt(num(v)) : num(v))) };
}

function close(a: number | bigint, e: number, rtol: number, atol: number): boolean {
  const x = Number(a);
  if (Number.isNaN(e)) return Number.isNaN(x);
  if (!Number.isFinite(e)) return x === e;
  return Math.abs(x - e) <= atol + rtol * Math.abs(e);
}

describe('reduce golden cases on cpu-wasm', () => {
  const h = createOpHarness();

  it('covers every op of the family, with error cases', () => {
    const ops = new Set(cases.map((c) => c.op));
    for (const op of [
      'sum',
      'mean',
      'prod',
      'max',
      'min',
      'nansum',
      'nanprod',
      'norm',
      'argmax',
      'argmin',
      'sort',
      'argsort',
      'topk',
      '_np_cumsum',
    ]) {
      expect(ops.has(op), op).toBe(true);
    }
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(20);
  });

  for (const c of cases) {
    it(c.name, () => {
      if (c.error !== undefined) {
        let thrown: unknown;
        try {
          h.run(c.op, c.inputs.map(host), c.params);
        } catch (e) {
          thrown = e;
        }
        expect(isMXNetError(thrown), String(thrown)).toBe(true);
        expect((thrown as Error).message).toContain(c.error);
        // The harness (and its memory) still works after the failure.
        const ok = h.run('sum', [{ shape: [3], dtype: 'float32', data: [1, 2, 3] }]);
        expect(vals(ok)).toEqual([6]);
        return;
      }
      const out = h.run(c.op, c.inputs.map(host), c.params);
      const want = c.outputs as RawArray[];
      expect(out.length).toBeGreaterThanOrEqual(want.length);
      want.forEach((w, i) => {
        const o = out[i] as (typeof out)[number];
        expect(o.shape).toEqual(w.shape);
        expect(o.dtype).toBe(w.dtype);
        const got = Array.from(o.data as ArrayLike<number | bigint>);
        // float32 values are stored with 9 significant digits: exact after rounding to float32.
        const want32 = (v: number) => (w.dtype === 'float32' ? Math.fround(v) : v);
        const bad = got.findIndex(
          (v, j) => !close(v, want32(num(w.data[j] as number | string)), c.rtol, c.atol),
        );
        expect(bad, `output ${i}: first mismatch at ${bad}: ${got[bad]} vs ${w.data[bad]}`).toBe(-1);
      });
    });
  }
});
