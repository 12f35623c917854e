/**
 * LibSVMReader's batching against MXNet's own LibSVMIter documentation example (data.t and
 * label.t in src/io/iter_libsvm.cc, committed as __fixtures__/libsvm/mxnet-doc-*.libsvm): the
 * dense views below are the arrays that documentation prints. Then MXNet's round_batch
 * quirk across epochs, parts, sources (path, bytes, directory), parameter checks, and every bad
 * input as an MXNetError naming file and line, after which reset() reads again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMXNetError, type MXNetError } from '@mx/base';
import { afterAll, describe, expect, it } from 'vitest';
import { type HostCsr, type HostCsrBatch, LibSVMReader, type LibSVMReaderParams } from './reader.js';

const FIXTURES = fileURLToPath(new URL('../../__fixtures__/libsvm/', import.meta.url));
const DATA = `${FIXTURES}mxnet-doc-data.libsvm`;
const LABEL = `${FIXTURES}mxnet-doc-label.libsvm`;
const tmp = mkdtempSync(join(tmpdir(), 'mx-libsvm-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

function dense(m: HostCsr): number[][] {
  const out = Array.from({ length: m.shape[0] }, () => new Array<number>(m.shape[1]).fill(0));
  for (let r = 0; r < m.shape[0]; r++) {
    for (let k = Number(m.indptr[r]); k < Number(m.indptr[r + 1]); k++) {
      (out[r] as number[])[Number(m.indices[k])] = m.data[k] as number;
    }
  }
  return out;
}

const f = Math.fround;
const R = [
  [f(0.5), 0, f(1.2)],
  [0, 0, 0],
  [f(0.6), f(2.4), f(1.2)],
  [0, 0, f(-1.2)],
];
const LABELS = [1, -2, -3, 4];

function all(reader: LibSVMReader): HostCsrBatch[] {
  const out: HostCsrBatch[] = [];
  for (let b = reader.next(); b !== undefined; b = reader.next()) out.push(b);
  return out;
}

function fails(fn: () => unknown): MXNetError {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return e as MXNetError;
  }
  throw new Error('no error');
}

describe("MXNet's LibSVMIter documentation example", () => {
  it('data.t, batch_size 3: CSR data, dense labels, the last batch wrapped with pad 2', () => {
    const reader = new LibSVMReader({ data_libsvm: DATA, data_shape: [3], batch_size: 3 });
    const [b1, b2, ...rest] = all(reader);
    expect(rest).toEqual([]);
    expect(dense(b1 as HostCsr)).toEqual([R[0], R[1], R[2]]);
    expect(Array.from((b1 as HostCsrBatch).label as Float32Array)).toEqual([1, -2, -3]);
    expect(b1?.pad).toBe(0);
    expect(b1?.shape).toEqual([3, 3]);
    expect(b1?.indptr).toEqual(new BigInt64Array([0n, 2n, 2n, 5n]));
    expect(b1?.indices).toBeInstanceOf(BigInt64Array);
    expect(b1?.data).toBeInstanceOf(Float32Array);
    expect(dense(b2 as HostCsr)).toEqual([R[3], R[0], R[1]]);
    expect(Array.from((b2 as HostCsrBatch).label as Float32Array)).toEqual([4, 1, -2]);
    expect(b2?.pad).toBe(2);
    expect(b2?.index).toEqual([3, 0, 1]);
  });

  it('reset() after a wrapped epoch goes on after the wrapped rows (BatchLoader)', () => {
    const reader = new LibSVMReader({ data_libsvm: DATA, data_shape: [3], batch_size: 3 });
    all(reader);
    reader.reset();
    const [e2] = all(reader);
    expect(dense(e2 as HostCsr)).toEqual([R[2], R[3], R[0]]);
    expect(e2?.index).toEqual([2, 3, 0]);
    expect(e2?.pad).toBe(1);
    reader.reset();
    const e3 = all(reader);
    expect(e3.length).toBe(1);
    expect(dense(e3[0] as HostCsr)).toEqual([R[1], R[2], R[3]]);
    expect(e3[0]?.pad).toBe(0);
    reader.reset(); // no overflow in epoch 3: back to row 0
    expect(dense(reader.next() as HostCsr)).toEqual([R[0], R[1], R[2]]);
    expect(reader.next()?.index).toEqual([3, 0, 1]);
    expect(reader.next()).toBeUndefined();
    expect(reader.next()).toBeUndefined();
  });

  it('label.t as label_libsvm: CSR labels of label_shape columns', () => {
    const reader = new LibSVMReader({
      data_libsvm: DATA,
      data_shape: [3],
      label_libsvm: LABEL,
      label_shape: [3],
      batch_size: 3,
    });
    expect(reader.labelIsCsr).toBe(true);
    const [b1, b2] = all(reader);
    expect(dense(b1?.label as HostCsr)).toEqual([
      [0, 0, 0],
      [0.125, 0, 0],
      [0, 0, f(1.2)],
    ]);
    expect(dense(b2?.label as HostCsr)).toEqual([
      [0, 1, f(-1.2)],
      [0, 0, 0],
      [0.125, 0, 0],
    ]);
    expect((b2 as HostCsrBatch).label as HostCsr).toMatchObject({ shape: [3, 3] });
  });

  it('batch_size equal to the rows: one batch, then the end; reset rewinds', () => {
    const reader = new LibSVMReader({ data_libsvm: DATA, data_shape: [3], batch_size: 4 });
    const [b] = all(reader);
    expect(dense(b as HostCsr)).toEqual(R);
    expect(Array.from(b?.label as Float32Array)).toEqual(LABELS);
    reader.reset();
    expect(reader.next()?.index).toEqual([0, 1, 2, 3]);
  });
});

describe('sources and parts', () => {
  it('reads the same from a path, bytes and a ;-list', () => {
    const text = '1 0:1\n2 1:2\n3 2:3\n';
    const p = file('same.txt', text);
    const q = file('half.txt', '3 2:3\n');
    const w = file('first.txt', '1 0:1\n2 1:2');
    const run = (data_libsvm: LibSVMReaderParams['data_libsvm']) =>
      all(new LibSVMReader({ data_libsvm, data_shape: [3], batch_size: 2, buffer_bytes: 16 })).map((b) => [
        dense(b),
        Array.from(b.label as Float32Array),
        b.pad,
      ]);
    const want = run(p);
    expect(want).toEqual([
      [
        [
          [1, 0, 0],
          [0, 2, 0],
        ],
        [1, 2],
        0,
      ],
      [
        [
          [0, 0, 3],
          [1, 0, 0],
        ],
        [3, 1],
        1,
      ],
    ]);
    expect(run(new TextEncoder().encode(text))).toEqual(want);
    expect(run(`${w};${q}`)).toEqual(want);
  });

  it('a directory is its non-empty files in name order', () => {
    const reader = new LibSVMReader({ data_libsvm: `${FIXTURES}dir`, data_shape: [4], batch_size: 6 });
    const b = reader.next() as HostCsrBatch;
    expect(Array.from(b.label as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(b.pad).toBe(0);
  });

  it('num_parts splits the rows; each part pads from its own start', () => {
    const rows = Array.from({ length: 10 }, (_, i) => `${i} ${i % 4}:1\n`).join('');
    const p = file('ten.txt', rows);
    const labels: number[][] = [];
    for (let part = 0; part < 3; part++) {
      const reader = new LibSVMReader({
        data_libsvm: p,
        data_shape: [4],
        batch_size: 3,
        num_parts: 3,
        part_index: part,
      });
      const batches = all(reader);
      const got = batches.flatMap((b) => Array.from(b.label as Float32Array).slice(0, 3 - b.pad));
      labels.push(got);
      const last = batches.at(-1) as HostCsrBatch;
      // The padding rows are the first rows of this part.
      expect(Array.from(last.label as Float32Array).slice(3 - last.pad)).toEqual(got.slice(0, last.pad));
    }
    expect(labels.flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // 60 bytes (6 a line) in parts of 20: a boundary moves past the next line break, so part 0
    // ends after line 3 (bytes 18..23 hold the boundary 20) and part 1 after line 6.
    expect(labels).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
  });

  it('an empty input or empty part has no batch', () => {
    expect(
      new LibSVMReader({ data_libsvm: new Uint8Array(0), data_shape: [3], batch_size: 2 }).next(),
    ).toBeUndefined();
    const reader = new LibSVMReader({
      data_libsvm: DATA,
      data_shape: [3],
      batch_size: 1,
      num_parts: 7,
      part_index: 3,
    });
    expect(reader.next()).toBeUndefined();
  });

  it('indexing_mode: 1 and -1 (and ?indexing_mode= in the path) read 1-based files', () => {
    const one = `${FIXTURES}one-based.libsvm`;
    const first = (params: Partial<LibSVMReaderParams>) =>
      new LibSVMReader({
        data_libsvm: one,
        data_shape: [8],
        batch_size: 5,
        ...params,
      }).next() as HostCsrBatch;
    const want = Array.from(first({ indexing_mode: 1 }).indices);
    expect(want.slice(0, 3)).toEqual([0n, 2n, 6n]);
    expect(Array.from(first({ indexing_mode: -1 }).indices)).toEqual(want);
    expect(Array.from(first({ data_libsvm: `${one}?indexing_mode=1` }).indices)).toEqual(want);
    expect(
      Array.from(first({ data_libsvm: `${one}?format=libsvm&indexing_mode=-1`, indexing_mode: 0 }).indices),
    ).toEqual(want);
    // -1 keeps a file with index 0 as it is.
    expect(
      Array.from(
        new LibSVMReader({ data_libsvm: DATA, data_shape: [3], batch_size: 4, indexing_mode: -1 }).next()
          ?.indices ?? [],
      ),
    ).toEqual([0n, 2n, 0n, 1n, 2n, 2n]);
  });
});

describe('bad input', () => {
  it('a malformed token names file, line and column; reset() reads again', () => {
    const p = file('bad.txt', '1 0:1\n\n# note\n2 3:abc\n');
    const reader = new LibSVMReader({ data_libsvm: p, data_shape: [4], batch_size: 1 });
    expect(reader.next()?.index).toEqual([0]);
    const e = fails(() => reader.next());
    expect(e.message).toContain(
      `data_libsvm '${p}' line 4, column 5: 'abc' is not a number (the value of feature 3)`,
    );
    expect(e.op).toBe('LibSVMIter');
    expect(fails(() => reader.next()).reason).toContain('stopped at an error');
    reader.reset();
    expect(reader.next()?.index).toEqual([0]);
  });

  it('lines are numbered in the file also in a later part, with \\r\\n and \\r', () => {
    const p = file('late.txt', '1 0:1\r\n2 0:1\r3 0:1\r\n\r\n4 0:1\n5 x:1\n');
    const reader = new LibSVMReader({
      data_libsvm: p,
      data_shape: [4],
      batch_size: 1,
      num_parts: 2,
      part_index: 1,
    });
    let e: MXNetError | undefined;
    try {
      while (reader.next()) {}
    } catch (err) {
      e = err as MXNetError;
    }
    expect(e?.reason).toContain(`'${p}' line 6, column 3: 'x:1'`);
  });

  it('an index out of range names the index and data_shape, with a 1-based hint', () => {
    const e = fails(() =>
      new LibSVMReader({ data_libsvm: `${FIXTURES}one-based.libsvm`, data_shape: [8], batch_size: 5 }).next(),
    );
    expect(e.reason).toContain(
      "one-based.libsvm' line 3: feature index 8 is out of range for data_shape (8)",
    );
    expect(e.hint).toContain('indexing_mode 1');
    const z = fails(() =>
      new LibSVMReader({ data_libsvm: DATA, data_shape: [3], batch_size: 1, indexing_mode: 1 }).next(),
    );
    expect(z.reason).toContain('feature index 0 (-1 0-based) is out of range');
    expect(z.hint).toContain('indexing_mode 0');
    const l = fails(() =>
      new LibSVMReader({
        data_libsvm: DATA,
        data_shape: [3],
        label_libsvm: LABEL,
        label_shape: [2],
        batch_size: 4,
      }).next(),
    );
    expect(l.reason).toContain(
      "mxnet-doc-label.libsvm' line 3: feature index 2 is out of range for label_shape (2)",
    );
  });

  it('label files with fewer or more rows than the data', () => {
    const short = file('short.txt', '0\n0 1:1\n');
    const e = fails(() =>
      all(
        new LibSVMReader({
          data_libsvm: DATA,
          data_shape: [3],
          label_libsvm: short,
          label_shape: [3],
          batch_size: 2,
        }),
      ),
    );
    expect(e.reason).toContain("data_libsvm '");
    expect(e.reason).toContain('line 3: data_libsvm row 2 has no label row');
    const long = file('long.txt', '0\n0\n0\n0\n0 2:1\n');
    const m = fails(() =>
      all(
        new LibSVMReader({
          data_libsvm: DATA,
          data_shape: [3],
          label_libsvm: long,
          label_shape: [3],
          batch_size: 2,
        }),
      ),
    );
    expect(m.reason).toContain(`label_libsvm '${long}' line 5: label_libsvm has more rows than data_libsvm`);
    expect(m.hint).toContain('one row per example');
  });

  it('round_batch needs enough rows in the part', () => {
    const e = fails(() => new LibSVMReader({ data_libsvm: DATA, data_shape: [3], batch_size: 9 }).next());
    expect(e.reason).toContain('has only 4 rows, fewer than the 5 needed');
  });

  it('parameters are checked as MXNet checks them', () => {
    const base = { data_libsvm: DATA, data_shape: [3], batch_size: 2 };
    const bad: [Partial<LibSVMReaderParams>, string][] = [
      [{ round_batch: false }, 'round_batch = true only'],
      [{ data_shape: [3, 1] }, 'data_shape must be 1-D'],
      [{ data_shape: [] }, 'data_shape must be a non-empty list'],
      [{ label_shape: [2] }, 'label_shape must be (1,) without label_libsvm'],
      [{ label_libsvm: LABEL }, 'more than 1 column when label_libsvm is set'],
      [{ label_libsvm: LABEL, label_shape: [3, 2] }, 'label_shape must be 1-D'],
      [{ num_parts: 0 }, 'num_parts must be an integer ≥ 1'],
      [{ num_parts: 2, part_index: 2 }, 'part_index 2 must be less than num_parts 2'],
      [{ part_index: -1 }, 'part_index must be an integer ≥ 0'],
      [{ batch_size: 0 }, 'batch_size must be an integer ≥ 1'],
      [{ indexing_mode: 0.5 }, 'indexing_mode must be an integer'],
      [{ data_libsvm: `${DATA}?indexing_mode=x` }, "unsupported parser argument 'indexing_mode=x'"],
      [{ data_libsvm: `${DATA}?label_column=0` }, "unsupported parser argument 'label_column=0'"],
      [{ data_libsvm: `${DATA}#cache` }, 'cache file'],
      [{ data_libsvm: join(tmp, 'missing.txt') }, 'cannot open the data_libsvm file'],
    ];
    for (const [p, msg] of bad) {
      expect(fails(() => new LibSVMReader({ ...base, ...p } as LibSVMReaderParams)).reason).toContain(msg);
    }
    expect(new LibSVMReader({ ...base, label_libsvm: 'NULL' }).labelIsCsr).toBe(false);
  });
});
