/**
 * Kernel-level runs of the conformance golden cases (tools/golden/ops/<family>.py →
 * packages/conformance/src/__golden__/<family>.json) through the op harness, without the NDArray
 * layer or the engine: each family's test file is a call to `describeGolden`. The conformance
 * package runs the same cases through the NDArray runtime; this catches a kernel bug with a smaller
 * stack and no engine in between. Test-only (imports vitest); not exported.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DType, type DTypeName, isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray, type OpHarness, type OpResult } from './run-op.js';

export interface RawArray {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | string)[];
}

export interface GoldenCase {
  readonly name: string;
  readonly op: string;
  readonly params: Record<string, unknown>;
  readonly inputs: RawArray[];
  readonly outputs?: RawArray[];
  readonly error?: string;
  readonly rtol: number;
  readonly atol: number;
  readonly skip?: string;
  readonly isTrain?: boolean;
  /** Expected input values after the call (ops mutating inputs), by input index; null = unchecked. */
  readonly mutated?: (RawArray | null)[];
}

export function loadGolden(family: string): GoldenCase[] {
  const file = fileURLToPath(new URL(`../../../conformance/src/__golden__/${family}.json`, import.meta.url));
  return (JSON.parse(readFileSync(file, 'utf8')) as { cases: GoldenCase[] }).cases;
}

export const num = (v: number | string): number =>
  typeof v === 'number'
    ? v
    : v === 'nan'
      ? Number.NaN
      : v === 'inf'
        ? Number.POSITIVE_INFINITY
        : Number.NEGATIVE_INFINITY;

/** IEEE half bits of a float64 (round to nearest; enough for golden inputs). */
function halfBits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Number.POSITIVE_INFINITY) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | Math.round(a * 2 ** 24);
  const e = Math.floor(Math.log2(a));
  return sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

function fromHalfBits(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? Number.NaN : s * Number.POSITIVE_INFINITY;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

export function hostOf(a: RawArray): HostArray {
  const dtype = a.dtype as DTypeName;
  const data = a.data.map((v) => {
    const x = num(v);
    if (dtype === 'float16') return halfBits(x);
    return DType[dtype].bigint ? BigInt(x) : x;
  });
  return { shape: a.shape, dtype, data };
}

function close(x: number, e: number, rtol: number, atol: number): boolean {
  if (Number.isNaN(e)) return Number.isNaN(x);
  if (!Number.isFinite(e)) return x === e;
  return Math.abs(x - e) <= atol + rtol * Math.abs(e);
}

/** Run one case: outputs within rtol/atol (float32 expectations rounded to float32), or the expected MXNetError. */
export function checkGoldenCase(h: OpHarness, c: GoldenCase): void {
  if (c.error !== undefined) {
    let thrown: unknown;
    try {
      h.run(c.op, c.inputs.map(hostOf), c.params);
    } catch (e) {
      thrown = e;
    }
    expect(isMXNetError(thrown), String(thrown)).toBe(true);
    expect((thrown as Error).message).toContain(c.error);
    return;
  }
  const ran = h.run(c.op, c.inputs.map(hostOf), c.params, {
    isTrain: c.isTrain ?? false,
    returnInputs: c.mutated !== undefined,
  });
  const out = c.mutated !== undefined ? ran.slice(0, ran.length - c.inputs.length) : ran;
  c.mutated?.forEach((w, i) => {
    if (w === null) return;
    compareTo(ran[out.length + i], w, c, `input ${i} after the call`);
  });
  const want = c.outputs ?? [];
  // Only the outputs the case lists are compared (hidden outputs, e.g. sort's indices, are not).
  expect(out.length).toBeGreaterThanOrEqual(want.length);
  want.forEach((w, i) => {
    compareTo(out[i], w, c, `output ${i}`);
  });
}

function compareTo(o: OpResult | undefined, w: RawArray, c: GoldenCase, what: string): void {
  if (o === undefined) throw new Error(`missing ${what}`);
  expect(o.shape).toEqual(w.shape);
  expect(o.dtype).toBe(w.dtype);
  const raw = Array.from(o.data as ArrayLike<number | bigint>, Number);
  const got = w.dtype === 'float16' ? raw.map(fromHalfBits) : raw;
  const expected = (j: number) => {
    const e = num(w.data[j] as number | string);
    return w.dtype === 'float32' ? Math.fround(e) : e;
  };
  const bad = got.findIndex((v, j) => !close(v, expected(j), c.rtol, c.atol));
  expect(bad, `${what}: first mismatch at ${bad}: ${got[bad]} vs ${w.data[bad]}`).toBe(-1);
}

export interface GoldenOptions {
  /** Ops the family must have cases for. */
  readonly ops: readonly string[];
  /** At least this many bad-input cases. */
  readonly minErrorCases?: number;
  /** A run that must still work after the error cases (the harness and memory are intact). */
  readonly afterErrors: (h: OpHarness) => void;
}

/** One vitest test per golden case of `family`, plus coverage and recovery checks. */
export function describeGolden(family: string, options: GoldenOptions): void {
  const cases = loadGolden(family).filter((c) => c.skip === undefined);
  describe(`${family} golden cases on cpu-wasm (kernel level)`, () => {
    const h = createOpHarness();
    it('covers the family, with bad-input cases', () => {
      const ops = new Set(cases.map((c) => c.op));
      for (const op of options.ops) expect(ops.has(op), op).toBe(true);
      expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(
        options.minErrorCases ?? 1,
      );
    });
    for (const c of cases) it(c.name, () => checkGoldenCase(h, c));
    it('keeps working after the error cases', () => options.afterErrors(h));
  });
}
