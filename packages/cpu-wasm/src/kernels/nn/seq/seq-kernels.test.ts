/**
 * Behaviour of the seq kernels beyond the golden cases: req=add on every golden case, each op's
 * declared gradient (its backward op, through test-util/grad-check) against central differences in
 * float64, MXNet's 6000-class CTC expectation, value errors found before anything
 * is written, and the SIMD Embedding scatter against a plain loop on many duplicate indices.
 */
import { cpu, type DTypeName, isMXNetError, type MXNetError } from '@mx/base';
import { OpReq, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { hostOf, loadGolden, num } from '../../../test-util/golden.js';
import { gradCheck } from '../../../test-util/grad-check.js';
import { createOpHarness, type HostArray, type OpResult } from '../../../test-util/run-op.js';

const h = createOpHarness();

function thrown(f: () => unknown): MXNetError {
  try {
    f();
  } catch (e) {
    if (isMXNetError(e)) return e as MXNetError;
    throw e;
  }
  throw new Error('expected an MXNetError');
}

const vals = (o: OpResult | HostArray | undefined): number[] =>
  Array.from(o?.data as ArrayLike<number>, Number);
const f64 = (shape: number[], data: ArrayLike<number>): HostArray => ({
  shape,
  dtype: 'float64',
  data: Array.from(data),
});
const size = (shape: readonly number[]) => shape.reduce((p, d) => p * d, 1);

/** Deterministic pseudo-random values in [-1, 1). */
function randn(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

describe('req=add on every golden case', () => {
  const cases = loadGolden('nn_seq').filter((c) => c.error === undefined && c.outputs !== undefined);
  for (const c of cases) {
    it(c.name, () => {
      const outs = c.outputs ?? [];
      const base = outs.map((o) => ({
        shape: o.shape,
        dtype: o.dtype as DTypeName,
        data: Array.from({ length: size(o.shape) }, (_, i) => (i % 3) - 1),
      }));
      const got = h.run(c.op, c.inputs.map(hostOf), c.params, { req: 'add', out: base });
      outs.forEach((w, k) => {
        const g = vals(got[k]);
        const b = base[k]?.data as number[];
        const bad = g.findIndex((v, i) => {
          let e = num(w.data[i] as number) + (b[i] as number);
          if (w.dtype === 'float32') e = Math.fround(e);
          return (
            !(Math.abs(v - e) <= c.atol + 1e-6 + c.rtol * Math.abs(e)) &&
            !(Number.isNaN(e) && Number.isNaN(v))
          );
        });
        expect(bad, `output ${k} first mismatch at ${bad}: ${g[bad]}`).toBe(-1);
      });
    });
  }
});

const check = (
  op: string,
  inputs: HostArray[],
  params: Record<string, unknown>,
  noGrad: number[] = [],
  rtol = 1e-5,
) => gradCheck(h, op, inputs, { params, noGrad, rtol, atol: 1e-6 });

describe('declared gradients against central differences (float64, test-util/grad-check)', () => {
  it('Embedding: weight gradient, none for the indices', () => {
    const data: HostArray = { shape: [2, 3], dtype: 'float64', data: [0, 3, 3, 9, -1, 2.5] };
    const r = check('Embedding', [data, f64([4, 3], randn(12, 1))], { input_dim: 4, output_dim: 3 }, [0]);
    expect(r.analytic[0]).toBeNull();
    expect(r.ops).toEqual(['_backward_Embedding']);
  });

  it('SequenceMask, SequenceLast, SequenceReverse with and without lengths (axis 0 and 1)', () => {
    const len = f64([3], [2, 0, 4]);
    const x = f64([4, 3, 2], randn(24, 2));
    const xa = f64([3, 4, 2], randn(24, 3));
    for (const [op, p] of [
      ['SequenceMask', { use_sequence_length: true, value: 3 }],
      ['SequenceLast', { use_sequence_length: true }],
      ['SequenceReverse', { use_sequence_length: true }],
    ] as const) {
      expect(check(op, [x, len], p, [1]).analytic[1]).toBeNull();
      check(op, [x], {});
    }
    check('SequenceMask', [xa, len], { use_sequence_length: true, axis: 1 }, [1]);
    check('SequenceLast', [xa, len], { use_sequence_length: true, axis: 1 }, [1]);
    check('SequenceLast', [xa], { axis: 1 });
  });

  it('UpSampling: nearest (one input, concat, sum) and bilinear (data and weight)', () => {
    const a = f64([1, 2, 2, 3], randn(12, 4));
    const b = f64([1, 1, 4, 6], randn(24, 5));
    check('UpSampling', [a], { scale: 3, sample_type: 'nearest', num_args: 1 });
    check('UpSampling', [a, b], { scale: 2, sample_type: 'nearest', num_args: 2 });
    const a2 = f64([1, 2, 2, 2], randn(8, 6));
    const c = f64([1, 2, 1, 1], randn(2, 7));
    check('UpSampling', [a2, c], { scale: 2, sample_type: 'nearest', num_args: 2, multi_input_mode: 'sum' });
    const w = f64([2, 1, 4, 4], randn(32, 8));
    check('UpSampling', [a, w], { scale: 2, sample_type: 'bilinear', num_filter: 2, num_args: 2 });
    const w3 = f64([2, 1, 5, 5], randn(50, 9));
    check('UpSampling', [a, w3], { scale: 3, sample_type: 'bilinear', num_filter: 2, num_args: 2 });
  });

  it('CTCLoss: data gradient through the hidden grad output; labels and lengths get none', () => {
    const x = f64(
      [6, 2, 4],
      randn(48, 10).map((v) => 3 * v),
    );
    const label = f64([2, 3], [1, 1, 2, 3, 0, 0]);
    const r = check('CTCLoss', [x, label, f64([2], [6, 4])], { use_data_lengths: true }, [1, 2]);
    expect(r.analytic.slice(1)).toEqual([null, null]);
    expect(r.ops).toEqual(['_backward_ctc_loss']);
    check('CTCLoss', [x, f64([2, 2], [0, 2, 1, -1])], { blank_label: 'last' }, [1]);
    check(
      'CTCLoss',
      [x, f64([2, 3], [1, 2, 2, 3, 1, 9]), f64([2], [3, 2])],
      { use_label_lengths: true },
      [1, 2],
    );
  });
});

describe('CTCLoss values and errors', () => {
  it("test_ctc_loss_with_large_classes: 6000 classes give MXNet's [688.02826, 145.34462]", () => {
    const nc = 6000;
    // (6000, 16): column i is roll(arange(6000), i) / 13; reshaped row-major to (8, 2, 6000).
    const flat = new Float32Array(nc * 16);
    for (let r = 0; r < nc; r++)
      for (let i = 0; i < 16; i++) flat[r * 16 + i] = Math.fround(((r - i + nc) % nc) / 13);
    const label = [100, 200, 300, 400, 500, 0, 0, 0, 1000, 2000, 3000, 4000, 0, 5000, 0, 0];
    const [loss] = h.run('ctc_loss', [
      { shape: [8, 2, nc], dtype: 'float32', data: flat },
      { shape: [2, 8], dtype: 'int32', data: label },
    ]);
    const v = vals(loss);
    expect(v[0]).toBeCloseTo(688.02826, 3);
    expect(v[1]).toBeCloseTo(145.34462, 3);
  });

  const x = { shape: [3, 2, 4], dtype: 'float32' as const, data: randn(24, 11) };
  it('rejects bad labels and lengths before writing, and keeps working', () => {
    const base = { shape: [2], dtype: 'float32' as const, data: [5, 6] };
    const e1 = thrown(() =>
      h.run(
        'CTCLoss',
        [x, { shape: [2, 2], dtype: 'int32', data: [1, 4, 2, 0] }],
        {},
        { req: 'add', out: [base] },
      ),
    );
    expect(e1.message).toContain('label value 4 at (0, 1) is outside [0, 3]');
    const e2 = thrown(() =>
      h.run(
        'CTCLoss',
        [
          x,
          { shape: [2, 2], dtype: 'int32', data: [1, 0, 2, 0] },
          { shape: [2], dtype: 'float32', data: [3, 4] },
        ],
        {
          use_data_lengths: true,
        },
      ),
    );
    expect(e2.message).toContain('data_lengths[1] = 4 is outside [0, 3]');
    const e3 = thrown(() =>
      h.run(
        'CTCLoss',
        [
          x,
          { shape: [2, 2], dtype: 'int32', data: [1, 0, 2, 0] },
          { shape: [2], dtype: 'int32', data: [3, 1] },
        ],
        { use_label_lengths: true },
      ),
    );
    expect(e3.message).toContain('label_lengths[0] = 3 is outside [0, 2]');
    expect(e3.op).toBe('CTCLoss');
    const [ok] = h.run('CTCLoss', [x, { shape: [2, 2], dtype: 'int32', data: [1, 0, 2, 0] }]);
    expect(vals(ok).every((v) => Number.isFinite(v) && v > 0)).toBe(true);
  });
});

describe('Embedding backward', () => {
  it('SIMD scatter-add matches a plain loop with many duplicate indices (float32, float64)', () => {
    for (const dtype of ['float32', 'float64'] as const) {
      for (const width of [1, 3, 4, 7, 8, 33]) {
        const n = 500;
        const k = 13;
        const idx = randn(n, width).map((v) => Math.floor((v + 1) * 8) - 1); // -1..14: some clipped
        const og = randn(n * width, width + 100);
        const [gw] = h.run(
          '_backward_Embedding',
          [
            { shape: [n, width], dtype, data: og },
            { shape: [n], dtype: 'int32', data: idx },
          ],
          { input_dim: k, output_dim: width },
        );
        const want = new Float64Array(k * width);
        for (let r = 0; r < n; r++) {
          const j = Math.min(Math.max(idx[r] as number, 0), k - 1);
          for (let c = 0; c < width; c++) {
            const v =
              dtype === 'float32' ? Math.fround(og[r * width + c] as number) : (og[r * width + c] as number);
            want[j * width + c] = (want[j * width + c] as number) + v;
          }
        }
        const got = vals(gw);
        got.forEach((v, i) => {
          expect(Math.abs(v - (want[i] as number))).toBeLessThan(dtype === 'float32' ? 1e-4 : 1e-12);
        });
      }
    }
  });
});

describe('SequenceMask in place', () => {
  it('masks when the output aliases the data (inplaceOption [0, 0])', () => {
    const alloc = h.backend.allocator(cpu());
    const blob = (shape: number[], dtype: DTypeName, data: number[]): TBlob<number> => {
      const b = {
        ptr: alloc.alloc(data.length * 4) as number,
        byteOffset: 0,
        shape,
        dtype,
        size: data.length,
      };
      h.backend.write(b, dtype === 'int32' ? Int32Array.from(data) : Float32Array.from(data));
      return b;
    };
    const x = blob([3, 2], 'float32', [1, 2, 3, 4, 5, 6]);
    const len = blob([2], 'int32', [1, 3]);
    const op = h.registry.get('SequenceMask');
    const attrs = op.parseParams({ use_sequence_length: true, value: -1 });
    expect(op.inplaceOption(attrs)).toEqual([[0, 0]]);
    const ctx = { isTrain: false, needGrad: false, ctx: cpu(), requested: [] };
    h.registry.kernel(op, 'cpu-wasm')?.compute?.(attrs, ctx, [x, len], [OpReq.inplace], [x]);
    expect(Array.from(h.backend.readSync(x) as Float32Array)).toEqual([1, 2, -1, 4, -1, 6]);
  });
});
