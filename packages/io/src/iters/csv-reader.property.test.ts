/**
 * Fuzzing of the CSV reader (fast-check, fixed seed, bounded runs). Files are generated from
 * values: random doubles (subnormal to huge), integers and inf/nan, each written in a random form
 * (shortest, exponent with 0–20 digits, fixed with 0–10 digits, '+' sign, 'E', '.5' and '5.'),
 * with random spaces and tabs around fields, random row ends (\n, \r\n, \r), blank and
 * whitespace-only lines, a BOM, with or without a final newline, and rows of uneven length; read
 * through buffers from 16 bytes to 4 KiB. The expected rows are computed from the generated text
 * with JavaScript's own `Number` (then `Math.fround`), not by the reader. Then one field of a
 * valid file is replaced by garbage: the rows before it must still read exactly and the bad row
 * must raise an MXNetError naming the line and column. MX_FUZZ_SCALE=10 runs ten times as many.
 */
import { isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvReader } from './csv-reader.js';

const SEED = 0xc5a;
const SCALE = Number(process.env.MX_FUZZ_SCALE ?? 1);

interface Field {
  readonly text: string;
  readonly lead: string;
  readonly trail: string;
}

interface Row {
  readonly fields: Field[];
  readonly end: string;
  /** Blank lines written before the row. */
  readonly blanks: string[];
}

interface Csv {
  readonly rows: Row[];
  readonly bom: boolean;
  readonly finalNewline: boolean;
  readonly bufferBytes: number;
}

const blank = fc.constantFrom('', ' ', '\t', '  ', ' \t');

const arbNumberText = fc.oneof(
  fc
    .record({
      v: fc.double({ noNaN: true, noDefaultInfinity: true }),
      form: fc.constantFrom('shortest', 'exp', 'fixed'),
      digits: fc.nat(20),
      plus: fc.boolean(),
      upper: fc.boolean(),
    })
    .map(({ v, form, digits, plus, upper }) => {
      let t =
        form === 'exp'
          ? v.toExponential(digits)
          : form === 'fixed' && Math.abs(v) < 1e21
            ? v.toFixed(digits % 11)
            : String(v);
      if (upper) t = t.toUpperCase();
      return plus && !t.startsWith('-') ? `+${t}` : t;
    }),
  fc.integer().map(String),
  fc.integer({ min: 0, max: 999 }).map((i) => `.${i}`),
  fc.integer({ min: -999, max: 999 }).map((i) => `${i}.`),
  fc.constantFrom('inf', '-Infinity', 'INF', 'nan', 'NaN', '-0', '0.000', '1e-400', '1e400'),
);

const arbField = fc.record({ text: arbNumberText, lead: blank, trail: blank });

