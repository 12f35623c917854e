/**
 * The init family's golden cases (tools/golden/ops/init.py → conformance/src/__golden__/init.json)
 * run through the cpu-wasm harness: outputs within each case's rtol/atol, error cases raising an
 * MXNetError with the expected text, and the harness still usable afterwards.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DType, type DTypeName, isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../../test-util/run-op.js';

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

const file = fileURLToPath(new URL('../../../../conformance/src/__golden__/init.json', import.meta.url));
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

describe('init golden cases on cpu-wasm', () => {
  const h = createOpHarness();
  it('has cases for every init op', () => {
    const ops = new Set(cases.map((c) => c.op));
    for (const op of [
      '_zeros',
      '_ones',
      '_full',
      '_eye',
      'zeros_like',
      'ones_like',
      '_arange',
      '_linspace',
    ]) {
      expect(ops.has(op), op).toBe(true);
    }
    expect(cases.length).toBeGreaterThan(200);
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
      const out = h.run(c.op, c.inputs.map(host), c.params);
      const want = c.outputs as RawArray[];
      expect(out.length).toBe(want.length);
      want.forEach((w, i) => {
        const o = out[i]!;
        expect(o.shape).toEqual(w.shape);
        expect(o.dtype).toBe(w.dtype);
        const got = Array.from(o.data as ArrayLike<number | bigint>);
        const bad = got.findIndex((v, j) => !close(v, num(w.data[j]!), c.rtol, c.atol));
        expect(bad, `first mismatch at ${bad}: ${got[bad]} vs ${w.data[bad]}`).toBe(-1);
      });
    });
  }

  it('keeps working after the error cases', () => {
    const [o] = h.run('_full', [], { shape: [3], value: 4 });
    expect([...o!.data]).toEqual([4, 4, 4]);
  });
});
