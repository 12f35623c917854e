/**
 * The linalg family without a GPU: every golden case renders (bias kernels compile with nvcc and
 * NVRTC), and every cuBLAS call the kernels make is executed here by a plain column-major GEMM with
 * BLAS's semantics over a simulated device memory holding the case's inputs — so the row-major ↔
 * column-major mapping, leading dimensions, batch strides, transposes and req handling of dot,
 * batch_dot, _linalg_gemm2, _backward_dot and FullyConnected (cases that need no bias kernel) are
 * checked against the NumPy golden outputs.
 */
import { type ConformanceCase, compareArrays } from '@mx/conformance';
import type { TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import type { GemmCall } from '../../runtime.js';
import { itCompiles } from '../../test-util/compile.js';
import { type CaseMarks, renderCases } from '../../test-util/render.js';
import { columnMajorCall } from './gemm.js';
import { installLinalg } from './index.js';

/** BLAS sgemm/dgemm in column-major order on a map of device address → element array. */
function blasGemm(mem: (addr: number) => [Float64Array, number], g: GemmCall): void {
  for (let b = 0; b < g.batch; b++) {
    // With k = 0 BLAS never reads A or B (their pointers may be null).
    const [A, a0] = g.k > 0 ? mem(g.a) : [new Float64Array(0), 0];
    const [B, b0] = g.k > 0 ? mem(g.b) : [new Float64Array(0), 0];
    const [C, c0] = mem(g.c);
    const ao = a0 + b * g.strideA;
    const bo = b0 + b * g.strideB;
    const co = c0 + b * g.strideC;
    for (let j = 0; j < g.n; j++) {
      for (let i = 0; i < g.m; i++) {
        let s = 0;
        for (let l = 0; l < g.k; l++) {
          const a = g.transA ? (A[ao + l + i * g.lda] as number) : (A[ao + i + l * g.lda] as number);
          const bv = g.transB ? (B[bo + j + l * g.ldb] as number) : (B[bo + l + j * g.ldb] as number);
          s += a * bv;
        }
        const idx = co + i + j * g.ldc;
        C[idx] = g.alpha * s + (g.beta === 0 ? 0 : g.beta * (C[idx] as number));
      }
    }
  }
}

describe('row-major GEMM on column-major cuBLAS', () => {
  it('maps C = op(A)·op(B) for every transpose pair', () => {
    const m = 3;
    const n = 4;
    const k = 5;
    for (const ta of [false, true]) {
      for (const tb of [false, true]) {
        const A = Float64Array.from({ length: m * k }, (_, i) => i + 1);
        const B = Float64Array.from({ length: k * n }, (_, i) => (i % 7) - 3);
        const C = new Float64Array(m * n);
        const at = (i: number, l: number) => (ta ? (A[l * m + i] as number) : (A[i * k + l] as number));
        const bt = (l: number, j: number) => (tb ? (B[j * k + l] as number) : (B[l * n + j] as number));
        const want = Array.from({ length: m * n }, (_, x) => {
          let s = 0;
          for (let l = 0; l < k; l++) s += at(Math.floor(x / n), l) * bt(l, x % n);
          return s;
        });
        const arrays = new Map<number, Float64Array>([
          [1000, A],
          [2000, B],
          [3000, C],
        ]);
        const call = columnMajorCall({
          m,
          n,
          k,
          a: { addr: 1000, ld: ta ? m : k, trans: ta },
          b: { addr: 2000, ld: tb ? k : n, trans: tb },
          c: { addr: 3000, ld: n },
          alpha: 1,
          beta: 0,
          dtype: 'float64',
        });
        blasGemm((a) => [arrays.get(a) as Float64Array, 0], call);
        expect([...C]).toEqual(want);
      }
    }
  });
});

describe('cuda linalg kernels', () => {
  const checked: string[] = [];
  const wrong: string[] = [];
  const simulate = (
    c: ConformanceCase,
    inputs: readonly TBlob<number>[],
    outputs: readonly TBlob<number>[],
    from: CaseMarks,
  ) => {
    // Cases that also ran kernels (the bias passes) are checked by compiling them, not here.
    if (from.rt.launches.length > from.launches) return;
    const blobs = [...inputs, ...outputs];
    const data = new Map<number, Float64Array>();
    blobs.forEach((b, i) => {
      if (b.ptr === null) return;
      const src = i < inputs.length ? c.inputs[i]?.data : undefined;
      data.set(b.ptr, src ? Float64Array.from(src as ArrayLike<number>) : new Float64Array(b.size));
    });
    const mem = (addr: number): [Float64Array, number] => {
      for (const b of blobs) {
        if (b.ptr === null) continue;
        const bytes = b.dtype === 'float64' ? 8 : 4;
        if (addr >= b.ptr && addr < b.ptr + Math.max(1, b.size) * bytes)
          return [data.get(b.ptr) as Float64Array, (addr - b.ptr) / bytes];
      }
      throw new Error(`address ${addr} is in no blob`);
    };
    for (const { call } of from.rt.gemms.slice(from.gemms)) blasGemm(mem, call);
    outputs.forEach((o, i) => {
      const want = c.outputs?.[i];
      if (want === undefined || o.ptr === null) return;
      const got = data.get(o.ptr) as Float64Array;
      const res = compareArrays(
        { shape: o.shape, dtype: 'float64', data: got },
        { shape: want.shape, dtype: 'float64', data: Float64Array.from(want.data as ArrayLike<number>) },
        Math.max(c.rtol, 1e-5),
        Math.max(c.atol, 1e-5),
      );
      if (!res.ok) wrong.push(`${c.name} output ${i}`);
    });
    checked.push(c.name);
  };
  const r = renderCases(
    ['linalg', 'nn_layers'],
    (op) => /dot|gemm|FullyConnected/.test(op),
    installLinalg,
    simulate,
  );

  it('renders every case; cuBLAS calls follow its argument rules', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual([
      'FullyConnected',
      '_backward_FullyConnected',
      '_backward_dot',
      '_linalg_gemm2',
      'batch_dot',
      'dot',
    ]);
  });
  it('computes the golden outputs when its cuBLAS calls run as BLAS', () => {
    expect(wrong).toEqual([]);
    expect(checked.length).toBeGreaterThan(80);
  });
  itCompiles(() => [r.rt]);
});
