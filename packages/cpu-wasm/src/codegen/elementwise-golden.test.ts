/**
 * The elementwise family's golden cases (tools/golden/ops/elementwise.py →
 * conformance/src/__golden__/elementwise.json) run end to end on cpu-wasm through the op harness:
 * outputs within each case's rtol/atol, bad-input cases raising an MXNetError with the expected
 * text, and the harness still usable afterwards. Ops with no cpu-wasm kernel yet (neither a
 * registered kernel nor the SimpleOp compiler) are skipped with the reason printed, so the suite
 * reports progress instead of failing while kernels land.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DType, type DTypeName, isMXNetError } from '@mx/base';
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

const file = fileURLToPath(new URL('../../../conformance/src/__golden__/elementwise.json', import.meta.url));
const cases = (JSON.parse(readFileSync(file, 'utf8')) as { cases: RawCase[] }).cases;

const num = (v: number | string): number =>
  typeof v === 'number' ? v : v === 'nan' ? Number.NaN : v === 'inf' ? Infinity : -Infinity;

/** float16 bits of a value exactly representable in float16 (the golden inputs are). */
function halfBits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | Math.round(a * 2 ** 24);
  const e = Math.floor(Math.log2(a));
  return sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

function fromHalfBits(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? Number.NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function host(a: RawArray): HostArray {
  const dtype = a.dtype as DTypeName;
  const data = a.data.map((v) => {
    const x = num(v);
    if (dtype === 'float16') return halfBits(x);
    return DType[dtype].bigint ? BigInt(x) : x;
  });
  return { shape: a.shape, dtype, data };
}

function close(a: number, e: number, rtol: number, atol: number): boolean {
  if (Number.isNaN(e)) return Number.isNaN(a);
  if (!Number.isFinite(e)) return a === e;
  return Math.abs(a - e) <= atol + rtol * Math.abs(e);
}

describe('elementwise golden cases on cpu-wasm', () => {
  const h = createOpHarness();
  const hasKernel = (op: string): boolean =>
    h.registry.backendsFor(h.registry.get(op)).includes(h.backend.name);
  const missing = [...new Set(cases.map((c) => c.op))].filter((op) => !hasKernel(op)).sort();

  it('reports ops without a cpu-wasm kernel', () => {
    if (missing.length > 0) {
      console.info(`elementwise golden: skipping ops with no cpu-wasm kernel yet: ${missing.join(', ')}`);
    }
    expect(cases.length).toBeGreaterThan(1000);
  });

  for (const c of cases) {
    it.skipIf(missing.includes(c.op))(c.name, () => {
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
        const o = out[i];
        if (!o) throw new Error(`missing output ${i}`);
        expect(o.shape).toEqual(w.shape);
        expect(o.dtype).toBe(w.dtype);
        const raw = Array.from(o.data as ArrayLike<number | bigint>, Number);
        const got = w.dtype === 'float16' ? raw.map(fromHalfBits) : raw;
        const bad = got.findIndex((v, j) => !close(v, num(w.data[j] as number | string), c.rtol, c.atol));
        expect(bad, `first mismatch at ${bad}: ${got[bad]} vs ${w.data[bad]}`).toBe(-1);
      });
    });
  }

  it.skipIf(!hasKernel('elemwise_add'))('keeps working after the error cases', () => {
    const a: HostArray = { shape: [3], dtype: 'float32', data: [1, 2, 3] };
    const [o] = h.run('elemwise_add', [a, a]);
    expect([...(o?.data ?? [])]).toEqual([2, 4, 6]);
  });
});
