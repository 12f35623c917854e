/**
 * softmax / log_softmax on cpu-wasm beyond the golden cases: rows large enough to be split across
 * the worker pool (checked against a float64 reference), ±inf and huge entries, req add for the
 * forward (through scratch) and the backward (the accumulating SIMD variants), in-place use (the
 * output aliasing the input, which MXNet's FInplaceOption allows) and the SIMD path agreeing with
 * the general loop on the same rows.
 */
import { cpu, DType, type Shape } from '@mx/base';
import { type Attrs, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../../../test-util/run-op.js';

const h = createOpHarness();

function rand(shape: Shape, seed: number, scale = 3, dtype: 'float32' | 'float64' = 'float32'): HostArray {
  let s = seed;
  const n = shape.reduce((a, b) => a * b, 1);
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    d[i] = (s / 2 ** 32 - 0.5) * scale;
  }
  return { shape, dtype, data: dtype === 'float32' ? Float32Array.from(d) : d };
}

function refSoftmax(x: ArrayLike<number>, rows: number, m: number, log: boolean): Float64Array {
  const out = new Float64Array(rows * m);
  for (let r = 0; r < rows; r++) {
    let mx = -Infinity;
    for (let j = 0; j < m; j++) mx = Math.max(mx, x[r * m + j] as number);
    let s = 0;
    for (let j = 0; j < m; j++) s += Math.exp((x[r * m + j] as number) - mx);
    for (let j = 0; j < m; j++) {
      const z = (x[r * m + j] as number) - mx;
      out[r * m + j] = log ? z - Math.log(s) : Math.exp(z) / s;
    }
  }
  return out;
}

function maxErr(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let e = 0;
  for (let i = 0; i < want.length; i++) {
    e = Math.max(
      e,
      Math.abs((got[i] as number) - (want[i] as number)) / (1e-6 + Math.abs(want[i] as number)),
    );
  }
  return e;
}

/** Run a kernel on blobs of the harness memory directly (aliasing, per-output req). */
function direct(
  op: string,
  params: Record<string, unknown>,
  ins: TBlob<number>[],
  req: OpReqType[],
  outs: TBlob<number>[],
) {
  const o = h.registry.get(op);
  h.registry
    .kernel(o, 'cpu-wasm')
    ?.compute?.(
      o.parseParams(params) as Attrs,
      { isTrain: false, needGrad: false, ctx: cpu(), requested: [] },
      ins,
      req,
      outs,
    );
}

function blob(a: HostArray): TBlob<number> {
  const size = a.shape.reduce((q, r) => q * r, 1);
  const ptr = h.backend.allocator(cpu()).alloc(size * DType[a.dtype].bytes) as number;
  const b = { ptr, byteOffset: 0, shape: [...a.shape], dtype: a.dtype, size };
  h.backend.write(b, (a.dtype === 'float32' ? Float32Array : Float64Array).from(a.data as ArrayLike<number>));
  return b;
}

