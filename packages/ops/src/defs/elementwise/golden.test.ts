/**
 * The elementwise golden cases (NumPy, tools/golden/ops/elementwise.py) checked against the
 * definitions alone, without a backend: every case's op and params resolve, shape and dtype
 * inference give the expected output shape and dtype, bad-input cases fail with the expected
 * message at parse/inference time (or are flagged as kernel-time errors), and for float cases the
 * forward expression, evaluated in float64 by the test interpreter with broadcasting, reproduces
 * the expected values. This keeps the generator and the expressions honest about each other.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { broadcastShapes, type DTypeName, MXNetError, type Shape, shapeSize, stridesOf } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import { whereConditionView } from './index.js';
import { evalExpr } from './test-util/interp.js';

interface CaseArray {
  readonly shape: number[];
  readonly dtype: DTypeName;
  readonly data: (number | string)[];
}
interface GoldenCase {
  readonly name: string;
  readonly op: string;
  readonly params: Record<string, unknown>;
  readonly inputs: CaseArray[];
  readonly outputs?: CaseArray[];
  readonly error?: string;
  readonly rtol?: number;
  readonly atol?: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const file = resolve(here, '../../../../conformance/src/__golden__/elementwise.json');
const golden = JSON.parse(readFileSync(file, 'utf8')) as { cases: GoldenCase[] };
const registry = createOpRegistry();

const num = (v: number | string): number =>
  v === 'nan' ? Number.NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v);

function run(c: GoldenCase) {
  const op = registry.get(c.op);
  const attrs = op.parseParams(c.params);
  const inS: (Shape | undefined)[] = c.inputs.map((a) => a.shape);
  const outS: (Shape | undefined)[] = [undefined];
  const shapeDone = op.inferShape(attrs, inS, outS);
  const inT: (DTypeName | undefined)[] = c.inputs.map((a) => a.dtype);
  const outT: (DTypeName | undefined)[] = [undefined];
  const typeDone = op.inferType(attrs, inT, outT);
  return { op, attrs, shapeDone, typeDone, out: outS[0], dtype: outT[0] };
}

/** Read input `a` at output multi-index `idx` under NumPy broadcasting (view shape `view`). */
function at(a: CaseArray, view: Shape, outShape: Shape, idx: number[]): number {
  const strides = stridesOf(view);
  const off = outShape.length - view.length;
  let flat = 0;
  for (let d = 0; d < view.length; d++)
    if ((view[d] as number) !== 1) flat += (idx[off + d] as number) * (strides[d] as number);
  return num(a.data[flat] as number | string);
}

const isFloat = (d: DTypeName) => d === 'float32' || d === 'float64';

describe('elementwise golden cases agree with the definitions', () => {
  it('loads the generated cases', () => {
    expect(golden.cases.length).toBeGreaterThan(1000);
  });

  it.each(golden.cases.filter((c) => c.error !== undefined).map((c) => [c.name, c] as const))(
    'bad input %s fails before the kernel',
    (_n, c) => {
      let err: unknown;
      try {
        run(c);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MXNetError);
      expect((err as Error).message).toContain(c.error);
    },
  );

  const good = golden.cases.filter((c) => c.error === undefined);
  it.each(good.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const want = c.outputs?.[0];
    if (!want) throw new Error('case without outputs');
    const r = run(c);
    expect(r.shapeDone && r.typeDone).toBe(true);
    expect(r.out).toEqual(want.shape);
    expect(r.dtype).toBe(want.dtype);
    const ew = r.op.elementwise;
    if (!ew || ![...c.inputs.map((a) => a.dtype), want.dtype].every(isFloat)) return;
    // Float cases: evaluate the forward expression in float64 with broadcasting.
    const outShape = want.shape;
    const views = c.inputs.map((a) =>
      c.op === 'where' && a === c.inputs[0] ? whereConditionView(a.shape, outShape) : a.shape,
    );
    expect(broadcastShapes(outShape, ...views)).toEqual(outShape);
    const params: Record<string, number> = {};
    for (const [k, v] of Object.entries(r.attrs)) if (typeof v === 'number') params[k] = v;
    const n = shapeSize(outShape);
    const strides = stridesOf(outShape);
    const rtol = Math.max(c.rtol ?? 0, want.dtype === 'float32' ? 2e-6 : 1e-12);
    const atol = Math.max(c.atol ?? 0, want.dtype === 'float32' ? 1e-6 : 1e-14);
    for (let i = 0; i < n; i++) {
      const idx = strides.map((s, d) => Math.floor(i / s) % (outShape[d] as number));
      const inputs = c.inputs.map((a, k) => at(a, views[k] as Shape, outShape, idx));
      let got = evalExpr(ew.forward, { inputs, params });
      if (want.dtype === 'float32') got = Math.fround(got);
      const exp = num(want.data[i] as number | string);
      if (Number.isNaN(exp)) {
        expect(got, `${c.name}[${i}]`).toBeNaN();
      } else if (!Number.isFinite(exp)) {
        expect(got, `${c.name}[${i}]`).toBe(exp);
      } else {
        expect(Math.abs(got - exp), `${c.name}[${i}]: ${got} vs ${exp}`).toBeLessThanOrEqual(
          atol + rtol * Math.abs(exp),
        );
      }
    }
  });
});
