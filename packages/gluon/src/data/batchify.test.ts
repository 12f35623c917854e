import { DType, type DTypeName, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type HostArray, NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/data.json' with { type: 'json' };
import { Append, AsList, Group, Pad, type PadOptions, Stack } from './batchify.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

interface GoldenArray {
  readonly shape: number[];
  readonly dtype: string;
  readonly values: number[];
}

function host(g: GoldenArray): HostArray {
  const dtype = g.dtype as DTypeName;
  const data = new DType[dtype].storage(g.values.length);
  (data as Float64Array).set(g.values);
  return { data, shape: g.shape, dtype };
}

function expectHost(actual: unknown, g: GoldenArray): void {
  const a = actual as HostArray;
  expect(a.shape).toEqual(g.shape);
  expect(a.dtype).toBe(g.dtype);
  expect(Array.from(a.data as ArrayLike<number>)).toEqual(g.values);
}

describe('Pad matches NumPy (tools/golden/gluon/data.py)', () => {
  for (const c of golden.pad) {
    const samples = c.samples.map((s) => (Array.isArray(s) ? s : host(s as GoldenArray)));
    const options = c.options as PadOptions;
    it(`${c.name}: host samples`, () => {
      const out = new Pad(c.val, options).batchify(samples);
      if (options.retLength) {
        const [padded, lengths] = out as [HostArray, HostArray];
        expectHost(padded, c.expected);
        const axis = options.axis ?? 0;
        expect(lengths.dtype).toBe('int32');
        expect(Array.from(lengths.data as Int32Array)).toEqual(
          samples.map((s) => (s as HostArray).shape[axis]),
        );
      } else {
        expectHost(out, c.expected);
      }
    });
    if (samples.every((s) => !Array.isArray(s))) {
      it(`${c.name}: NDArray samples give an NDArray on their device`, async () => {
        await nd.leakCheck(() => {
          const arrays = samples.map((s) =>
            nd.array((s as HostArray).data, { shape: (s as HostArray).shape }),
          );
          const out = new Pad(c.val, options).batchify(arrays);
          const padded = (options.retLength ? (out as NDArray[])[0] : out) as NDArray;
          expect(padded).toBeInstanceOf(NDArray);
          expectHost({ data: padded.dataSync(), shape: padded.shape, dtype: padded.dtype }, c.expected);
          for (const a of [...arrays, ...(Array.isArray(out) ? out : [out])]) (a as NDArray).dispose();
        });
      });
    }
  }

  it("MXNet's test_batchify_pad, literally", () => {
    const a = { data: Int32Array.of(1, 2, 3, 4, 11, 12, 13, 14), shape: [2, 4], dtype: 'int32' as const };
    const b = { data: Int32Array.of(4, 5, 6), shape: [1, 3], dtype: 'int32' as const };
    const c = { data: Int32Array.of(9, 10), shape: [1, 2], dtype: 'int32' as const };
    const d = new Pad(-1).batchify([a, b, c]) as HostArray;
    expect(d.shape).toEqual([3, 2, 4]);
    expect(Array.from(d.data as Int32Array)).toEqual([
      1, 2, 3, 4, 11, 12, 13, 14, 4, 5, 6, -1, -1, -1, -1, -1, 9, 10, -1, -1, -1, -1, -1, -1,
    ]);
  });

  it('rejects tuples, mixed ranks and a fixed axis that differs', () => {
    const a = { data: new Float32Array(6), shape: [2, 3], dtype: 'float32' as const };
    const b = { data: new Float32Array(4), shape: [4], dtype: 'float32' as const };
    const c = { data: new Float32Array(8), shape: [4, 2], dtype: 'float32' as const };
    expect(() => new Pad().batchify([[a, 1]])).toThrow(
      'sample 0 is a tuple: Pad() does not support multiple items',
    );
    expect(() => new Pad().batchify([3, 4])).toThrow('Pad() does not support multiple items');
    expect(() => new Pad().batchify([a, b])).toThrow(/sample 1 has 1 dimensions, sample 0 has 2/);
    expect(() => new Pad(0, { axis: 1 }).batchify([a, c])).toThrow(
      /along axis 0, which Pad\(axis=1\) does not pad/,
    );
    expect(() => new Pad(0, { axis: 2 }).batchify([a])).toThrow(MXNetError);
    expect(() => new Pad(0, { roundTo: 0 })).toThrow(/roundTo must be a positive integer/);
    expect(() => new Pad().batchify([])).toThrow(/empty list of samples/);
  });
});

describe('Stack', () => {
  it('stacks host arrays, numbers, and tuples field by field', () => {
    const rows = [0, 1, 2].map((i) => ({
      data: Int32Array.of(i, i + 10),
      shape: [2],
      dtype: 'int32' as const,
    }));
    const out = new Stack().batchify(rows.map((r, i) => [r, i + 0.5])) as [HostArray, HostArray];
    expect(out[0].shape).toEqual([3, 2]);
    expect(out[0].dtype).toBe('int32');
    expect(Array.from(out[0].data as Int32Array)).toEqual([0, 10, 1, 11, 2, 12]);
    // Numbers: float32 (JS numbers carry no dtype); bigints int64; booleans bool.
    expect(out[1].dtype).toBe('float32');
    expect(Array.from(out[1].data as Float32Array)).toEqual([0.5, 1.5, 2.5]);
    expect((new Stack().batchify([1n, 2n]) as HostArray).dtype).toBe('int64');
    expect((new Stack().batchify([true, false]) as HostArray).dtype).toBe('bool');
  });

  it('stacks NDArrays with nd.stack (numpy.stack semantics)', async () => {
    await nd.leakCheck(() => {
      const a = nd.array([
        [1, 2, 3, 4],
        [5, 6, 7, 8],
      ]);
      const b = nd.array([
        [5, 6, 7, 8],
        [1, 2, 3, 4],
      ]);
      const c = new Stack().batchify([a, b]) as NDArray;
      expect(c.shape).toEqual([2, 2, 4]);
      expect(c.arraySync()).toEqual([
        [
          [1, 2, 3, 4],
          [5, 6, 7, 8],
        ],
        [
          [5, 6, 7, 8],
          [1, 2, 3, 4],
        ],
      ]);
      for (const x of [a, b, c]) x.dispose();
    });
  });

  it('rejects samples of different shapes, structures or kinds', () => {
    const a = { data: new Float32Array(2), shape: [2], dtype: 'float32' as const };
    const b = { data: new Float32Array(3), shape: [3], dtype: 'float32' as const };
    expect(() => new Stack().batchify([a, b])).toThrow(/use batchify.Pad for variable lengths/);
    expect(() => new Stack().batchify([[a, 1], [a]])).toThrow(
      /sample 1 is an array of 1, but sample 0 is a tuple of 2/,
    );
    expect(() => new Stack().batchify(['x', 'y'])).toThrow(/use batchify.AsList/);
    expect(() => new Stack().batchify([1, 'y'])).toThrow(/sample 1 is a string, but sample 0 is a number/);
    const x = nd.zeros([2]);
    expect(() => new Stack().batchify([x, a])).toThrow(
      /sample 1 is a host array .* but sample 0 is an NDArray/,
    );
    x.dispose();
  });
});

describe('Group, Append and AsList', () => {
  it("MXNet's test_batchify_group", () => {
    const m = (rows: number[][]) => ({
      data: Int32Array.from(rows.flat()),
      shape: [rows.length, (rows[0] as number[]).length],
      dtype: 'int32' as const,
    });
    const s0 = m([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
    const samples = [
      [
        s0,
        m([
          [1, 2, 3, 4],
          [11, 12, 13, 14],
        ]),
      ],
      [s0, m([[4, 5, 6]])],
      [s0, m([[9, 10]])],
    ];
    for (const g of [new Group(new Stack(), new Pad(-1)), new Group([new Stack(), new Pad(-1)])]) {
      const [d0, d1] = g.batchify(samples) as [HostArray, HostArray];
      expect(d0.shape).toEqual([3, 2, 4]);
      expect(Array.from(d0.data as Int32Array)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8,
      ]);
      expect(Array.from(d1.data as Int32Array)).toEqual([
        1, 2, 3, 4, 11, 12, 13, 14, 4, 5, 6, -1, -1, -1, -1, -1, 9, 10, -1, -1, -1, -1, -1, -1,
      ]);
    }
  });

  it('Group takes plain functions, and checks the number of fields', () => {
    const g = new Group(new Stack(), (labels: string[]) => labels.join('|'));
    expect(
      (
        g.batchify([
          [1, 'a'],
          [2, 'b'],
        ]) as unknown[]
      )[1],
    ).toBe('a|b');
    expect(() => g.batchify([[1, 'a', 3]])).toThrow(/should contains 2 elements/);
    expect(() => new Group([new Stack()], new Stack())).toThrow(/Input pattern not understood/);
    expect(() => new Group(new Stack(), 3 as unknown as Stack)).toThrow(
      /must be callable! type\(fn\[1\]\) = number/,
    );
  });

  it("Append: one array per sample, batch axis inserted (MXNet's docstring)", async () => {
    const out = new Append().batchify([
      [1, 2, 3, 4],
      [4, 5, 6],
      [8, 2],
    ]) as HostArray[];
    expect(out.map((a) => a.shape)).toEqual([
      [1, 4],
      [1, 3],
      [1, 2],
    ]);
    expect(out.map((a) => a.dtype)).toEqual(['float32', 'float32', 'float32']);
    expect(Array.from(out[1]?.data as Float32Array)).toEqual([4, 5, 6]);
    const noExpand = new Append(false).batchify([[1, 2]]) as HostArray[];
    expect(noExpand[0]?.shape).toEqual([2]);
    const axis1 = new Append(true, 1).batchify([
      { data: new Uint8Array(6), shape: [2, 3], dtype: 'uint8' },
    ]) as HostArray[];
    expect(axis1[0]).toMatchObject({ shape: [2, 1, 3], dtype: 'uint8' });
    await nd.leakCheck(() => {
      const a = nd.array([1, 2, 3]);
      const [e] = new Append().batchify([a]) as NDArray[];
      expect(e?.shape).toEqual([1, 3]);
      expect(Array.from(e?.dataSync() as Float32Array)).toEqual([1, 2, 3]);
      e?.dispose();
      a.dispose();
    });
  });

  it('AsList returns the samples', () => {
    expect(new AsList().batchify(['I am using MXNet', 'Gluon rocks!'])).toEqual([
      'I am using MXNet',
      'Gluon rocks!',
    ]);
  });
});
