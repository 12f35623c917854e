/**
 * Test support for the codegen suites: loads tools/golden/ops/codegen.py's cases, decodes arrays
 * for the op harness, and defines a throwaway op per expression (the cases carry an expression
 * instead of a registered op name). Not exported from the package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DType, type DTypeName, type Shape } from '@mx/base';
import { type Expr, type OpRegistry, P } from '@mx/ops';
import type { HostArray } from '../test-util/run-op.js';
import { fromBFloat16Bits, fromHalfBits, toBFloat16Bits, toHalfBits } from './half.js';

export interface RawArray {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | string)[];
}

export interface CodegenCase {
  readonly name: string;
  /** 'expr' (a throwaway op per case) or a registered op name (Cast). */
  readonly op: string;
  readonly params: {
    readonly expr: Expr;
    readonly broadcast?: boolean;
    readonly scalar?: number;
    readonly dtype?: string;
  };
  readonly inputs: RawArray[];
  readonly outputs?: RawArray[];
  readonly error?: string;
  readonly rtol: number;
  readonly atol: number;
  readonly req?: 'add';
  readonly out_init?: RawArray;
}

export function loadCodegenCases(): CodegenCase[] {
  const file = fileURLToPath(new URL('./__golden__/codegen.json', import.meta.url));
  return (JSON.parse(readFileSync(file, 'utf8')) as { cases: CodegenCase[] }).cases;
}

export const num = (v: number | string): number =>
  typeof v === 'number' ? v : v === 'nan' ? Number.NaN : v === 'inf' ? Infinity : -Infinity;

export function host(a: RawArray): HostArray {
  const dtype = a.dtype as DTypeName;
  const big = DType[dtype].bigint;
  const enc = (x: number): number | bigint =>
    big ? BigInt(x) : dtype === 'float16' ? toHalfBits(x) : dtype === 'bfloat16' ? toBFloat16Bits(x) : x;
  return { shape: a.shape, dtype, data: a.data.map((v) => enc(num(v))) };
}

/** Values of a result array (half types decoded from their bits). */
export function values(dtype: DTypeName, data: ArrayLike<number | bigint>): number[] {
  return Array.from(data, (v) =>
    dtype === 'float16'
      ? fromHalfBits(Number(v))
      : dtype === 'bfloat16'
        ? fromBFloat16Bits(Number(v))
        : Number(v),
  );
}

/** numpy.isclose with equal_nan. */
export function close(a: number, e: number, rtol: number, atol: number): boolean {
  if (Number.isNaN(e)) return Number.isNaN(a);
  if (!Number.isFinite(e)) return a === e;
  return Math.abs(a - e) <= atol + rtol * Math.abs(e);
}

/** Broadcast shapes by per-dim max (no checks: the kernel must report incompatible shapes). */
function broadcastShape(shapes: readonly Shape[]): number[] {
  const r = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < r; i++) {
    let d = 1;
    for (const s of shapes) {
      const x = s[s.length - r + i] ?? 1;
      if (x !== 1) d = d === 1 ? x : Math.max(d, x);
    }
    // A zero-size dim wins over 1.
    if (shapes.some((s) => (s[s.length - r + i] ?? 1) === 0)) d = 0;
    out.push(d);
  }
  return out;
}

/** Define an op computing `expr` with output dtype `outDtype`; returns its name. */
export function defineExprOp(
  registry: OpRegistry,
  name: string,
  expr: Expr,
  nIn: number,
  outDtype: DTypeName,
  broadcast = false,
): string {
  registry.define({
    name,
    numInputs: nIn,
    params: { scalar: P.double({ default: 0 }) },
    elementwise: { forward: expr, broadcast },
    inferShape: (_a, ins, outs) => {
      outs[0] = broadcastShape(ins as Shape[]);
      return true;
    },
    inferType: (_a, _ins, outs) => {
      outs[0] = outDtype;
      return true;
    },
  });
  return name;
}