describe('softmax family on cpu-wasm', () => {
  for (const log of [false, true]) {
    const op = log ? 'log_softmax' : 'softmax';
    it(`${op}: 64 × 8195 rows split across the pool match a float64 reference`, () => {
      const x = rand([64, 8195], 1);
      const [y] = h.run(op, [x], {});
      expect(maxErr(y?.data as Float32Array, refSoftmax(x.data as Float32Array, 64, 8195, log))).toBeLessThan(
        2e-5,
      );
      // backward over the same rows, req add onto ones
      const og = rand([64, 8195], 2, 1);
      const ones: HostArray = {
        shape: [64, 8195],
        dtype: 'float32',
        data: new Float32Array(64 * 8195).fill(1),
      };
      const [dx] = h.run(`_backward_${op}`, [og, y as HostArray], {}, { req: 'add', out: [ones] });
      const yv = y?.data as Float32Array;
      const gv = og.data as Float32Array;
      const want = new Float64Array(64 * 8195);
      for (let r = 0; r < 64; r++) {
        let s = 0;
        for (let j = 0; j < 8195; j++)
          s += log
            ? (gv[r * 8195 + j] as number)
            : (gv[r * 8195 + j] as number) * (yv[r * 8195 + j] as number);
        for (let j = 0; j < 8195; j++) {
          const i = r * 8195 + j;
          const g = gv[i] as number;
          const yy = yv[i] as number;
          want[i] = 1 + (log ? g - Math.exp(yy) * s : yy * (g - s));
        }
      }
      expect(maxErr(dx?.data as Float32Array, want)).toBeLessThan(1e-3);
    });
  }

  it('handles -inf, +huge and a row of equal values', () => {
    const x: HostArray = {
      shape: [3, 5],
      dtype: 'float32',
      data: [-Infinity, 0, -Infinity, 1, 2, 3.4e38, 3.4e38, -3.4e38, 0, 1, 7, 7, 7, 7, 7],
    };
    const [y] = h.run('softmax', [x], {});
    const yv = Array.from(y?.data as Float32Array);
    expect(yv[0]).toBe(0);
    expect(yv[2]).toBe(0);
    expect(yv.slice(5, 10)).toEqual([0.5, 0.5, 0, 0, 0]);
    for (const v of yv.slice(10)) expect(v).toBeCloseTo(0.2, 6);
    const [l] = h.run('log_softmax', [x], {});
    expect(Array.from(l?.data as Float32Array)[0]).toBe(-Infinity);
  });

  it('forward req add accumulates; the output may alias the input', () => {
    const x = rand([5, 13], 3, 3, 'float64');
    const ref = refSoftmax(x.data as Float64Array, 5, 13, false);
    const base: HostArray = { shape: [5, 13], dtype: 'float64', data: new Float64Array(65).fill(0.5) };
    const [ya] = h.run('softmax', [x], {}, { req: 'add', out: [base] });
    expect(
      maxErr(
        ya?.data as Float64Array,
        ref.map((t) => t + 0.5),
      ),
    ).toBeLessThan(1e-13);
    for (const op of ['softmax', 'log_softmax']) {
      const b = blob(x);
      direct(op, {}, [b], [OpReq.write], [b]);
      const got = h.backend.readSync(b) as Float64Array;
      expect(maxErr(got, refSoftmax(x.data as Float64Array, 5, 13, op === 'log_softmax'))).toBeLessThan(
        1e-13,
      );
      // backward in place over ograd: dx aliases og
      const og = rand([5, 13], 4, 1, 'float64');
      const gb = blob(og);
      const [want] = h.run(`_backward_${op}`, [og, { shape: [5, 13], dtype: 'float64', data: got }], {});
      direct(`_backward_${op}`, {}, [gb, b], [OpReq.write], [gb]);
      expect(maxErr(h.backend.readSync(gb) as Float64Array, want?.data as Float64Array)).toBeLessThan(1e-15);
    }
  });

  it('the SIMD rows agree with the general loop (last axis vs the same data on axis 0)', () => {
    const x = rand([37, 11], 5, 4, 'float64');
    const t: HostArray = {
      shape: [11, 37],
      dtype: 'float64',
      data: Float64Array.from(
        { length: 407 },
        (_, i) => x.data[(i % 37) * 11 + Math.floor(i / 37)] as number,
      ),
    };
    for (const op of ['softmax', 'log_softmax']) {
      const [a] = h.run(op, [x], { temperature: 1.3 });
      const [b] = h.run(op, [t], { axis: 0, temperature: 1.3 });
      const av = a?.data as Float64Array;
      const bv = b?.data as Float64Array;
      const bt = Float64Array.from(
        { length: 407 },
        (_, i) => bv[(i % 11) * 37 + Math.floor(i / 11)] as number,
      );
      expect(maxErr(av, bt)).toBeLessThan(1e-14);
    }
  });
});
