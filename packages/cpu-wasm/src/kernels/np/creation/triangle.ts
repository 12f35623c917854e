/**
 * cpu-wasm kernels of `_npi_tril` / `_npi_triu` and their gradients `_backward_tril` /
 * `_backward_triu` (MXNet 2.0 np_tril_op / np_triu_op). Each output row of each matrix is three
 * runs — zeros, the kept elements copied from the input row, zeros — so a row is two `fill`s and
 * one `set` on typed views, whatever the dtype (words are copied, never converted). A 1-D input is
 * the rows of a square matrix (every output row reads the same input row); the gradient of that
 * case sums ograd over the rows where each column was kept.
 */
import { DType, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { type Blob, defineKernel, withTarget } from '../../shape/kernel-util.js';

/** The kept columns [lo, hi) of row r of a (rows, cols) matrix: tril keeps c <= r + k, triu c >= r + k. */
export function keptColumns(lower: boolean, r: number, k: number, cols: number): [number, number] {
  if (lower) return [0, Math.max(0, Math.min(cols, r + k + 1))];
  return [Math.min(cols, Math.max(0, r + k)), cols];
}

type Words = {
  fill(v: number | bigint, s: number, e: number): void;
  set(a: ArrayLike<unknown>, o: number): void;
};

/** `t` = the lower/upper triangle (diagonal k) of `x` (same shape, or `x` 1-D: rows of a square). */
function triangle(rt: CpuWasmRuntime, lower: boolean, k: number, x: Blob, t: Blob): void {
  const nd = t.shape.length;
  const rows = t.shape[nd - 2] as number;
  const cols = t.shape[nd - 1] as number;
  const xs = rt.view(x) as unknown as { subarray(s: number, e: number): ArrayLike<unknown> };
  const ts = rt.view(t) as unknown as Words;
  const zero = DType[t.dtype].bytes === 8 && t.dtype !== 'float64' ? 0n : 0;
  const oneRow = x.shape.length === 1;
  const mats = rows * cols === 0 ? 0 : t.size / (rows * cols);
  for (let b = 0; b < mats; b++) {
    for (let r = 0; r < rows; r++) {
      const o = (b * rows + r) * cols;
      const src = oneRow ? 0 : o;
      const [lo, hi] = keptColumns(lower, r, k, cols);
      if (lo > 0) ts.fill(zero, o, o + lo);
      if (hi > lo) ts.set(xs.subarray(src + lo, src + hi), o + lo);
      if (hi < cols) ts.fill(zero, o + hi, o + cols);
    }
  }
}

/** Gradient for a 1-D input: out[c] = Σ over rows r that kept column c of ograd[r, c]. */
function columnSums(
  rt: CpuWasmRuntime,
  op: string,
  lower: boolean,
  k: number,
  og: Blob,
  out: Blob,
  req: OpReqType,
): void {
  if (req === OpReq.null || out.size === 0) return;
  if (out.dtype === 'float16' || out.dtype === 'bfloat16' || out.dtype === 'bool') {
    throw new MXNetError(`${op} of a 1-d input does not support dtype ${out.dtype} on cpu-wasm`, {
      op,
      dtypes: [out.dtype],
      device: 'cpu-wasm',
      hint: 'compute the gradient in float32 or float64',
    });
  }
  const n = out.size;
  const g = rt.view(og) as unknown as ArrayLike<number | bigint>;
  const o = rt.view(out) as unknown as { [i: number]: number | bigint };
  const big = typeof g[0] === 'bigint';
  for (let c = 0; c < n; c++) {
    let s: number | bigint = big ? 0n : 0;
    for (let r = 0; r < n; r++) {
      const [lo, hi] = keptColumns(lower, r, k, n);
      if (c >= lo && c < hi)
        s = big ? (s as bigint) + (g[r * n + c] as bigint) : (s as number) + (g[r * n + c] as number);
    }
    if (req === OpReq.add) o[c] = big ? (o[c] as bigint) + (s as bigint) : (o[c] as number) + (s as number);
    else o[c] = s;
  }
}

export function installTriangle(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const [name, back, lower] of [
    ['_npi_tril', '_backward_tril', true],
    ['_npi_triu', '_backward_triu', false],
  ] as const) {
    defineKernel<{ k: number }>(registry, name, (a, [x], [r], [y]) =>
      withTarget(rt, y as Blob, r as OpReqType, name, (t) => triangle(rt, lower, a.k, x as Blob, t)),
    );
    defineKernel<{ k: number }>(registry, back, (a, [g], [r], [y]) => {
      const out = y as Blob;
      if (out.shape.length === 1) columnSums(rt, back, lower, a.k, g as Blob, out, r as OpReqType);
      else withTarget(rt, out, r as OpReqType, back, (t) => triangle(rt, lower, a.k, g as Blob, t));
    });
  }
}
