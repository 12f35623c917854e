/**
 * CSVIter against MXNet's documented behaviour: the examples of the CSVIter docstring
 * (iter_csv.cc: batch_size 2 and 3, round_batch true with its reset quirk, round_batch false with
 * the previous batch's rows left in the padding, dtype int32), test_io.py's test_CSVIter (1000 rows
 * of 8x8, every dtype, values a float32 cannot hold), and a 10-row file over several epochs whose
 * batches and indices are worked out by hand from BatchLoader's rules. Then labels, directories,
 * bounded reading, bad input (file and line named, raised on next(), reset() recovers) and bad
 * parameters. Every test runs under nd.leakCheck.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import type { DataBatch } from '../data-iter.js';
import { CSVIter, type CSVIterParams } from './csv-iter.js';
import { CsvReader } from './csv-reader.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-csviter-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

let fileCount = 0;
function file(text: string, name = `f${fileCount++}.csv`): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Rows of a batch array as plain numbers. */
function rows(a: NDArray): number[][] {
  const flat = Array.from(a.dataSync() as ArrayLike<number | bigint>, Number);
  const n = a.shape[0] as number;
  const w = flat.length / n;
  return Array.from({ length: n }, (_, i) => flat.slice(i * w, (i + 1) * w));
}

interface Seen {
  data: number[][];
  label: number[][];
  pad: number;
  index: readonly number[] | null;
}

/** Every remaining batch of the epoch (disposed after reading). */
function epoch(iter: CSVIter): Seen[] {
  const out: Seen[] = [];
  for (const b of iter) {
    out.push({
      data: rows(b.data[0] as NDArray),
      label: rows(b.label[0] as NDArray),
      pad: b.pad,
      index: b.index,
    });
    b.dispose();
  }
  return out;
}

const leakFree = (body: () => void | Promise<void>) => () => nd.leakCheck(body);

function thrown(body: () => unknown): Error {
  try {
    body();
  } catch (e) {
    if (!isMXNetError(e)) throw e;
    return e as Error;
  }
  throw new Error('no error');
}

const DOC = '1,2,3\n2,3,4\n3,4,5\n4,5,6\n';

describe('CSVIter docstring examples (iter_csv.cc)', () => {
  it(
    'batch_size 2',
    leakFree(() => {
      const iter = new CSVIter(rt, { data_csv: file(DOC), data_shape: [3], batch_size: 2 });
      expect(epoch(iter).map((b) => [b.data, b.pad])).toEqual([
        [
          [
            [1, 2, 3],
            [2, 3, 4],
          ],
          0,
        ],
        [
          [
            [3, 4, 5],
            [4, 5, 6],
          ],
          0,
        ],
      ]);
      iter.dispose();
    }),
  );

  it(
    'batch_size 3, round_batch: the last batch wraps, and reset() continues after the wrapped rows',
    leakFree(() => {
      const iter = new CSVIter(rt, { data_csv: file(DOC), data_shape: [3], batch_size: 3 });
      const first = epoch(iter);
      expect(first.map((b) => b.data)).toEqual([
        [
          [1, 2, 3],
          [2, 3, 4],
          [3, 4, 5],
        ],
        [
          [4, 5, 6],
          [1, 2, 3],
          [2, 3, 4],
        ],
      ]);
      expect(first.map((b) => b.pad)).toEqual([0, 2]);
      iter.reset();
      const second = epoch(iter);
      expect(second.map((b) => b.data)).toEqual([
        [
          [3, 4, 5],
          [4, 5, 6],
          [1, 2, 3],
        ],
      ]);
      expect(second[0]?.pad).toBe(1);
      iter.dispose();
    }),
  );

  it.each(['float32', 'int32'] as const)(
    'batch_size 3, round_batch false (%s): both passes alike, the padding holds the previous rows',
    (dtype) =>
      nd.leakCheck(() => {
        const iter = new CSVIter(rt, {
          data_csv: file(DOC),
          data_shape: [3],
          batch_size: 3,
          round_batch: false,
          dtype,
        });
        expect(iter.provideData[0]?.dtype).toBe(dtype);
        for (let pass = 0; pass < 2; pass++) {
          const got = epoch(iter);
          expect(got.map((b) => b.data)).toEqual([
            [
              [1, 2, 3],
              [2, 3, 4],
              [3, 4, 5],
            ],
            [
              [4, 5, 6],
              [2, 3, 4],
              [3, 4, 5],
            ],
          ]);
          expect(got.map((b) => b.pad)).toEqual([0, 2]);
          iter.reset();
        }
        const b = iter.next() as DataBatch;
        expect(b.data[0]?.dtype).toBe(dtype);
        expect(b.label[0]?.dtype).toBe(dtype);
        b.dispose();
        iter.dispose();
      }),
  );
});

