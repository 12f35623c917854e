/**
 * Deterministic initializers against NumPy (tools/golden/gluon/init_metric.py): Bilinear, LSTMBias,
 * Constant values exactly, Orthogonal's SVD factor up to the sign of each singular vector, and
 * Orthogonal on the runtime: W Wᵀ = scale² I (or Wᵀ W) and W built from the runtime's own draw.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/init.json' with { type: 'json' };
import {
  Bilinear,
  bilinearKernel,
  Constant,
  LSTMBias,
  One,
  Orthogonal,
  orthogonalFactor,
  Zero,
} from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 77 });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

async function values(a: NDArray): Promise<number[]> {
  return Array.from((await a.data()) as ArrayLike<number>);
}

describe('Bilinear, LSTMBias, Constant, Zero, One', () => {
  it('Bilinear writes the upsampling kernel NumPy computes', async () => {
    for (const g of golden.bilinear) {
      expect(Array.from(bilinearKernel(g.shape))).toEqual(g.values);
      const w = nd.zeros(g.shape);
      new Bilinear().init('deconv_weight', w);
      expect(await values(w)).toEqual(g.values);
      w.dispose();
    }
  });

  it('Bilinear refuses non-4-D weights', () => {
    const w = nd.zeros([2, 3, 4]);
    expect(() => new Bilinear().init('d_weight', w)).toThrow(/needs a 4-D weight, got \(2, 3, 4\)/);
    w.dispose();
  });

  it('LSTMBias sets the forget gate block and zeros the rest', async () => {
    for (const g of golden.lstmbias) {
      const b = nd.full(g.shape, 9);
      new LSTMBias(g.forget_bias).init('lstm_i2h_weight', b);
      expect(await values(b)).toEqual(g.values);
      b.dispose();
    }
    expect(new LSTMBias().forgetBias).toBe(1);
  });

  it('Constant fills scalars and broadcasts arrays (NumPy broadcast_to)', async () => {
    for (const g of golden.constant) {
      for (const asArray of [false, true]) {
        const w = nd.zeros(g.shape);
        const source = asArray && typeof g.value !== 'number' ? nd.array(g.value as number[][]) : undefined;
        new Constant(source ?? (g.value as number | number[])).init('c_weight', w);
        expect(await values(w)).toEqual(g.values);
        w.dispose();
        source?.dispose();
      }
    }
  });

  it('Constant casts to the weight dtype and refuses shapes it cannot broadcast', async () => {
    const w = nd.zeros([2, 2], { dtype: 'int32' });
    new Constant([[1.9, -2.9]]).init('c_weight', w);
    expect(await values(w)).toEqual([1, -2, 1, -2]);
    const bad = nd.full([2, 3], 5);
    expect(() => new Constant([1, 2]).init('c_weight', bad)).toThrow();
    expect(await values(bad)).toEqual([5, 5, 5, 5, 5, 5]);
    w.dispose();
    bad.dispose();
    expect(() => new Constant('1' as unknown as number)).toThrow(/must be a number or an array/);
  });

  it('Zero and One fill weights', async () => {
    const w = nd.full([3], 4);
    new Zero().init('a_weight', w);
    expect(await values(w)).toEqual([0, 0, 0]);
    new One().init('a_weight', w);
    expect(await values(w)).toEqual([1, 1, 1]);
    w.dispose();
  });

  it('do not leak arrays', async () => {
    const w = nd.zeros([2, 3]);
    const w4 = nd.zeros([1, 1, 2, 3]);
    await nd.leakCheck(async () => {
      new Constant([[1], [2]]).init('c_weight', w);
      new LSTMBias(2).init('b_weight', w);
      new Bilinear().init('upsampling_x', w4);
      await w.data();
      await w4.data();
    });
    w.dispose();
    w4.dispose();
  });
});

/** Columns (rows >= cols) or rows of `a` flipped so the largest entry of each vector is positive. */
function canonical(a: ArrayLike<number>, rows: number, cols: number): number[] {
  const out = Array.from(a);
  const byColumn = rows >= cols;
  const count = byColumn ? cols : rows;
  const len = byColumn ? rows : cols;
  const at = (v: number, i: number) => (byColumn ? i * cols + v : v * cols + i);
  for (let v = 0; v < count; v++) {
    let big = 0;
    for (let i = 0; i < len; i++)
      if (Math.abs(out[at(v, i)] as number) > Math.abs(out[at(v, big)] as number)) big = i;
    if ((out[at(v, big)] as number) < 0)
      for (let i = 0; i < len; i++) out[at(v, i)] = -(out[at(v, i)] as number);
  }
  return out;
}

describe('Orthogonal', () => {
  it('takes the SVD factor NumPy takes (U or Vᵀ), up to signs', () => {
    for (const g of golden.orthogonal) {
      const q = orthogonalFactor(g.sample, g.rows, g.cols).map((x) => x * g.scale);
      const ours = canonical(q, g.rows, g.cols);
      const theirs = canonical(g.factor, g.rows, g.cols);
      ours.forEach((x, i) => {
        expect(x).toBeCloseTo(theirs[i] as number, 10);
      });
    }
  });

  /** max |(W Wᵀ or Wᵀ W) - scale² I| in float64 from the float32 weight. */
  function gramError(w: ArrayLike<number>, rows: number, cols: number, scale: number): number {
    const byRows = rows <= cols;
    const n = byRows ? rows : cols;
    const len = byRows ? cols : rows;
    const at = (v: number, i: number) => (byRows ? v * cols + i : i * cols + v);
    let worst = 0;
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++) {
        let dot = 0;
        for (let i = 0; i < len; i++) dot += (w[at(a, i)] as number) * (w[at(b, i)] as number);
        worst = Math.max(worst, Math.abs(dot - (a === b ? scale * scale : 0)));
      }
    }
    return worst;
  }

  it('gives W Wᵀ = scale² I (rows <= cols) or Wᵀ W = scale² I on runtime draws', async () => {
    const cases: [number[], number, 'uniform' | 'normal'][] = [
      [[30, 50], 1.25, 'uniform'],
      [[50, 30], 0.5, 'normal'],
      [[4, 3, 5], 2, 'uniform'],
      [[16, 16], 1, 'normal'],
    ];
    for (const [shape, scale, randType] of cases) {
      const w = nd.zeros(shape);
      new Orthogonal({ scale, randType }).init('rnn_h2h_weight', w);
      const rows = shape[0] as number;
      const cols = w.size / rows;
      // float32 storage: each entry carries ~6e-8 relative error.
      expect(gramError((await w.data()) as Float32Array, rows, cols, scale)).toBeLessThan(
        1e-5 * scale * scale,
      );
      w.dispose();
    }
  });

  it("is scale times the SVD factor of the runtime's own uniform draw", async () => {
    const twin = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })], seed: 5 });
    const mine = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })], seed: 5 });
    const sample = twin.nd._random_uniform({ low: -1, high: 1, shape: [6, 10] });
    const expected = orthogonalFactor((await sample.data()) as Float32Array, 6, 10).map((x) =>
      Math.fround(x * 1.5),
    );
    const w = mine.nd.zeros([6, 10]);
    new Orthogonal({ scale: 1.5 }).init('w_weight', w);
    expect(Array.from((await w.data()) as Float32Array)).toEqual(Array.from(expected));
    await twin.dispose();
    await mine.dispose();
  });

  it('does not leak its sample', async () => {
    const w = nd.zeros([5, 7]);
    await nd.leakCheck(async () => {
      new Orthogonal({ scale: 1.5 }).init('w_weight', w);
      await w.data();
    });
    w.dispose();
  });
});
