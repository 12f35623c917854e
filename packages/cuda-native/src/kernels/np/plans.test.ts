/**
 * Unit tests of the np kernels' host-side planning (index maps, windows, lanes, strides): the part
 * of each kernel that can be checked for values without a GPU.
 */
import { describe, expect, it } from 'vitest';
import { broadcastStrides } from './bitwise.js';
import { sliceShape, sliceWindow } from './indexing.js';
import { lanes } from './reduce.js';
import { padMaps, repeatsPlan, rollPlan, rot90View } from './shape.js';
import { traceGeometry } from './trace.js';

describe('np host-side plans', () => {
  it('roll maps each output position to its source', () => {
    expect(rollPlan({ shift: [1], axis: null }, [2, 2])).toEqual({ view: [4], maps: [[3, 0, 1, 2]] });
    expect(rollPlan({ shift: [-1], axis: [1] }, [2, 3]).maps).toEqual([
      [0, 1],
      [1, 2, 0],
    ]);
  });
  it('repeats expands per-element counts along the axis', () => {
    const p = repeatsPlan({ repeats: [2, 0, 1], axis: 0 }, [3, 2]);
    expect(p.outView).toEqual([3, 2]);
    expect(p.maps).toEqual([
      [0, 0, 2],
      [0, 1],
    ]);
  });
  it('pad maps follow NumPy modes', () => {
    const pw = [[2, 2]];
    expect(padMaps({ pad_width: pw, mode: 'constant', constant_values: 0 }, [3])).toEqual([
      [-1, -1, 0, 1, 2, -1, -1],
    ]);
    expect(padMaps({ pad_width: pw, mode: 'edge', constant_values: 0 }, [3])).toEqual([
      [0, 0, 0, 1, 2, 2, 2],
    ]);
    expect(padMaps({ pad_width: pw, mode: 'reflect', constant_values: 0 }, [3])).toEqual([
      [2, 1, 0, 1, 2, 1, 0],
    ]);
    expect(padMaps({ pad_width: pw, mode: 'symmetric', constant_values: 0 }, [3])).toEqual([
      [1, 0, 0, 1, 2, 2, 1],
    ]);
  });
  it('rot90 reads the input through flipped, swapped strides', () => {
    // [[0,1,2],[3,4,5]] rotated once: [[2,5],[1,4],[0,3]].
    const v = rot90View(1, null, [2, 3]);
    expect(v.view).toEqual([3, 2]);
    const read = (i: number, j: number) =>
      v.base + i * (v.strides[0] as number) + j * (v.strides[1] as number);
    expect([read(0, 0), read(0, 1), read(1, 0), read(2, 1)]).toEqual([2, 5, 1, 3]);
  });
  it('slice windows match NumPy slicing', () => {
    const a = { begin: [1, null], end: [null, null], step: [null, -1] };
    expect(sliceShape([3, 4], a)).toEqual([2, 4]);
    expect(sliceWindow([3, 4], a)).toEqual({ base: 4 + 3, strides: [4, -1] });
  });
  it('lanes split kept and reduced axes', () => {
    const l = lanes([2, 3, 4], [1]);
    expect(l).toMatchObject({
      keptShape: [2, 4],
      keptStride: [12, 1],
      laneShape: [3],
      laneStride: [4],
      nKept: 8,
      nLane: 3,
    });
  });
  it('broadcast strides are 0 along broadcast axes', () => {
    expect(broadcastStrides([3, 1], [2, 3, 4])).toEqual([0, 1, 0]);
  });
  it('trace geometry walks the offset diagonal', () => {
    const g = traceGeometry([3, 4], { offset: 1, axis1: 0, axis2: 1 });
    expect(g).toMatchObject({ base: 1, len: 3, step: 5, count: 1 });
  });
});
