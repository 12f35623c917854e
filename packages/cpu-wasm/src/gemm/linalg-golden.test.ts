/**
 * The linalg family's golden cases (tools/golden/ops/linalg.py → conformance/src/__golden__/
 * linalg.json) through the cpu-wasm harness: dot / batch_dot / linalg_gemm2 outputs within each
 * case's rtol/atol, bad inputs raising an MXNetError with the expected text, and the harness still
 * usable afterwards.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DTypeName, isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../test-util/run-op.js';

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

const file = fileURLToPath(new URL('../../../conformance/src/__golden__/linalg.json', import.meta.url));
const cases = (JSON.parse(readFileSync(file, 'utf8')) as { cases: RawCase[] }).cases;

const num = (v: number | string): number =>
  typeof v === 'number' ? v : v === 'nan' ? Number.NaN : v === 'inf' ? Infinity : -Infinity;

const host = (a: RawArray): HostArray => ({
  shape: a.shape,
  dtype: a.dtype as DTypeName,
  data: a.data.map(num),
});

describe('linalg golden cases on cpu-wasm', () => {
  const h = createOpHarness();

  it('covers dot, batch_dot, _linalg_gemm2 and its alias, with error cases', () => {
    const ops = new Set(cases.map((c) => c.op));
    for (const op of ['dot', 'batch_dot', '_linalg_gemm2', 'linalg_gemm2'])
      expect(ops.has(op), op).toBe(true);
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(10);
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
        return;
      }
      const [o] = h.run(c.op, c.inputs.map(host), c.params);
      const w = (c.outputs as RawArray[])[0] as RawArray;
      expect(o?.shape).toEqual(w.shape);
      expect(o?.dtype).toBe(w.dtype);
      const got = Array.from(o?.data as ArrayLike<number>);
      const bad = got.findIndex((v, j) => {
        const e = num(w.data[j] as number);
        return !(Math.abs(v - e) <= c.atol + c.rtol * Math.abs(e));
      });
      expect(bad, `first mismatch at ${bad}: ${got[bad]} vs ${w.data[bad]}`).toBe(-1);
    });
  }

  it('keeps working after the error cases', () => {
    const [o] = h.run(
      'dot',
      [
        { shape: [1, 2], dtype: 'float32', data: [1, 2] },
        { shape: [2, 1], dtype: 'float32', data: [3, 4] },
      ],
      {},
    );
    expect(Array.from(o?.data as Float32Array)).toEqual([11]);
  });
});
