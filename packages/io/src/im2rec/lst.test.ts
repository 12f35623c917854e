/**
 * The `.lst` side of im2rec: Python's '%f', Python's shuffle order (expected values printed by
 * CPython 3: `random.seed(100); random.shuffle(list(range(n)))`, and `'%f' % x`), the folder walk
 * and labels, the train/val/test split arithmetic, and read_list's skipping of bad lines.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImageRandom } from '../image/random.js';
import { formatPyFloat, listImages, makeList, parseLst, splitList } from './lst.js';

describe('formatPyFloat', () => {
  it("matches CPython's '%f'", () => {
    // Printed by CPython 3: '%f' % x for each x.
    const cases: Array<[number, string]> = [
      [0.0078125, '0.007812'],
      [0.0234375, '0.023438'],
      [-0, '-0.000000'],
      [2.5, '2.500000'],
      [1e22, '10000000000000000000000.000000'],
      [Number.NaN, 'nan'],
      [Number.NEGATIVE_INFINITY, '-inf'],
      [1.0000005, '1.000001'],
      [12.3456785, '12.345678'],
      [-7.0000004, '-7.000000'],
    ];
    for (const [x, s] of cases) expect(formatPyFloat(x), String(x)).toBe(s);
  });
});

describe("Python's shuffle (seed 100)", () => {
  it('gives the permutations CPython gives', () => {
    const expected: Record<number, number[]> = {
      4: [0, 2, 3, 1],
      5: [2, 0, 4, 3, 1],
      7: [0, 4, 2, 6, 5, 3, 1],
      12: [1, 4, 9, 0, 3, 8, 5, 6, 11, 10, 7, 2],
    };
    for (const [n, perm] of Object.entries(expected)) {
      const items = Array.from({ length: Number(n) }, (_, i) => i);
      new ImageRandom(100).shuffle(items);
      expect(items).toEqual(perm);
    }
  });
});

describe('listImages / makeList', () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'im2rec-lst-'));
    root = join(dir, 'images');
    for (const d of ['cat', 'dog', 'empty']) mkdirSync(join(root, d), { recursive: true });
    // Content does not matter for listing; names, extensions and folders do.
    for (const f of ['top.png', 'cat/2.png', 'cat/1.jpg', 'dog/x.JPG', 'empty/readme.txt', 'notes.txt']) {
      writeFileSync(join(root, f), 'x');
    }
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const lines = (file: string) => readFileSync(file, 'utf8');

  it('recursive: folders in sorted walk order get labels, the root first', () => {
    const { items, classes } = listImages(root, { recursive: true });
    expect(classes).toEqual([
      ['.', 0],
      ['cat', 1],
      ['dog', 2],
    ]);
    expect(items.map((i) => [i.index, i.path, i.labels[0]])).toEqual([
      [0, 'top.png', 0],
      [1, 'cat/1.jpg', 1],
      [2, 'cat/2.png', 1],
      [3, 'dog/x.JPG', 2],
    ]);
  });

  it('not recursive: the root only, label 0; --exts filters', () => {
    expect(listImages(root).items.map((i) => i.path)).toEqual(['top.png']);
    expect(listImages(root, { recursive: true, exts: ['.jpg'] }).items.map((i) => i.path)).toEqual([
      'cat/1.jpg',
      'dog/x.JPG',
    ]);
  });

  it('writes <prefix>.lst, shuffled in CPython order', () => {
    const prefix = join(dir, 'data');
    const res = makeList({ prefix, root, recursive: true });
    expect(res.files).toEqual([{ path: `${prefix}.lst`, count: 4 }]);
    // Unshuffled order 0..3 permuted by [0, 2, 3, 1] (seed 100).
    expect(lines(`${prefix}.lst`)).toBe(
      '0\t0.000000\ttop.png\n2\t1.000000\tcat/2.png\n3\t2.000000\tdog/x.JPG\n1\t1.000000\tcat/1.jpg\n',
    );
  });

  it('splits train / val / test from chunk_size * ratio', () => {
    const prefix = join(dir, 'split');
    makeList({ prefix, root, recursive: true, shuffle: false, trainRatio: 0.5, testRatio: 0.25 });
    expect(lines(`${prefix}_test.lst`)).toBe('0\t0.000000\ttop.png\n');
    expect(lines(`${prefix}_train.lst`)).toBe('1\t1.000000\tcat/1.jpg\n2\t1.000000\tcat/2.png\n');
    expect(lines(`${prefix}_val.lst`)).toBe('3\t2.000000\tdog/x.JPG\n');
  });

  it('chunks: ceil(N / chunks) per chunk, named _<i>', () => {
    const items = [0, 1, 2, 3, 4].map((i) => ({ index: i, path: `${i}.jpg`, labels: [0] }));
    const files = splitList(items, 'p', 2, 1, 0);
    expect(files.map((f) => [f.path, f.items.map((i) => i.index)])).toEqual([
      ['p_0.lst', [0, 1, 2]],
      ['p_1.lst', [3, 4]],
    ]);
    // train 0.7 of chunk_size 3 -> int(2.1) = 2 train, the rest val, no test file.
    const split = splitList(items, 'p', 2, 0.7, 0);
    expect(split.map((f) => [f.path, f.items.map((i) => i.index)])).toEqual([
      ['p_0_val.lst', [2]],
      ['p_0_train.lst', [0, 1]],
      ['p_1_val.lst', []],
      ['p_1_train.lst', [3, 4]],
    ]);
  });

  it('refuses a missing root and bad ratios', () => {
    expect(() => listImages(join(dir, 'nope'))).toThrow(MXNetError);
    expect(() => makeList({ prefix: join(dir, 'x'), root, trainRatio: 0.8, testRatio: 0.3 })).toThrow(
      /sum <= 1/,
    );
    expect(() => makeList({ prefix: join(dir, 'x'), root, chunks: 0 })).toThrow(/chunks/);
  });
});

describe('parseLst', () => {
  it("reads im2rec's lines and skips malformed ones with a warning", () => {
    const text = [
      '0\t1.000000\ta.jpg',
      '7\t1.5\t2\t-3e1\tsub/b c.png',
      'only\ttwo',
      'x\t1\tc.jpg',
      '3\tlabel\td.jpg',
      '',
      ' 4 \t inf \t e.jpg \r',
    ].join('\n');
    const { items, warnings } = parseLst(text, 'l.lst');
    expect(items).toEqual([
      { index: 0, path: 'a.jpg', labels: [1] },
      { index: 7, path: 'sub/b c.png', labels: [1.5, 2, -30] },
      { index: 4, path: 'e.jpg', labels: [Number.POSITIVE_INFINITY] },
    ]);
    expect(warnings.map((w) => w.split(':')[1])).toEqual(['3', '4', '5', '6']);
    expect(warnings[1]).toMatch(/index "x" is not an integer/);
    expect(warnings[2]).toMatch(/label "label" is not a number/);
  });
});
