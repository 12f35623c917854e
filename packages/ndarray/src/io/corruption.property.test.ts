/**
 * Damaged input never escapes as anything but an MXNetError: every truncation of a valid file
 * fails (exhaustively for fixed files, by fast-check for random ones), and random byte damage
 * either still loads a well-formed result or fails with an MXNetError - never a RangeError,
 * TypeError or a half-built array.
 */
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { DType, type DTypeName, isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadAny } from './index.js';
import { loadMXNetList, saveMXNetList } from './mxnet-list.js';
import { loadMXNetRecord, saveMXNetRecord } from './mxnet-record.js';
import { loadNpy, saveNpy } from './npy.js';
import { loadNpz, saveNpz } from './npz.js';
import { DTYPE_NAMES, deflatedZip, sample } from './test-util.js';
import type { HostArray } from './types.js';

type Loader = (b: Uint8Array) => unknown;

const FORMATS: Readonly<Record<string, { save: (a: HostArray[]) => Uint8Array; load: Loader }>> = {
  v2: {
    save: (a) =>
      saveMXNetList(
        a.filter((x) => x.shape.length > 0),
        { npShape: false },
      ),
    load: (b) => loadMXNetList(b, { npShape: false, source: 'f' }),
  },
  v2dict: {
    save: (a) =>
      saveMXNetList(Object.fromEntries(a.filter((x) => x.shape.length > 0).map((x, i) => [`p${i}`, x])), {
        npShape: false,
      }),
    load: (b) => loadMXNetList(b, { npShape: 'global' }),
  },
  v3: { save: (a) => saveMXNetList(a), load: (b) => loadMXNetList(b) },
  record: { save: (a) => saveMXNetRecord(a[0] ?? sample('int8', [0])), load: (b) => loadMXNetRecord(b) },
  npy: { save: (a) => saveNpy(a[0] ?? sample('int8', [0])), load: (b) => loadNpy(b, 'f.npy') },
  npz: { save: (a) => saveNpz(a), load: (b) => loadNpz(b, 'f.npz') },
  any: { save: (a) => saveNpz(Object.fromEntries(a.map((x, i) => [`k${i}`, x]))), load: (b) => loadAny(b) },
};

/** Runs `load`; returns 'ok' or 'mxnet', rethrowing any other error. Checks results are well formed. */
function outcome(load: Loader, b: Uint8Array): 'ok' | 'mxnet' {
  let result: unknown;
  try {
    result = load(b);
  } catch (e) {
    if (isMXNetError(e)) return 'mxnet';
    throw e;
  }
  const arrays: HostArray[] = Array.isArray((result as { arrays?: unknown }).arrays)
    ? (result as { arrays: HostArray[] }).arrays
    : [result as HostArray];
  for (const a of arrays) {
    if (a.none === true) continue;
    const n = a.shape.reduce((x, y) => x * y, 1);
    expect(a.data.length).toBe(n);
    expect(a.data).toBeInstanceOf(DType[a.dtype].storage);
  }
  return 'ok';
}

const arbArray: fc.Arbitrary<HostArray> = fc
  .record({
    dtype: fc.constantFrom(...DTYPE_NAMES),
    shape: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 4 }),
    seed: fc.nat(100),
  })
  .map(({ dtype, shape, seed }) => sample(dtype as DTypeName, shape, seed));

describe('truncation always fails with an MXNetError', () => {
  const fixed: [string, Uint8Array, Loader][] = [
    [
      'legacy_ndarray.v0',
      new Uint8Array(readFileSync(new URL('./__fixtures__/legacy_ndarray.v0', import.meta.url))),
      (b) => loadMXNetList(b, { npShape: false }),
    ],
    [
      'deflated npz',
      deflatedZip(
        'x.npy',
        saveNpy(sample('float64', [30, 3])),
        deflateRawSync(saveNpy(sample('float64', [30, 3]))),
      ),
      (b) => loadNpz(b),
    ],
  ];
  for (const [name, fmt] of Object.entries(FORMATS)) {
    fixed.push([
      name,
      fmt.save([sample('float32', [3, 2]), sample('int64', [2]), sample('bool', [0, 2])]),
      fmt.load,
    ]);
  }

  it.each(fixed)('%s: every prefix', (_name, bytes, load) => {
    expect(outcome(load, bytes)).toBe('ok');
    for (let cut = 0; cut < bytes.length; cut++) {
      expect(outcome(load, bytes.subarray(0, cut)), `cut at ${cut}`).toBe('mxnet');
    }
  });

  it.each(Object.keys(FORMATS))('%s: random files cut at random offsets', (name) => {
    const fmt = FORMATS[name]!;
    fc.assert(
      fc.property(
        fc.array(arbArray, { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (arrays, at) => {
          const bytes = fmt.save(arrays);
          const cut = Math.min(bytes.length - 1, Math.floor(at * bytes.length));
          expect(outcome(fmt.load, bytes.subarray(0, cut))).toBe('mxnet');
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('random damage fails cleanly or loads a well-formed result', () => {
  it.each(Object.keys(FORMATS))('%s', (name) => {
    const fmt = FORMATS[name]!;
    fc.assert(
      fc.property(
        fc.array(arbArray, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        (arrays, edits) => {
          const bytes = fmt.save(arrays).slice();
          for (const [at, v] of edits) bytes[Math.min(bytes.length - 1, Math.floor(at * bytes.length))] = v;
          outcome(fmt.load, bytes);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('damaged deflate streams fail cleanly', () => {
    const npy = saveNpy(sample('int32', [40, 5]));
    const z = deflatedZip('x.npy', npy, deflateRawSync(npy));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: z.length - 1 }), fc.integer({ min: 0, max: 255 }), (at, v) => {
        const b = z.slice();
        b[at] = v;
        outcome((x) => loadNpz(x), b);
      }),
      { numRuns: 400 },
    );
  });
});
