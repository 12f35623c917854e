/**
 * The random layers on cpu-wasm, where golden data cannot go: Dropout's dropped fraction, the
 * 1/(1-p) scaling, masks shared along `axes`, the backward pass through the mask, seeds, modes and
 * the missing-generator error; rrelu's training-time slopes and their use in the backward pass.
 */
import { cpu, isMXNetError, type Shape } from '@mx/base';
import { ParallelRandomResource } from '@mx/storage';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../../../test-util/run-op.js';

const h = createOpHarness();
const bank = (seed: number) => new ParallelRandomResource(cpu(), 0, 1024, seed);

function ramp(shape: Shape, dtype: 'float32' | 'float64' = 'float32'): HostArray {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = Array.from({ length: n }, (_, i) => 1 + (i % 97) / 10);
  return { shape, dtype, data: dtype === 'float32' ? Float32Array.from(data) : Float64Array.from(data) };
}

describe('Dropout on cpu-wasm', () => {
  for (const dtype of ['float32', 'float64'] as const) {
    it(`drops a fraction p and scales the rest by 1/(1-p) (${dtype})`, () => {
      const x = ramp([200, 500], dtype);
      const p = 0.3;
      const [y, mask] = h.run('Dropout', [x], { p }, { isTrain: true, requested: [bank(1)] });
      const keep = dtype === 'float32' ? Math.fround(1 / Math.fround(0.7)) : 1 / 0.7;
      let dropped = 0;
      let bad = 0;
      const yv = y?.data as Float32Array;
      const mv = mask?.data as Float32Array;
      for (let i = 0; i < yv.length; i++) {
        const m = mv[i] as number;
        if (m !== 0 && m !== keep) bad++;
        if (m === 0) {
          dropped++;
          if (yv[i] !== 0) bad++;
        } else {
          const want = (x.data[i] as number) * keep;
          if (yv[i] !== (dtype === 'float32' ? Math.fround(want) : want)) bad++;
        }
      }
      expect(bad).toBe(0);
      // 1e5 Bernoulli(0.3) draws: standard error 0.0015.
      expect(Math.abs(dropped / yv.length - p)).toBeLessThan(0.01);
    });
  }

  it('shares one draw along `axes` (mask broadcast) and backprops ograd · mask', () => {
    const x = ramp([40, 8, 30]);
    const [y, mask] = h.run('Dropout', [x], { p: 0.5, axes: [1] }, { isTrain: true, requested: [bank(2)] });
    expect(mask?.shape).toEqual([40, 1, 30]);
    const yv = y?.data as Float32Array;
    const mv = mask?.data as Float32Array;
    let zeros = 0;
    let bad = 0;
    for (let a = 0; a < 40; a++) {
      for (let c = 0; c < 30; c++) {
        const m = mv[a * 30 + c] as number;
        if (m === 0) zeros++;
        for (let b = 0; b < 8; b++) {
          const i = (a * 8 + b) * 30 + c;
          if (yv[i] !== Math.fround((x.data[i] as number) * m)) bad++;
        }
      }
    }
    expect(bad).toBe(0);
    expect(Math.abs(zeros / 1200 - 0.5)).toBeLessThan(0.06);
    const og = ramp([40, 8, 30]);
    const [dx] = h.run(
      '_backward_Dropout',
      [og, mask as HostArray],
      { p: 0.5, axes: [1] },
      { isTrain: true },
    );
    const dv = dx?.data as Float32Array;
    for (let i = 0; i < dv.length; i++) {
      const a = Math.floor(i / 240);
      const c = i % 30;
      if (dv[i] !== Math.fround((og.data[i] as number) * (mv[a * 30 + c] as number))) bad++;
    }
    expect(bad).toBe(0);
  });

  it('is reproducible from a seed and differs between seeds', () => {
    const x = ramp([1000]);
    const run = (seed: number) =>
      Array.from(
        h.run('Dropout', [x], { p: 0.5 }, { isTrain: true, requested: [bank(seed)] })[1]
          ?.data as Float32Array,
      );
    expect(run(3)).toEqual(run(3));
    expect(run(3)).not.toEqual(run(4));
  });

  it('copies outside training, drops with mode=always, zeroes everything at p=1', () => {
    const x = ramp([50, 20]);
    const [y] = h.run('Dropout', [x], { p: 0.5 });
    expect(Array.from(y?.data as Float32Array)).toEqual(Array.from(x.data as Float32Array));
    const [ya, ma] = h.run('Dropout', [x], { p: 0.5, mode: 'always' }, { requested: [bank(5)] });
    const zeros = Array.from(ma?.data as Float32Array).filter((m) => m === 0).length;
    expect(zeros).toBeGreaterThan(350);
    expect(zeros).toBeLessThan(650);
    expect(Array.from(ya?.data as Float32Array).filter((t) => t === 0).length).toBe(zeros);
    const [y1, m1] = h.run('Dropout', [x], { p: 1 }, { isTrain: true, requested: [bank(6)] });
    expect(Array.from(y1?.data as Float32Array).every((t) => t === 0)).toBe(true);
    expect(Array.from(m1?.data as Float32Array).every((t) => t === 0)).toBe(true);
  });

  it('names the missing generator', () => {
    let err: unknown;
    try {
      h.run('Dropout', [ramp([4])], { p: 0.5 }, { isTrain: true });
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err)).toBe(true);
    expect((err as Error).message).toContain('no random generator');
  });
});

describe('LeakyReLU rrelu on cpu-wasm', () => {
  it('draws slopes in [lower, upper] in training and backprops through them', () => {
    const n = 20000;
    const x: HostArray = {
      shape: [n],
      dtype: 'float32',
      data: Float32Array.from({ length: n }, (_, i) => (i % 2 ? -1 : 1) * (1 + (i % 7))),
    };
    const p = { act_type: 'rrelu', lower_bound: 0.1, upper_bound: 0.3 };
    const [y, mask] = h.run('LeakyReLU', [x], p, { isTrain: true, requested: [bank(7)] });
    const yv = y?.data as Float32Array;
    const mv = mask?.data as Float32Array;
    let sum = 0;
    let bad = 0;
    for (let i = 0; i < n; i++) {
      const m = mv[i] as number;
      if (m < Math.fround(0.1) || m > Math.fround(0.3)) bad++;
      sum += m;
      const xv = x.data[i] as number;
      if (yv[i] !== (xv > 0 ? xv : Math.fround(xv * m))) bad++;
    }
    expect(bad).toBe(0);
    expect(Math.abs(sum / n - 0.2)).toBeLessThan(0.005);
    const og: HostArray = { shape: [n], dtype: 'float32', data: new Float32Array(n).fill(2) };
    const [dx] = h.run('_backward_LeakyReLU', [og, x, y as HostArray, mask as HostArray], p);
    const dv = dx?.data as Float32Array;
    for (let i = 0; i < n; i++)
      if (dv[i] !== ((x.data[i] as number) > 0 ? 2 : Math.fround(2 * (mv[i] as number)))) bad++;
    expect(bad).toBe(0);
  });

  it('uses (lower + upper) / 2 outside training and keeps it in the mask', () => {
    const x: HostArray = { shape: [4], dtype: 'float32', data: [-2, -1, 1, 2] };
    const [y, mask] = h.run('LeakyReLU', [x], { act_type: 'rrelu', lower_bound: 0.1, upper_bound: 0.3 });
    expect(Array.from(y?.data as Float32Array)).toEqual([-0.4, -0.2, 1, 2].map(Math.fround));
    expect(Array.from(mask?.data as Float32Array)).toEqual([0.2, 0.2, 0.2, 0.2].map(Math.fround));
  });
});
