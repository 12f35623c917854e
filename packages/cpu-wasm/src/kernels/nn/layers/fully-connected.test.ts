/**
 * FullyConnected at MLP size (128×784 → 512, float32) against a plain JavaScript reference, forward
 * and backward, with req write, add (accumulating onto existing values) and null (skipped); and
 * flatten=False on 3-d data in float64.
 */
import { cpu, DType, type DTypeName, type Shape } from '@mx/base';
import { OpReq, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../../../test-util/run-op.js';

const h = createOpHarness();

function rand(shape: Shape, seed: number, dtype: DTypeName = 'float32'): HostArray {
  let s = seed;
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    data[i] = s / 2 ** 32 - 0.5;
  }
  return { shape, dtype, data: dtype === 'float32' ? Float32Array.from(data) : data };
}

function v(a: HostArray, i: number): number {
  return a.data[i] as number;
}

/** Plain triple loops in float64. */
function reference(x: HostArray, w: HostArray, b: HostArray, dy: HostArray, m: number, k: number, n: number) {
  const y = new Float64Array(m * n);
  const dx = new Float64Array(m * k);
  const dw = new Float64Array(n * k);
  const db = new Float64Array(n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = v(b, j);
      for (let p = 0; p < k; p++) s += v(x, i * k + p) * v(w, j * k + p);
      y[i * n + j] = s;
      const g = v(dy, i * n + j);
      db[j] = (db[j] as number) + g;
      for (let p = 0; p < k; p++) {
        dx[i * k + p] = (dx[i * k + p] as number) + g * v(w, j * k + p);
        dw[j * k + p] = (dw[j * k + p] as number) + g * v(x, i * k + p);
      }
    }
  }
  return { y, dx, dw, db };
}

function expectClose(
  got: ArrayLike<number | bigint>,
  want: ArrayLike<number>,
  tol: number,
  what: string,
): void {
  expect(got.length).toBe(want.length);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(Number(got[i]) - (want[i] as number)) / (1 + Math.abs(want[i] as number));
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  expect(worst, `${what}: worst relative error at ${at}`).toBeLessThan(tol);
}

describe('FullyConnected on cpu-wasm at 128×784 → 512', () => {
  const [m, k, n] = [128, 784, 512];
  const x = rand([m, k], 1);
  const w = rand([n, k], 2);
  const b = rand([n], 3);
  const dy = rand([m, n], 4);
  const ref = reference(x, w, b, dy, m, k, n);
  const p = { num_hidden: n };

  it('forward with req write and add', () => {
    const [y] = h.run('FullyConnected', [x, w, b], p);
    expectClose(y?.data as Float32Array, ref.y, 2e-5, 'y');
    const base = rand([m, n], 5);
    const [ya] = h.run('FullyConnected', [x, w, b], p, { req: 'add', out: [base] });
    expectClose(
      ya?.data as Float32Array,
      ref.y.map((t, i) => t + v(base, i)),
      2e-5,
      'y (add)',
    );
  });

  it('backward with req write and add', () => {
    const [dx, dw, db] = h.run('_backward_FullyConnected', [dy, x, w], p);
    expectClose(dx?.data as Float32Array, ref.dx, 2e-5, 'dx');
    expectClose(dw?.data as Float32Array, ref.dw, 2e-5, 'dw');
    expectClose(db?.data as Float32Array, ref.db, 2e-5, 'db');
    const o = [rand([m, k], 6), rand([n, k], 7), rand([n], 8)];
    const [dxa, dwa, dba] = h.run('_backward_FullyConnected', [dy, x, w], p, { req: 'add', out: o });
    expectClose(
      dxa?.data as Float32Array,
      ref.dx.map((t, i) => t + v(o[0] as HostArray, i)),
      2e-5,
      'dx (add)',
    );
    expectClose(
      dwa?.data as Float32Array,
      ref.dw.map((t, i) => t + v(o[1] as HostArray, i)),
      2e-5,
      'dw (add)',
    );
    expectClose(
      dba?.data as Float32Array,
      ref.db.map((t, i) => t + v(o[2] as HostArray, i)),
      2e-5,
      'db (add)',
    );
  });

  it('no_bias, and flatten=False on 3-d float64 data', () => {
    const x3 = rand([2, 3, 5], 9, 'float64');
    const w3 = rand([4, 5], 10, 'float64');
    const [y] = h.run('FullyConnected', [x3, w3], { num_hidden: 4, no_bias: true, flatten: false });
    expect(y?.shape).toEqual([2, 3, 4]);
    const zero = { shape: [4], dtype: 'float64' as const, data: new Float64Array(4) };
    const dy3 = rand([6, 4], 11, 'float64');
    const r = reference({ ...x3, shape: [6, 5] }, w3, zero, dy3, 6, 5, 4);
    expectClose(y?.data as Float64Array, r.y, 1e-13, 'y');
    const [dx, dw] = h.run('_backward_FullyConnected', [{ ...dy3, shape: [2, 3, 4] }, x3, w3], {
      num_hidden: 4,
      no_bias: true,
      flatten: false,
    });
    expect(dx?.shape).toEqual([2, 3, 5]);
    expectClose(dx?.data as Float64Array, r.dx, 1e-13, 'dx');
    expectClose(dw?.data as Float64Array, r.dw, 1e-13, 'dw');
  });

  it('skips the gradients whose req is null', () => {
    const be = h.backend;
    const alloc = be.allocator(cpu());
    const blob = (a: HostArray): TBlob<number> => {
      const size = a.shape.reduce((q, r) => q * r, 1);
      const ptr = alloc.alloc(size * DType[a.dtype].bytes) as number;
      const bl = { ptr, byteOffset: 0, shape: [...a.shape], dtype: a.dtype, size };
      be.write(bl, Float32Array.from(a.data as ArrayLike<number>));
      return bl;
    };
    const xs = rand([6, 5], 12);
    const ws = rand([3, 5], 13);
    const dys = rand([6, 3], 14);
    const sentinel = (shape: Shape): HostArray => ({
      shape,
      dtype: 'float32',
      data: new Float32Array(shape.reduce((q, r) => q * r, 1)).fill(7),
    });
    const outs = [blob(sentinel([6, 5])), blob(sentinel([3, 5])), blob(sentinel([3]))];
    const op = h.registry.get('_backward_FullyConnected');
    h.registry
      .kernel(op, 'cpu-wasm')
      ?.compute?.(
        op.parseParams({ num_hidden: 3 }),
        { isTrain: true, needGrad: true, ctx: cpu(), requested: [] },
        [blob(dys), blob(xs), blob(ws)],
        [OpReq.null, OpReq.write, OpReq.null],
        outs,
      );
    expect([...be.readSync(outs[0] as TBlob<number>)].every((t) => t === 7)).toBe(true);
    expect([...be.readSync(outs[2] as TBlob<number>)].every((t) => t === 7)).toBe(true);
    const zero = { shape: [3], dtype: 'float32' as const, data: new Float32Array(3) };
    expectClose(
      be.readSync(outs[1] as TBlob<number>) as Float32Array,
      reference(xs, ws, zero, dys, 6, 5, 3).dw,
      2e-6,
      'dw',
    );
  });
});