describe('round_batch over several epochs (10 rows, batch_size 4, worked out from BatchLoader)', () => {
  const ten = Array.from({ length: 10 }, (_, i) => `${i},${-i}`).join('\n');
  const firstCol = (s: Seen[]) => s.map((b) => b.data.map((r) => r[0]));

  it(
    'round_batch: epochs alternate between wrapping and starting after the wrapped rows',
    leakFree(() => {
      const iter = new CSVIter(rt, { data_csv: file(ten), data_shape: [2], batch_size: 4 });
      const wrapping = [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9, 0, 1],
      ];
      const after = [
        [2, 3, 4, 5],
        [6, 7, 8, 9],
      ];
      const e1 = epoch(iter);
      expect(firstCol(e1)).toEqual(wrapping);
      expect(e1.map((b) => b.pad)).toEqual([0, 0, 2]);
      expect(e1.map((b) => b.index)).toEqual(wrapping);
      iter.reset();
      const e2 = epoch(iter);
      expect(firstCol(e2)).toEqual(after);
      expect(e2.map((b) => b.pad)).toEqual([0, 0]);
      expect(e2.map((b) => b.index)).toEqual(after);
      iter.reset();
      expect(firstCol(epoch(iter))).toEqual(wrapping);
      iter.reset();
      expect(firstCol(epoch(iter))).toEqual(after);
      iter.dispose();
    }),
  );

  it(
    'round_batch false: the same batches every epoch, stale rows and indices in the padding',
    leakFree(() => {
      const iter = new CSVIter(rt, {
        data_csv: file(ten),
        data_shape: [2],
        batch_size: 4,
        round_batch: false,
      });
      for (let e = 0; e < 3; e++) {
        const got = epoch(iter);
        expect(firstCol(got)).toEqual([
          [0, 1, 2, 3],
          [4, 5, 6, 7],
          [8, 9, 6, 7],
        ]);
        expect(got.map((b) => b.pad)).toEqual([0, 0, 2]);
        expect(got[2]?.index).toEqual([8, 9, 6, 7]);
        iter.reset();
      }
      iter.dispose();
    }),
  );

  it(
    'a reset in the middle of an epoch starts from the first row',
    leakFree(() => {
      const iter = new CSVIter(rt, { data_csv: file(ten), data_shape: [2], batch_size: 4 });
      iter.next()?.dispose();
      iter.reset();
      expect(firstCol(epoch(iter))[0]).toEqual([0, 1, 2, 3]);
      iter.dispose();
    }),
  );
});

describe("test_io.py's test_CSVIter", () => {
  it.each([
    ['int32', '200000001'],
    ['int64', '2147483648'],
    ['float32', '1'],
  ] as const)('%s: 1000 rows of 8x8 values %s', (dtype, entry) =>
    nd.leakCheck(() => {
      const data = file(
        `${Array.from({ length: 1000 }, () => Array(64).fill(entry).join(',')).join('\n')}\n`,
      );
      const label = file('0\n'.repeat(1000));
      const iter = new CSVIter(rt, {
        data_csv: data,
        data_shape: [8, 8],
        label_csv: label,
        batch_size: 100,
        dtype,
      });
      let batches = 0;
      for (const b of iter) {
        const x = b.data[0] as NDArray;
        expect(x.shape).toEqual([100, 8, 8]);
        expect(x.dtype).toBe(dtype);
        const values = x.dataSync() as ArrayLike<number | bigint>;
        const want = dtype === 'int64' ? BigInt(entry) : Number(entry);
        for (let i = 0; i < values.length; i++) if (values[i] !== want) expect(values[i]).toBe(want);
        expect(b.label[0]?.shape).toEqual([100]);
        b.dispose();
        batches++;
      }
      expect(batches).toBe(10);
      iter.dispose();
    }),
  );
});

