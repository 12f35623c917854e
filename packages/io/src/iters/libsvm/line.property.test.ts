/**
 * Fuzzing of the LibSVM reader (fast-check, fixed seed, bounded runs):
 * - any bytes from an alphabet of LibSVM's own characters (and a few strangers) either parse or
 *   raise an MXNetError, through the line parser and through LibSVMReader on whole files;
 * - generated valid rows (label, weight, qid, features with values that dmlc reads exactly: small
 *   integers plus eighths, in assorted spellings) read back as generated, with random blanks,
 *   comments, blank lines, line ends (\n, \r\n, \r) and buffer sizes; expected values come from
 *   the generator, not from the reader;
 * - splitting into any number of parts gives every line exactly once, in order.
 * MX_FUZZ_SCALE=10 runs ten times as many.
 */
import { isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LibSVMLineParser } from './line.js';
import { LibSVMReader } from './reader.js';
import { inputFiles, LineStream, partRange } from './source.js';

const SEED = 0x15;
const SCALE = Number(process.env.MX_FUZZ_SCALE ?? 1);
const enc = new TextEncoder();
const where = { describe: () => 'fuzz line 1' };

const run = <T>(arb: fc.Arbitrary<T>, body: (x: T) => void, numRuns: number) =>
  fc.assert(
    fc.property(arb, (x) => {
      body(x);
    }),
    { seed: SEED, numRuns: Math.round(numRuns * SCALE) },
  );

function onlyMXNetErrors(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (!isMXNetError(e)) throw e;
  }
}

const junk = fc
  .array(fc.constantFrom(...'0123456789+-.eE: \t#qid:xX,\n\r\u00ff\u0000'.split('')), { maxLength: 80 })
  .map((cs) => cs.join(''));

interface Row {
  label: number;
  weight?: number;
  qid?: number;
  features: [number, number][];
}

/** A number dmlc reads exactly (k/8, |k| < 2^15), in one of several spellings. */
const exactNumber = fc
  .record({ k: fc.integer({ min: -(2 ** 15), max: 2 ** 15 }), form: fc.nat(4) })
  .map(({ k, form }) => {
    const v = k / 8;
    let text = String(v);
    if (form === 1 && Number.isInteger(v)) text = `${v}.`;
    if (form === 2 && v > 0) text = `+${v}`;
    if (form === 3 && Number.isInteger(v) && v !== 0) text = `${v / 10}e1`;
    if (form === 4 && Math.abs(v) < 1 && v !== 0)
      text = v < 0 ? `-${String(-v).slice(1)}` : String(v).slice(1);
    return { v, text };
  });

const row = fc.record({
  label: exactNumber,
  weight: fc.option(exactNumber, { nil: undefined }),
  qid: fc.option(fc.nat(1000), { nil: undefined }),
  features: fc.uniqueArray(fc.tuple(fc.nat(50), exactNumber), { selector: (f) => f[0], maxLength: 12 }),
  blank: fc.constantFrom(' ', '\t', '  ', ' \t '),
  comment: fc.boolean(),
});

type GenRow = typeof row extends fc.Arbitrary<infer T> ? T : never;

function render(r: GenRow) {
  const b = r.blank;
  let s = r.label.text + (r.weight ? `:${r.weight.text}` : '');
  if (r.qid !== undefined) s += `${b}qid:${r.qid}`;
  for (const [i, v] of r.features) s += `${b}${i}:${v.text}`;
  if (r.comment) s += `${b}# 1:2 trailing`;
  const want: Row = { label: r.label.v, features: r.features.map(([i, v]) => [i, v.v]) };
  if (r.weight) want.weight = r.weight.v;
  if (r.qid !== undefined) want.qid = r.qid;
  return { text: s, want };
}