const arbCsv: fc.Arbitrary<Csv> = fc.record({
  rows: fc.array(
    fc.record({
      fields: fc.array(arbField, { minLength: 1, maxLength: 6 }),
      end: fc.constantFrom('\n', '\r\n', '\r'),
      blanks: fc.array(blank, { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 12 },
  ),
  bom: fc.boolean(),
  finalNewline: fc.boolean(),
  bufferBytes: fc.constantFrom(16, 17, 31, 64, 4096),
});

interface Written {
  readonly text: string;
  /** Line number of each row. */
  readonly lines: number[];
  /** Column (1-based) of each field's text, per row. */
  readonly columns: number[][];
}

function write(csv: Csv): Written {
  let text = csv.bom ? '\ufeff' : '';
  const lines: number[] = [];
  const columns: number[][] = [];
  csv.rows.forEach((row, r) => {
    for (const b of row.blanks) text += `${b}${row.end}`;
    // Line numbers by the usual rule (\r\n, \r and \n each end one line), so a '\r' followed by
    // an empty line's '\n' is one line end, as in any text editor.
    lines.push((text.match(/\r\n|\r|\n/g)?.length ?? 0) + 1);
    let lineText = '';
    const cols: number[] = [];
    row.fields.forEach((f, i) => {
      if (i > 0) lineText += ',';
      cols.push(lineText.length + f.lead.length + 1);
      lineText += `${f.lead}${f.text}${f.trail}`;
    });
    columns.push(cols);
    text += lineText;
    if (r < csv.rows.length - 1 || csv.finalNewline) text += row.end;
  });
  return { text, lines, columns };
}

/** The reference: what each field's text means, by JavaScript's own number parsing. */
function expected(field: Field): number {
  const t = field.text.toLowerCase().replace('infinity', 'inf').replace('inf', 'Infinity');
  return Math.fround(t.endsWith('nan') ? Number.NaN : Number(t));
}

function open(text: string, bufferBytes: number): CsvReader {
  return new CsvReader(new TextEncoder().encode(text), {
    what: 'data_csv',
    op: 'CSVIter',
    kind: 'float32',
    bufferBytes,
  });
}

const run = <T>(arb: fc.Arbitrary<T>, body: (x: T) => void, numRuns: number) =>
  fc.assert(
    fc.property(arb, (x) => {
      body(x);
    }),
    { seed: SEED, numRuns: Math.round(numRuns * SCALE) },
  );

describe('CSV reader fuzzing', () => {
  it('reads every generated file exactly, through any buffer size', () =>
    run(
      arbCsv,
      (csv) => {
        const { text } = write(csv);
        const reader = open(text, csv.bufferBytes);
        const width = Math.max(...csv.rows.map((r) => r.fields.length));
        for (const row of csv.rows) {
          const got = new Float32Array(width);
          expect(reader.readRow(got, 0, width)).toBe(row.fields.length);
          expect(Array.from(got.subarray(0, row.fields.length))).toEqual(row.fields.map(expected));
        }
        expect(reader.readRow(new Float32Array(width), 0, width)).toBe(-1);
        // Rewinding gives the same first row again.
        reader.rewind();
        const first = new Float32Array(width);
        expect(reader.readRow(first, 0, width)).toBe(csv.rows[0]?.fields.length);
      },
      300,
    ));

  it('reports the line and column of a field that is not a number', () =>
    run(
      fc.tuple(
        arbCsv,
        fc.nat(),
        fc.nat(),
        fc.constantFrom(
          '',
          'abc',
          '1.2.3',
          '1e',
          '--1',
          '"1"',
          '0x10',
          '1 2',
          '.',
          'e5',
          '+-1',
          'in',
          '1,5;',
        ),
      ),
      ([csv, rowPick, fieldPick, bad]) => {
        const r = rowPick % csv.rows.length;
        const row = csv.rows[r] as Row;
        const f = fieldPick % row.fields.length;
        if (bad === '' && row.fields.length === 1) return; // that is a blank line, which is skipped
        const fields = row.fields.map((x, i) =>
          i === f ? { text: bad, lead: x.lead, trail: bad === '' ? '' : x.trail } : x,
        );
        // '1,5;' adds a field: the bad one is then the ';' after '5'.
        const rows = csv.rows.map((x, i) => (i === r ? { ...x, fields } : x));
        const { text, lines, columns } = write({ ...csv, rows });
        const reader = open(text, csv.bufferBytes);
        const width = 8;
        for (let i = 0; i < r; i++) {
          const got = new Float32Array(width);
          expect(reader.readRow(got, 0, width)).toBe(csv.rows[i]?.fields.length);
        }
        let error: unknown;
        try {
          reader.readRow(new Float32Array(width), 0, width);
        } catch (e) {
          error = e;
        }
        if (!isMXNetError(error)) throw new Error(`no MXNetError for '${bad}' in ${JSON.stringify(text)}`);
        const message = (error as Error).message;
        expect(message).toContain(`line ${lines[r]},`);
        const column = (columns[r]?.[f] as number) + (bad === '1,5;' ? 2 : 0);
        if (bad !== '') expect(message).toContain(`column ${column}:`);
      },
      300,
    ));
});
