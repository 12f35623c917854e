/**
 * The LibSVM line grammar, token by token: what dmlc reads correctly reads the same (the golden
 * test checks the values against dmlc itself), and every input dmlc would misread is an MXNetError
 * naming the line and column. Expected values here are written by hand.
 */
import { isMXNetError, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { dmlcFloat } from './dmlc-float.js';
import { LibSVMLineParser } from './line.js';

const where = { describe: () => "data_libsvm 'x.txt' line 7" };
const enc = new TextEncoder();

function parse(text: string) {
  const p = new LibSVMLineParser('LibSVMIter', 'the hint');
  const bytes = enc.encode(text);
  if (!p.parse(bytes, 0, bytes.length, where)) return null;
  return {
    label: p.label,
    weight: Number.isNaN(p.weight) ? undefined : p.weight,
    qid: p.qid < 0 ? undefined : p.qid,
    indices: Array.from(p.indices.subarray(0, p.nnz)),
    values: Array.from(p.values.subarray(0, p.nnz)),
  };
}

function error(text: string): MXNetError {
  try {
    parse(text);
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return e as MXNetError;
  }
  throw new Error(`no error for ${JSON.stringify(text)}`);
}

describe('LibSVM lines', () => {
  it('reads label, features, weight and qid', () => {
    expect(parse('1 0:0.5 2:1.25')).toEqual({ label: 1, indices: [0, 2], values: [0.5, 1.25] });
    expect(parse('-1')).toEqual({ label: -1, indices: [], values: [] });
    expect(parse('2:0.5 qid:7 3:1')).toEqual({ label: 2, weight: 0.5, qid: 7, indices: [3], values: [1] });
    expect(parse('+3 :0.25\t 1 : 2  4:+5 # c 6:1')).toEqual({
      label: 3,
      weight: 0.25,
      indices: [1, 4],
      values: [2, 5],
    });
    expect(parse('0 +7:1E2 8:.5 9:5. 10:-0')).toEqual({
      label: 0,
      indices: [7, 8, 9, 10],
      values: [100, 0.5, 5, -0],
    });
    expect(parse('1 0:1#c')?.indices).toEqual([0]);
  });

  it('has no row for blank and comment lines (anywhere, unlike dmlc after a chunk start)', () => {
    for (const t of ['', '   ', '\t', '# 1 0:1', '  #2 3:4', '#']) expect(parse(t)).toBeNull();
  });

  it('errors name the line, the column and the token', () => {
    const e = error('1 0:1 3:abc');
    expect(e.message).toContain(
      "data_libsvm 'x.txt' line 7, column 9: 'abc' is not a number (the value of feature 3)",
    );
    expect(e.op).toBe('LibSVMIter');
    expect(e.hint).toBe('the hint');
    expect(error('1 x:1').reason).toContain(
      "column 3: 'x:1' is not a non-negative integer (the feature index)",
    );
    expect(error('1 1:').reason).toContain('column 5: the end of the line is not a number');
    expect(error('1 4').reason).toContain("column 3: '4' is a feature without a value");
    expect(error('1 4 5:1').hint).toBe('write every feature as index:value');
    expect(error('1 -2:1').reason).toContain("'-2:1' is not a non-negative integer");
    expect(error('1 2.5:1').reason).toContain('the feature index');
    expect(error('1 1e3:1').reason).toContain('the feature index');
    expect(error('abc 1:1').reason).toContain("column 1: 'abc' is not a number (the label)");
    // dmlc allows blanks after ':', so this is weight 0 followed by ':1'.
    expect(error('1: 0:1').reason).toContain("column 5: ':1' follows a token without a space");
    expect(error('1:x 0:1').reason).toContain("column 3: 'x' is not a number (the weight after the label)");
    expect(error('1 0:1:2').reason).toContain("column 6: ':2' follows a token without a space");
    expect(error('1 0:1,2:3').reason).toContain("column 6: ',2:3' follows a token without a space");
    expect(error('1 qid:x 0:1').reason).toContain("'x' is not a non-negative integer (the qid)");
    expect(error('1 0:1 qid:3').reason).toContain(
      "'qid:3' is not a non-negative integer (the feature index)",
    );
    for (const t of [
      '1 0:inf',
      '1 0:nan',
      '1 0:-inf',
      '1 0:0x10',
      '1 0:1e',
      '1 0:.',
      '1 0:--1',
      '1 0:1.5f',
    ]) {
      expect(error(t).reason).toMatch(/is not a number|follows a token/);
    }
    expect(error(`1 0:${'a'.repeat(60)}`).reason).toContain(`'${'a'.repeat(40)}…'`);
  });

  it('keeps huge indices huge (for the range check) and grows its scratch arrays', () => {
    expect(parse('1 99999999999999999999999:1')?.indices).toEqual([2 ** 53]);
    const many = Array.from({ length: 300 }, (_, i) => `${i}:${i}`).join(' ');
    const row = parse(`1 ${many}`);
    expect(row?.indices.length).toBe(300);
    expect(row?.values[299]).toBe(299);
  });
});

describe("dmlc's atof (values as MXNet gets them)", () => {
  const f = (t: string) => dmlcFloat(enc.encode(t), 0, t.length);
  it('matches correct rounding where dmlc is exact', () => {
    for (const t of ['0', '-0', '1', '+1.5', '0.125', '1e2', '2.5E-1', '16777216', '3.', '.25']) {
      expect(Object.is(f(t), Math.fround(Number(t)))).toBe(true);
    }
  });
  it("follows dmlc's own arithmetic where it is not correctly rounded", () => {
    // What dmlc-core (MXNet's pinned commit) printed for these tokens, by libsvm_golden.cc:
    const dmlc: [string, number][] = [
      ['1e-50', 1.17549421e-38], // exponent clipped to 38, significand raised to 1.175494351
      ['1e39', 1.00000007e38], // clipped exponent, scale built from float 1e8 and 10 steps
      ['4e38', Number.POSITIVE_INFINITY],
      ['3.4028235e38', Number.POSITIVE_INFINITY], // correctly rounded: FLT_MAX
      ['0.00000000000000000005', 0], // only 19 fraction digits are read
      ['18446744073709551617', 1], // the integer part wraps at 2^64
      ['1.1e1', 11],
      ['0.3', 0.300000012],
      ['123456789.987654321', 123456792],
    ];
    for (const [t, v] of dmlc) expect([t, f(t)]).toEqual([t, Math.fround(v)]);
    expect(Math.fround(3.4028235e38)).toBeLessThan(Number.POSITIVE_INFINITY);
  });
  it('refuses what is not one number', () => {
    for (const t of ['', '+', '-', '.', 'e5', '1e', '1e+', '1.2.3', '1-', 'inf', '1 '])
      expect(f(t)).toBeUndefined();
  });
});

it('MXNetError is what line errors are', () => {
  expect(error('1 a:b')).toBeInstanceOf(MXNetError);
});