describe('labels, names, inputs', () => {
  it(
    'labels follow label_shape; (1,) gives (batch_size,) as MXNet returns it',
    leakFree(() => {
      const data = file('1,2\n3,4\n5,6\n');
      const iter = new CSVIter(rt, {
        data_csv: data,
        data_shape: [2],
        label_csv: file('10,11\n12,13\n14,15\n'),
        label_shape: [2],
        batch_size: 3,
        data_name: 'x',
        label_name: 'y',
      });
      expect(iter.provideData.map(String)).toEqual(['DataDesc[x,(3, 2),float32,NCHW]']);
      expect(iter.provideLabel.map(String)).toEqual(['DataDesc[y,(3, 2),float32,NCHW]']);
      expect(epoch(iter)[0]?.label).toEqual([
        [10, 11],
        [12, 13],
        [14, 15],
      ]);
      iter.dispose();
      const one = new CSVIter(rt, {
        data_csv: data,
        data_shape: [2],
        label_csv: file('7\n8\n9\n'),
        batch_size: 3,
      });
      expect(one.provideLabel.map(String)).toEqual(['DataDesc[softmax_label,(3,),float32,NCHW]']);
      const b = one.next() as DataBatch;
      expect(b.label[0]?.shape).toEqual([3]);
      expect(Array.from(b.label[0]?.dataSync() as Float32Array)).toEqual([7, 8, 9]);
      b.dispose();
      one.dispose();
    }),
  );

  it(
    'without label_csv (or with "NULL") every label is 0, one per example, whatever label_shape says',
    leakFree(() => {
      for (const label_csv of [undefined, 'NULL']) {
        const iter = new CSVIter(rt, {
          data_csv: file('1,2\n3,4\n'),
          data_shape: [2, 1],
          label_csv,
          label_shape: [3],
          batch_size: 2,
          dtype: 'int64',
        });
        expect(iter.provideLabel[0]?.shape).toEqual([2]);
        const b = iter.next() as DataBatch;
        expect(b.data[0]?.shape).toEqual([2, 2, 1]);
        expect(b.label[0]?.dtype).toBe('int64');
        expect(Array.from(b.label[0]?.dataSync() as BigInt64Array)).toEqual([0n, 0n]);
        b.dispose();
        iter.dispose();
      }
    }),
  );

  it(
    'a directory is read file by file in name order; bytes work like a file',
    leakFree(() => {
      const sub = join(dir, 'parts');
      mkdirSync(sub);
      writeFileSync(join(sub, 'b.csv'), '5,6\n7,8');
      writeFileSync(join(sub, 'a.csv'), '1,2\r\n3,4'); // no final newline: the file end ends the row
      const iter = new CSVIter(rt, { data_csv: sub, data_shape: [2], batch_size: 4 });
      expect(epoch(iter)[0]?.data).toEqual([
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
      ]);
      iter.dispose();
      const bytes = new CSVIter(rt, {
        data_csv: new TextEncoder().encode('1,2\n3,4\n5,6\n7,8\n'),
        data_shape: [2],
        batch_size: 4,
      });
      expect(epoch(bytes)[0]?.data[3]).toEqual([7, 8]);
      bytes.dispose();
    }),
  );

  it('reads a large file through a bounded buffer (it grows only for a longer line)', () => {
    const line = Array.from({ length: 50 }, (_, i) => (i * 0.37).toFixed(2)).join(',');
    const big = file(`${`${line}\n`.repeat(4000)}`); // ~1 MB
    const reader = new CsvReader(big, {
      what: 'data_csv',
      op: 'CSVIter',
      kind: 'float32',
      bufferBytes: 4096,
    });
    const row = new Float32Array(50);
    let n = 0;
    while (reader.readRow(row, 0, 50) === 50) n++;
    expect(n).toBe(4000);
    expect(row[49]).toBe(Math.fround(18.13));
    expect(reader.bufferBytes).toBe(4096);
    const long = new CsvReader(file(`${Array(3000).fill('1.5').join(',')}\n`), {
      what: 'data_csv',
      op: 'CSVIter',
      kind: 'float32',
      bufferBytes: 4096,
    });
    expect(long.readRow(new Float32Array(3000), 0, 3000)).toBe(3000);
    expect(long.bufferBytes).toBe(16384);
    reader.close();
    long.close();
  });
});

