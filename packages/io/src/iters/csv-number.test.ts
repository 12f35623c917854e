/**
 * Numbers as MXNet's parser reads them: every golden case of tools/golden/io/csv.py is the float32
 * C's strtof gives (ordinary decimals, NumPy's savetxt format, exact float32 midpoints and texts a
 * hair below or above them, overflow and underflow, inf/nan spellings). The reader must give the
 * same bits, whether the text is parsed one value per row or all in one row through a tiny buffer.
 * Integers (int32/int64 dtypes) are checked against BigInt literals.
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/csv-numbers.json' with { type: 'json' };
import { CsvReader, type CsvValueKind } from './csv-reader.js';

const cases = golden.cases as [string, number | null][];
const enc = (s: string) => new TextEncoder().encode(s);

function reader(text: string, kind: CsvValueKind = 'float32', bufferBytes?: number): CsvReader {
  return new CsvReader(enc(text), { what: 'data_csv', op: 'CSVIter', kind, bufferBytes });
}

function bitsOf(values: Float32Array): number[] {
  return Array.from(new Uint32Array(values.buffer, values.byteOffset, values.length));
}

/** Expected bits, with NaN compared as "is NaN" (strtof's NaN payload is not MXNet's business). */
function checkBits(got: Float32Array): void {
  const bits = bitsOf(got);
  cases.forEach(([text, want], i) => {
    if (want === null) expect(Number.isNaN(got[i]), text).toBe(true);
    else expect(bits[i], text).toBe(want);
  });
}

describe('float32 fields as strtof reads them', () => {
  it('one value per row', () => {
    const r = reader(cases.map(([t]) => t).join('\n'));
    const got = new Float32Array(cases.length);
    for (let i = 0; i < cases.length; i++) expect(r.readRow(got, i, 1)).toBe(1);
    expect(r.readRow(got, 0, 1)).toBe(-1);
    checkBits(got);
  });

  it('all values in one row, read through a 16-byte buffer', () => {
    const r = reader(cases.map(([t]) => t).join(' , '), 'float32', 16);
    const got = new Float32Array(cases.length);
    expect(r.readRow(got, 0, cases.length)).toBe(cases.length);
    checkBits(got);
  });

  it("np.savetxt's default output", () => {
    const { text, shape, bits } = golden.savetxt;
    const r = reader(text);
    const [rows, cols] = shape as [number, number];
    const got = new Float32Array(rows * cols);
    for (let i = 0; i < rows; i++) expect(r.readRow(got, i * cols, cols)).toBe(cols);
    expect(r.readRow(got, 0, cols)).toBe(-1);
    expect(bitsOf(got)).toEqual(bits);
  });
});

describe('integer dtypes', () => {
  it('int32 reads integers exactly, in any number form', () => {
    const texts = ['200000001', '-2147483648', '2147483647', '+7', ' 12 ', '1.0e3', '4.000', '-0'];
    const r = reader(texts.join(','), 'int32');
    const got = new Int32Array(texts.length);
    expect(r.readRow(got, 0, texts.length)).toBe(texts.length);
    expect(Array.from(got)).toEqual([200000001, -2147483648, 2147483647, 7, 12, 1000, 4, 0]);
  });

  it('int64 reads integers of any length exactly', () => {
    const texts = [
      '2147483648',
      '9223372036854775807',
      '-9223372036854775808',
      '+123456789012345678',
      '2e18',
    ];
    const r = reader(texts.join(','), 'int64');
    const got = new BigInt64Array(texts.length);
    expect(r.readRow(got, 0, texts.length)).toBe(texts.length);
    expect(Array.from(got)).toEqual([
      2147483648n,
      9223372036854775807n,
      -9223372036854775808n,
      123456789012345678n,
      2000000000000000000n,
    ]);
  });

  it.each([
    ['int32', '1.5', 'is not an integer'],
    ['int32', '2147483648', 'out of the int32 range'],
    ['int32', 'nan', 'is not an integer'],
    ['int64', '9223372036854775808', 'out of the int64 range'],
    ['int64', '0.25', 'is not an integer'],
    ['int64', 'x1', 'is not a number'],
  ] as const)('%s rejects %s', (kind, text, message) => {
    const r = reader(`1,${text}\n`, kind);
    const dst = kind === 'int64' ? new BigInt64Array(2) : new Int32Array(2);
    let error: unknown;
    try {
      r.readRow(dst, 0, 2);
    } catch (e) {
      error = e;
    }
    expect(isMXNetError(error)).toBe(true);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain("data_csv '<");
    expect((error as Error).message).toContain('line 1, column 3');
  });
});
