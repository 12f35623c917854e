/**
 * Shape-family kernels on cpu-wasm against the NumPy golden cases (tools/golden/ops/shape.py):
 * every case with req=write, the numeric ones again with req=add into a non-zero output, and
 * every bad-input case must throw an MXNetError naming the op (and, for inference errors, the
 * params and input shapes) without breaking the harness.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DTypeName, isMXNetError, type MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray, type OpResult } from '../../test-util/run-op.js';
import { bfloatToFloat, floatToHalf, halfToFloat } from './dtype-bits.js';

interface GArray {
  shape: number[];
  dtype: DTypeName;
  data: (number | string)[];
}
interface GCase {
  name: string;
  op: string;
  params: Record<string, unknown>;
  inputs: GArray[];
  outputs?: GArray[];
  error?: string;
  rtol?: number;
  atol?: number;
}

const golden = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../../../../conformance/src/__golden__/shape.json', import.meta.url)),
    'utf8',
  ),
) as { cases: GCase[] };

const num = (v: number | string): number =>
  v === 'nan' ? Number.NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number);

function toHost(a: GArray): HostArray {
  const vals = a.data.map(num);
  const data = a.dtype === 'float16' ? vals.map(floatToHalf) : vals;
  return { shape: a.shape, dtype: a.dtype, data };
}

function values(r: OpResult): number[] {
  const out: number[] = [];
  const data = r.data as ArrayLike<number | bigint>;
  for (let i = 0; i < data.length; i++) {
    const v = data[i] as number | bigint;
    if (r.dtype === 'float16') out.push(halfToFloat(v as number));
    else if (r.dtype === 'bfloat16') out.push(bfloatToFloat(v as number));
    else out.push(Number(v));
  }
  return out;
}

function expectClose(got: number[], want: number[], rtol: number, atol: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const g = got[i] as number;
    const w = want[i] as number;
    if (Number.isNaN(w)) expect(Number.isNaN(g), `${what}[${i}]`).toBe(true);
    else if (g !== w)
      expect(Math.abs(g - w), `${what}[${i}] got ${g} want ${w}`).toBeLessThanOrEqual(
        atol + rtol * Math.abs(w),
      );
  }
}

const h = createOpHarness();
const cases = golden.cases;
const ADD_DTYPES = new Set<DTypeName>(['float32', 'float64', 'int32', 'int64']);

describe('shape golden cases (req=write)', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(250);
  });
  for (const c of cases.filter((x) => x.error === undefined)) {
    it(c.name, () => {
      const res = h.run(c.op, c.inputs.map(toHost), c.params);
      const outs = c.outputs as GArray[];
      expect(res.length).toBe(outs.length);
      outs.forEach((o, i) => {
        const r = res[i] as OpResult;
        expect(r.shape, `output ${i} shape`).toEqual(o.shape);
        expect(r.dtype).toBe(o.dtype);
        expectClose(values(r), o.data.map(num), c.rtol ?? 0, c.atol ?? 0, `output ${i}`);
      });
    });
  }
});

describe('shape golden cases (req=add)', () => {
  const numeric = cases.filter(
    (c) => c.error === undefined && (c.outputs as GArray[]).every((o) => ADD_DTYPES.has(o.dtype)),
  );
  for (const c of numeric) {
    it(c.name, () => {
      const outs = c.outputs as GArray[];
      const init = outs.map((o) => ({
        shape: o.shape,
        dtype: o.dtype,
        data: o.data.map((_, i) => (i % 5) - 2),
      }));
      const res = h.run(c.op, c.inputs.map(toHost), c.params, { req: 'add', out: init });
      outs.forEach((o, i) => {
        const want = o.data.map((v, k) => num(v) + ((k % 5) - 2));
        expectClose(values(res[i] as OpResult), want, c.rtol ?? 0, c.atol ?? 0, `output ${i}`);
      });
    });
  }

  it('float16 and bool accumulate in their own arithmetic', () => {
    const x: HostArray = { shape: [2, 2], dtype: 'float16', data: [1.5, -2, 0.25, 4].map(floatToHalf) };
    const out: HostArray = { shape: [2, 2], dtype: 'float16', data: [1, 1, 1, 1].map(floatToHalf) };
    const [r] = h.run('transpose', [x], {}, { req: 'add', out: [out] });
    expect(values(r as OpResult)).toEqual([2.5, 1.25, -1, 5]);
    const b: HostArray = { shape: [3], dtype: 'bool', data: [1, 0, 0] };
    const bo: HostArray = { shape: [3], dtype: 'bool', data: [1, 1, 0] };
    const [rb] = h.run('reverse', [b], { axis: [0] }, { req: 'add', out: [bo] });
    expect(values(rb as OpResult)).toEqual([1, 1, 1]);
  });
});

describe('shape bad input', () => {
  for (const c of cases.filter((x) => x.error !== undefined)) {
    it(c.name, () => {
      let caught: unknown;
      try {
        h.run(c.op, c.inputs.map(toHost), c.params);
      } catch (e) {
        caught = e;
      }
      expect(isMXNetError(caught), `expected an MXNetError, got ${String(caught)}`).toBe(true);
      const e = caught as MXNetError;
      expect(e.message).toContain(c.error as string);
      expect(e.op).toBeDefined();
      expect(e.params).toBeDefined();
      const parseError = /Cannot find argument|Required parameter|Invalid Input|Invalid Parameter/.test(
        e.message,
      );
      if (!parseError) expect(e.shapes?.length).toBeGreaterThan(0);
    });
  }

  it('the harness still works after the failures', () => {
    const [r] = h.run('transpose', [{ shape: [2, 3], dtype: 'float32', data: [0, 1, 2, 3, 4, 5] }]);
    expect(values(r as OpResult)).toEqual([0, 3, 1, 4, 2, 5]);
  });
});

describe('shape kernels on storage-only dtypes', () => {
  it('move uint16/uint32/bfloat16 bit patterns unchanged', () => {
    for (const dtype of ['uint16', 'uint32', 'bfloat16', 'int16'] as const) {
      const data = [1, 2, 3, 4, 5, 6];
      const [r] = h.run('transpose', [{ shape: [2, 3], dtype, data }]);
      expect(Array.from(r?.data as ArrayLike<number>)).toEqual([1, 4, 2, 5, 3, 6]);
    }
  });

  it('keeps NaN payloads of float64 (8-byte words move as raw pairs)', () => {
    const bits = new BigUint64Array([0x7ff0000000000001n, 0xfff8000000000123n, 1n, 2n]);
    const data = new Float64Array(bits.buffer);
    const [r] = h.run('transpose', [{ shape: [2, 2], dtype: 'float64', data }]);
    const back = new BigUint64Array(((r as OpResult).data as Float64Array).slice().buffer);
    expect(Array.from(back)).toEqual([0x7ff0000000000001n, 1n, 0xfff8000000000123n, 2n]);
  });

  it('take mode=raise throws on an index past the end', () => {
    const out = { shape: [2], dtype: 'float32' as const, data: [9, 9] };
    expect(() =>
      h.run(
        'take',
        [
          { shape: [3], dtype: 'float32', data: [1, 2, 3] },
          { shape: [2], dtype: 'int32', data: [0, 3] },
        ],
        { mode: 'raise' },
        { out: [out] },
      ),
    ).toThrow(/out of bound/);
  });
});