describe('bad input: MXNetError on next() naming the file and line; reset() recovers', () => {
  const run = (params: Omit<CSVIterParams, 'batch_size' | 'data_shape'>, message: RegExp, before = 1) =>
    nd.leakCheck(() => {
      const iter = new CSVIter(rt, { data_shape: [3], batch_size: 2, ...params });
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < before; i++) (iter.next() as DataBatch).dispose();
        expect(thrown(() => iter.next()).message).toMatch(message);
        expect(thrown(() => iter.next()).message).toMatch(/stopped at an error.*call reset/s);
        iter.reset();
      }
      iter.dispose();
    });

  it('a row with the wrong number of fields', () => {
    const path = file('1,2,3\n4,5,6\n\n7,8\n');
    return run(
      { data_csv: path },
      new RegExp(`data_csv '${path}' line 4 has 2 values, but data_shape \\(3,\\)`),
    );
  });

  it('a field that is not a number (in the label file)', () => {
    const label = file('1\n2\n3\nx\n');
    return run(
      { data_csv: file('1,2,3\n'.repeat(4)), label_csv: label },
      new RegExp(`label_csv '${label}' line 4, column 1: 'x' is not a number`),
    );
  });

  it('a label file with fewer rows', () => {
    const data = file('1,2,3\n'.repeat(4));
    const label = file('1\n2\n3\n');
    return run(
      { data_csv: data, label_csv: label },
      new RegExp(`label_csv '${label}' has fewer rows than data_csv '${data}': the data row at line 4`),
    );
  });

  it('a label file with more rows', () => {
    const label = file('1\n2\n3\n4\n5\n');
    return run(
      { data_csv: file('1,2,3\n'.repeat(4)), label_csv: label, round_batch: false },
      new RegExp(`label_csv '${label}' has more rows .* row at line 5 has no data row`),
      2,
    );
  });

  it('bytes are named by their size; a header row is refused', () =>
    run(
      { data_csv: new TextEncoder().encode('a,b,c\n1,2,3\n') },
      /data_csv '<12 bytes>' line 1, column 1: 'a'/,
      0,
    ));

  it(
    'round_batch needs enough rows to fill the last batch',
    leakFree(() => {
      const iter = new CSVIter(rt, { data_csv: file('1\n2\n'), data_shape: [1], batch_size: 5 });
      expect(thrown(() => iter.next()).message).toMatch(/has only 2 rows, fewer than the 3 needed/);
      iter.dispose();
      const plain = new CSVIter(rt, {
        data_csv: file('1\n2\n'),
        data_shape: [1],
        batch_size: 5,
        round_batch: false,
      });
      const b = plain.next() as DataBatch;
      expect(b.pad).toBe(3);
      expect(rows(b.data[0] as NDArray).flat()).toEqual([1, 2, 0, 0, 0]);
      b.dispose();
      plain.dispose();
    }),
  );

  it('bad parameters are refused at construction', () => {
    const data_csv = file(DOC);
    const bad: [Partial<CSVIterParams>, RegExp][] = [
      [{ batch_size: 0 }, /batch_size must be a positive integer/],
      [{ data_shape: [] }, /data_shape must be a non-empty list/],
      [{ data_shape: [3, 0] }, /data_shape must be a non-empty list/],
      [{ label_shape: [-1] }, /label_shape must be/],
      [{ dtype: 'float64' as 'float32' }, /dtype 'float64' is not supported by CSVIter/],
      [{ prefetch_buffer: 0 }, /prefetch_buffer must be a positive integer/],
      [{ data_csv: join(dir, 'missing.csv') }, /cannot open the data_csv file/],
      [{ label_csv: join(dir, 'missing.csv') }, /cannot open the label_csv file/],
    ];
    for (const [params, message] of bad) {
      expect(
        thrown(() => new CSVIter(rt, { data_csv, data_shape: [3], batch_size: 2, ...params })).message,
      ).toMatch(message);
    }
  });

  it(
    'a disposed iterator refuses to continue; getData needs a current batch',
    leakFree(() => {
      const iter = new CSVIter(rt, { data_csv: file(DOC), data_shape: [3], batch_size: 2 });
      expect(thrown(() => iter.getData()).message).toMatch(/no current batch/);
      iter.dispose();
      expect(thrown(() => iter.next()).message).toMatch(/disposed/);
    }),
  );
});
