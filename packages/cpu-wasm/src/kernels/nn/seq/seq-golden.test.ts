/**
 * The nn_seq golden cases through the cpu-wasm harness (see test-util/golden.ts), plus the hidden
 * `grad` output of CTCLoss, which the cases carry under an extra key (the conformance runner only
 * compares visible outputs).
 */
import { describe, expect, it } from 'vitest';
import { describeGolden, hostOf, loadGolden, num, type RawArray } from '../../../test-util/golden.js';
import { createOpHarness } from '../../../test-util/run-op.js';

describeGolden('nn_seq', {
  ops: [
    'Embedding',
    '_backward_Embedding',
    'SequenceMask',
    '_backward_SequenceMask',
    'SequenceLast',
    '_backward_SequenceLast',
    'SequenceReverse',
    '_backward_SequenceReverse',
    'UpSampling',
    '_backward_UpSampling',
    'CTCLoss',
    'ctc_loss',
    '_contrib_CTCLoss',
    '_contrib_ctc_loss',
    '_backward_ctc_loss',
  ],
  minErrorCases: 25,
  afterErrors: (h) => {
    const [o] = h.run('SequenceLast', [{ shape: [2, 1], dtype: 'float32', data: [1, 2] }]);
    expect([...(o?.data ?? [])]).toEqual([2]);
  },
});

describe('CTCLoss hidden grad output (golden)', () => {
  const h = createOpHarness();
  const cases = loadGolden('nn_seq').filter((c) => (c as unknown as { grad?: RawArray }).grad !== undefined);
  it('has cases', () => expect(cases.length).toBeGreaterThan(10));
  for (const c of cases) {
    it(c.name, () => {
      const want = (c as unknown as { grad: RawArray }).grad;
      const outs = h.run(c.op, c.inputs.map(hostOf), c.params);
      const g = outs[1];
      expect(g?.shape).toEqual(want.shape);
      const got = Array.from(g?.data as Float32Array);
      const bad = got.findIndex((v, i) => {
        const e = num(want.data[i] as number);
        return !(Math.abs(v - e) <= 1e-5 + 1e-5 * Math.abs(e));
      });
      expect(bad, `first mismatch at ${bad}: ${got[bad]} vs ${want.data[bad]}`).toBe(-1);
    });
  }
});
