/**
 * The cuda shape family: every golden `shape` case renders on a RenderRuntime with launches that
 * match their kernels' signatures, and every generated kernel compiles with nvcc (sm_90) and NVRTC.
 * Plus the host-side planning (axis merging, the bitonic schedule, Pad's axis plan).
 */
import { describe, expect, it } from 'vitest';
import { itCompiles } from '../../test-util/compile.js';
import { renderCases } from '../../test-util/render.js';
import { installShape } from './index.js';
import { planPad } from './pad.js';
import { planCopy } from './strided.js';
import { mergeAxes } from './sum.js';
import { bitonicSteps } from './take-grad.js';

const OPS = [
  'Concat',
  'Flatten',
  'Pad',
  'Reshape',
  'SliceChannel',
  'SwapAxis',
  '_backward_Cast',
  '_backward_Concat',
  '_backward_Pad',
  '_backward_diag',
  '_backward_pick',
  '_backward_repeat',
  '_backward_slice',
  '_backward_slice_axis',
  '_backward_slice_like',
  '_backward_take',
  '_backward_tile',
  '_split_v2',
  'broadcast_axis',
  'broadcast_like',
  'broadcast_to',
  'diag',
  'expand_dims',
  'one_hot',
  'pick',
  'repeat',
  'reshape_like',
  'reverse',
  'slice',
  'slice_axis',
  'slice_like',
  'squeeze',
  'stack',
  'take',
  'tile',
  'transpose',
];

describe('cuda shape kernels', () => {
  const r = renderCases(['shape'], undefined, (reg, host) => installShape(reg, host));

  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual([...OPS].sort());
    expect(r.missing).toEqual(new Set());
    // Every kernel source is distinct per specialisation and named by its hash.
    const entries = [...r.rt.sources.values()].map((s) => s.source.entry);
    expect(new Set(entries).size).toBe(entries.length);
  });

  itCompiles(() => [r.rt]);
});

describe('shape planning', () => {
  it('drops size-1 axes and merges axes contiguous in both windows', () => {
    // A transpose of (2, 3, 4) → (4, 3, 2): nothing merges.
    expect(planCopy([4, 3, 2], [1, 4, 12], [6, 2, 1])).toEqual([
      { n: 4, s: 1, d: 6 },
      { n: 3, s: 4, d: 2 },
      { n: 2, s: 12, d: 1 },
    ]);
    // A dense copy with size-1 axes collapses to one run.
    expect(planCopy([2, 1, 3, 4], [12, 12, 4, 1], [12, 12, 4, 1])).toEqual([{ n: 24, s: 1, d: 1 }]);
    // A slice of the last axis keeps two axes; a broadcast row keeps its stride 0.
    expect(planCopy([2, 3, 2], [12, 4, 1], [6, 2, 1])).toEqual([
      { n: 6, s: 4, d: 2 },
      { n: 2, s: 1, d: 1 },
    ]);
    expect(planCopy([5, 3], [0, 1], [3, 1])).toEqual([
      { n: 5, s: 0, d: 3 },
      { n: 3, s: 1, d: 1 },
    ]);
    expect(planCopy([2, 0], [1, 1], [1, 1])).toBeNull();
  });

  it('merges only unpadded Pad axes', () => {
    expect(
      planPad([
        { n: 1, stride: 12, lo: 0, cnt: 1 },
        { n: 3, stride: 4, lo: 0, cnt: 3 },
        { n: 4, stride: 1, lo: 0, cnt: 4 },
      ]),
    ).toEqual([{ n: 12, stride: 1, lo: 0, cnt: 12 }]);
    expect(
      planPad([
        { n: 3, stride: 4, lo: 0, cnt: 3 },
        { n: 6, stride: 1, lo: 1, cnt: 4 },
      ]),
    ).toEqual([
      { n: 3, stride: 4, lo: 0, cnt: 3 },
      { n: 6, stride: 1, lo: 1, cnt: 4 },
    ]);
  });

  it('merges summed axes', () => {
    expect(
      mergeAxes([
        { n: 2, stride: 24 },
        { n: 1, stride: 12 },
        { n: 3, stride: 4 },
      ]),
    ).toEqual([
      { n: 2, stride: 24 },
      { n: 3, stride: 4 },
    ]);
    expect(
      mergeAxes([
        { n: 2, stride: 3 },
        { n: 3, stride: 1 },
      ]),
    ).toEqual([{ n: 6, stride: 1 }]);
  });

  it('schedules a full bitonic sort', () => {
    expect(bitonicSteps(1)).toEqual([]);
    expect(bitonicSteps(4)).toEqual([
      [2, 1],
      [4, 2],
      [4, 1],
    ]);
    // Simulate the schedule on the host: it sorts.
    const keys = [7, 3, 9, 1, 8, 2, 6, 0];
    for (const [size, dist] of bitonicSteps(keys.length)) {
      for (let i = 0; i < keys.length / 2; i++) {
        const a = 2 * dist * Math.floor(i / dist) + (i % dist);
        const b = a + dist;
        const up = (a & size) === 0;
        const x = keys[a] as number;
        const y = keys[b] as number;
        if (y < x === up) {
          keys[a] = y;
          keys[b] = x;
        }
      }
    }
    expect(keys).toEqual([0, 1, 2, 3, 6, 7, 8, 9]);
  });
});
