/** The merge of the servers' pull answers: key order, exact keys, and ZPull into a given buffer. */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { mergeAnswers } from './answers.js';
import type { KVPairs } from './api.js';

const part = (keys: bigint[], bytes: number[], lens: number[]): KVPairs => ({
  keys: BigUint64Array.from(keys),
  vals: Uint8Array.from(bytes),
  lens: Int32Array.from(lens),
});

describe('mergeAnswers', () => {
  const keys = BigUint64Array.from([1n, 2n, 9n]);
  const answers = [part([9n], [7, 8], [2]), undefined, part([1n, 2n], [1, 2, 3], [1, 2])];

  it('concatenates the answers in key order, into a new buffer or the one given', () => {
    const merged = mergeAnswers(keys, answers);
    expect(Array.from(merged.vals)).toEqual([1, 2, 3, 7, 8]);
    expect(Array.from(merged.lens)).toEqual([1, 2, 2]);
    const into = new Uint8Array(new ArrayBuffer(16), 8, 5);
    const got = mergeAnswers(keys, answers, into);
    expect(got.vals).toBe(into);
    expect(Array.from(into)).toEqual([1, 2, 3, 7, 8]);
  });

  it('refuses answers for other keys, missing keys, and a buffer of another size', () => {
    expect(() => mergeAnswers(BigUint64Array.from([1n, 3n, 9n]), answers)).toThrow(
      /answered key 2 where key 3/,
    );
    expect(() => mergeAnswers(keys, answers.slice(1))).toThrow(/answered 2 of 3 keys/);
    const into = new Uint8Array(6);
    expect(() => mergeAnswers(keys, answers, into)).toThrow(MXNetError);
    expect(() => mergeAnswers(keys, answers, into)).toThrow(/5 bytes for a 6-byte buffer/);
    expect(Array.from(into)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