describe('LibSVM fuzzing', () => {
  it('junk lines parse or raise an MXNetError', () => {
    const parser = new LibSVMLineParser('fuzz', '');
    run(
      junk,
      (text) => {
        const bytes = enc.encode(text.replace(/[\r\n]/g, ' '));
        onlyMXNetErrors(() => parser.parse(bytes, 0, bytes.length, where));
      },
      2000,
    );
  });

  it('junk files read or raise an MXNetError, and reset() works after', () => {
    run(
      fc.record({ text: junk, parts: fc.integer({ min: 1, max: 4 }), bs: fc.integer({ min: 1, max: 4 }) }),
      ({ text, parts, bs }) => {
        for (let part = 0; part < parts; part++) {
          const reader = new LibSVMReader({
            data_libsvm: enc.encode(text),
            data_shape: [2 ** 40],
            batch_size: bs,
            num_parts: parts,
            part_index: part,
            buffer_bytes: 16,
          });
          for (let epoch = 0; epoch < 2; epoch++) {
            onlyMXNetErrors(() => {
              for (let n = 0; reader.next() !== undefined; n++) expect(n).toBeLessThan(100);
            });
            reader.reset();
          }
        }
      },
      500,
    );
  });

  it('generated rows read back exactly', () => {
    const file = fc.record({
      rows: fc.array(fc.record({ r: row, eol: fc.constantFrom('\n', '\r\n', '\r'), blanks: fc.nat(2) }), {
        maxLength: 30,
      }),
      finalEol: fc.boolean(),
      bufferBytes: fc.integer({ min: 16, max: 256 }),
    });
    run(
      file,
      ({ rows, finalEol, bufferBytes }) => {
        let text = '';
        const want: Row[] = [];
        rows.forEach(({ r, eol, blanks }, i) => {
          const { text: line, want: w } = render(r);
          text += `${' \t\n'.repeat(blanks)}${i % 5 === 3 ? '# 3:4 a comment line\n' : ''}${line}`;
          if (i + 1 < rows.length || finalEol) text += eol;
          else if (blanks) text += '\n';
          want.push(w);
        });
        const files = inputFiles(enc.encode(text), 'data_libsvm', 'fuzz');
        const lines = new LineStream(files, partRange(files, 0, 1), 'data_libsvm', bufferBytes);
        const parser = new LibSVMLineParser('fuzz', '');
        const got: Row[] = [];
        while (lines.next()) {
          if (!parser.parse(lines.buf, lines.start, lines.end, lines)) continue;
          const g: Row = { label: parser.label, features: [] };
          if (!Number.isNaN(parser.weight)) g.weight = parser.weight;
          if (parser.qid >= 0) g.qid = parser.qid;
          for (let k = 0; k < parser.nnz; k++)
            g.features.push([parser.indices[k] as number, parser.values[k] as number]);
          got.push(g);
        }
        expect(got).toEqual(want);
        expect(lines.buf.length).toBeLessThanOrEqual(Math.max(bufferBytes, 1024));
      },
      400,
    );
  });

  it('parts hold every line exactly once, in order', () => {
    const text = fc
      .array(
        fc.tuple(fc.constantFrom('1', '22', '333 1:1', '', ' '), fc.constantFrom('\n', '\r\n', '\r', '\n\n')),
        {
          maxLength: 40,
        },
      )
      .map((ls) => ls.map(([a, b], i) => `${a}${i}${b}`).join(''));
    run(
      fc.record({ text, parts: fc.integer({ min: 1, max: 12 }), buf: fc.integer({ min: 16, max: 64 }) }),
      ({ text, parts, buf }) => {
        const files = inputFiles(enc.encode(text), 'x', 'fuzz');
        const read = (r: number, n: number) => {
          const lines = new LineStream(files, partRange(files, r, n), 'x', buf);
          const out: string[] = [];
          while (lines.next())
            out.push(
              `${lines.lineNumber()}:${new TextDecoder().decode(lines.buf.subarray(lines.start, lines.end))}`,
            );
          return out;
        };
        const whole = read(0, 1);
        const split: string[] = [];
        for (let r = 0; r < parts; r++) split.push(...read(r, parts));
        expect(split).toEqual(whole);
        // Line numbers agree with a plain split of the text.
        const byHand = text
          .split(/\r\n|\r|\n/)
          .map((l, i) => `${i + 1}:${l}`)
          .filter((l) => !/^\d+:$/.test(l));
        expect(whole).toEqual(byHand);
      },
      400,
    );
  });
});
