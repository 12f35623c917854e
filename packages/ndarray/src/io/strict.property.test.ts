/**
 * Mutation fuzzing of the strict loaders (.params V0..V3 and legacy, .npy, .npz): fast-check with
 * a fixed seed and bounded counts. Each class of mutation (truncation, trailing bytes, edited
 * shapes, counts, dtype flags, devices, versions and headers, dropped or duplicated zip entries,
 * edited CRCs/sizes/offsets, random byte flips) is applied to valid files written by the test
 * writers (fuzz-encoders.ts), and the loader must agree with an independent strict reference
 * decoder (fuzz-reference.ts): reject exactly what it rejects, and otherwise load exactly the
 * content the bytes describe. Classes that can never yield a valid file must always be rejected.
 * Any error other than an MXNetError fails. Set MX_FUZZ_REPORT=1 to print the per-class counts,
 * MX_FUZZ_SCALE=10 to run ten times as many cases.
 */
import { isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Field,
  fieldsOf,
  flagSize,
  getField,
  type RecordVersion,
  setField,
  type TestArray,
  type Written,
  writeList,
  writeNpy,
  writeZipFile,
} from './fuzz-encoders.js';
import {
  FLAG_DTYPES,
  type RefArray,
  type RefFile,
  reference,
  refMXNetList,
  refNpy,
  refNpz,
} from './fuzz-reference.js';
import { loadMXNetList } from './mxnet-list.js';
import { loadNpy } from './npy.js';
import { loadNpz } from './npz.js';
import type { HostArray, LoadedList } from './types.js';

const SEED = 0x5eed10;

interface Stats {
  runs: number;
  rejected: number;
  accepted: number;
}
const stats = new Map<string, Stats>();

afterAll(() => {
  if (!process.env.MX_FUZZ_REPORT) return;
  const rows = [...stats].map(
    ([k, s]) =>
      `${k.padEnd(34)} ${String(s.runs).padStart(6)} ${String(s.rejected).padStart(6)} ${String(s.accepted).padStart(6)}`,
  );
  const total = [...stats.values()].reduce(
    (a, s) => ({
      runs: a.runs + s.runs,
      rejected: a.rejected + s.rejected,
      accepted: a.accepted + s.accepted,
    }),
    { runs: 0, rejected: 0, accepted: 0 },
  );
  console.log(
    `${'class'.padEnd(34)}   runs  rejected  accepted(=reference)\n${rows.join('\n')}\nTOTAL ${total.runs} cases, ${total.rejected} rejected with MXNetError, ${total.accepted} accepted (all equal to the reference), 0 silent acceptances`,
  );
});

function toRef(h: HostArray, withCtx: boolean): RefArray {
  const none = h.none === true;
  return {
    none,
    shape: [...h.shape],
    dtype: h.dtype,
    ctx: withCtx && !none ? [h.ctx?.devType ?? 1, h.ctx?.devId ?? 0] : null,
    bytes: new Uint8Array(h.data.buffer, h.data.byteOffset, h.data.byteLength).slice(),
  };
}

/**
 * Loads `bytes`, compares with the reference, counts the outcome under `key`. `mustReject`: the
 * class can never produce a valid file, so the reference must reject too.
 */
function check(
  key: string,
  bytes: Uint8Array,
  load: (b: Uint8Array) => RefFile,
  ref: (b: Uint8Array) => RefFile,
  mustReject: boolean,
): void {
  const s = stats.get(key) ?? { runs: 0, rejected: 0, accepted: 0 };
  stats.set(key, s);
  s.runs++;
  const want = reference(() => ref(bytes));
  if (mustReject) expect(want, 'the reference accepts a mutation of a must-reject class').toBeNull();
  let got: RefFile | undefined;
  try {
    got = load(bytes);
  } catch (e) {
    if (!isMXNetError(e)) throw e;
    s.rejected++;
    if (want !== null) throw new Error(`false rejection of a valid file: ${(e as Error).message}`);
    return;
  }
  s.accepted++;
  if (want === null)
    throw new Error('silent acceptance: the loader accepted a file the strict reference rejects');
  expect(got).toEqual(want);
}

const listLoader =
  (mode: boolean | 'global') =>
  (b: Uint8Array): RefFile => {
    const l: LoadedList = loadMXNetList(b, { npShape: mode, source: 'fuzz.params' });
    return { arrays: l.arrays.map((a) => toRef(a, true)), names: l.names };
  };
const npyLoader = (b: Uint8Array): RefFile => ({
  arrays: [toRef(loadNpy(b, 'fuzz.npy'), false)],
  names: null,
});
const npyRef = (b: Uint8Array): RefFile => ({ arrays: [refNpy(b)], names: null });
const npzLoader = (b: Uint8Array): RefFile => {
  const l = loadNpz(b, 'fuzz.npz');
  return { arrays: l.arrays.map((a) => toRef(a, false)), names: l.names };
};

// ---- arbitraries -------------------------------------------------------------------------------

const arbShape = (minDims: number) =>
  fc.array(fc.integer({ min: 0, max: 4 }), { minLength: minDims, maxLength: 3 });

const arbArray = (minDims: number, flags = 13): fc.Arbitrary<TestArray> =>
  fc
    .record({
      flag: fc.integer({ min: 0, max: flags - 1 }),
      shape: arbShape(minDims),
      device: fc.constantFrom([1, 0], [1, 0], [2, 1], [3, 0], [5, 15]),
      seed: fc.integer({ min: 0, max: 255 }),
    })
    .map(({ flag, shape, device, seed }) => {
      const n = shape.reduce((a, b) => a * b, 1) * flagSize(flag);
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + seed * 11) & 0xff);
      return { flag, shape, devType: device[0] as number, devId: device[1] as number, bytes };
    });

type ListMode = 'np' | 'legacy' | 'global';
const MODES: Readonly<Record<ListMode, { load: boolean | 'global'; versions: RecordVersion[] }>> = {
  np: { load: true, versions: [3] },
  legacy: { load: false, versions: [0, 1, 2] },
  global: { load: 'global', versions: [0, 1, 2, 3] },
};

/** A valid list file for `mode`: records of random versions, with or without names. */
const arbName = (maxLength: number) =>
  fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e'), minLength: 1, maxLength });

const arbList = (mode: ListMode): fc.Arbitrary<Written> =>
  fc
    .record({
      recs: fc.array(fc.tuple(fc.constantFrom(...MODES[mode].versions), arbArray(0)), {
        minLength: 1,
        maxLength: 4,
      }),
      names: fc.option(fc.uniqueArray(arbName(3), { minLength: 4, maxLength: 4 }), { nil: null }),
    })
    .map(({ recs, names }) => {
      const arrays = recs.map(([v, a]) =>
        // Legacy records cannot hold zero-dim arrays (ndim 0 is "none" there), except V2 under GlobalOn.
        a.shape.length > 0 || v === 3 || (v === 2 && mode === 'global')
          ? a
          : { ...a, shape: [1], bytes: Uint8Array.from({ length: flagSize(a.flag) }, (_, i) => i + 1) },
      );
      return writeList(
        arrays,
        recs.map((r) => r[0]),
        names === null ? null : names.slice(0, recs.length),
      );
    });

const arbNpyVariant = fc.record({
  version: fc.constantFrom(1 as const, 2 as const, 3 as const),
  bigEndian: fc.boolean(),
  fortran: fc.boolean(),
});

const arbNpy = fc.tuple(arbArray(0), arbNpyVariant).map(([a, v]) => ({ a, v, w: writeNpy(a, v) }));

const arbZipVariant = fc.record({ deflate: fc.boolean(), zip64Local: fc.boolean() });

const arbNpz = fc
  .tuple(
    fc.uniqueArray(arbName(4), { minLength: 1, maxLength: 4 }),
    fc.array(fc.tuple(arbArray(0), arbNpyVariant), { minLength: 4, maxLength: 4 }),
    arbZipVariant,
  )
  .map(([names, arrays, v]) => {
    const members = names.map((n, i) => {
      const [a, nv] = arrays[i] as [TestArray, { version: 1 | 2 | 3; bigEndian: boolean; fortran: boolean }];
      return { name: `${n}.npy`, data: writeNpy(a, nv).bytes };
    });
    return { members, v, w: writeZipFile(members, v) };
  });

// ---- mutations ---------------------------------------------------------------------------------

const arbBytes = fc.uint8Array({ minLength: 1, maxLength: 16 });
const arbFlips = fc.array(
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })),
  { minLength: 1, maxLength: 4 },
);
const arbPick = fc.double({ min: 0, max: 0.999999, noNaN: true });
const pick = <T>(xs: readonly T[], at: number): T | undefined => xs[Math.floor(at * xs.length)];

function flipped(b: Uint8Array, flips: [number, number][]): Uint8Array {
  const out = b.slice();
  for (const [at, v] of flips) out[Math.min(out.length - 1, Math.floor(at * out.length))] = v;
  return out;
}
const appended = (b: Uint8Array, extra: Uint8Array) => Uint8Array.from([...b, ...extra]);
const cut = (b: Uint8Array, at: number) => b.subarray(0, Math.floor(at * b.length));

const INTERESTING = [-2, -1, 0, 1, 2, 3, 4, 5, 6, 12, 13, 15, 16, 64, 65, 255, 0x7fffffff, 0xffffffff];
const arbValue = fc.oneof(fc.constantFrom(...INTERESTING), fc.integer({ min: 0, max: 0xffffffff }));

/** Sets a field of kind (one of) `kinds`, picked by `at`, to `v`; null when there is none. */
function edit(w: Written, kinds: string[], at: number, v: number): Uint8Array | null {
  const fs: Field[] = kinds.flatMap((k) => fieldsOf(w, k));
  const f = pick(fs, at);
  return f === undefined ? null : setField(w.bytes, f, v);
}

/** Runs per class in CI; MX_FUZZ_SCALE multiplies them for a longer local run. */
const SCALE = Number(process.env.MX_FUZZ_SCALE ?? 1);
const RUNS = 100;
const run = <T>(arb: fc.Arbitrary<T>, body: (x: T) => void, numRuns = RUNS) =>
  fc.assert(
    fc.property(arb, (x) => {
      body(x);
    }),
    { seed: SEED, numRuns: Math.round(numRuns * SCALE) },
  );

describe.each(Object.keys(MODES) as ListMode[])('MXNet list files (%s records)', (mode) => {
  const load = listLoader(MODES[mode].load);
  const ref = (b: Uint8Array) => refMXNetList(b, MODES[mode].load);
  const key = (cls: string) => `params/${mode}/${cls}`;

  it('valid files load exactly', () =>
    run(arbList(mode), (w) => check(key('valid'), w.bytes, load, ref, false)));
  it('truncation at any offset is rejected', () =>
    run(fc.tuple(arbList(mode), arbPick), ([w, at]) =>
      check(key('truncation'), cut(w.bytes, at), load, ref, true),
    ));
  it('trailing bytes are rejected', () =>
    run(fc.tuple(arbList(mode), arbBytes), ([w, x]) =>
      check(key('trailing bytes'), appended(w.bytes, x), load, ref, true),
    ));
  it('edited shapes (ndim, dims)', () =>
    run(fc.tuple(arbList(mode), arbPick, arbValue), ([w, at, v]) => {
      const b = edit(w, ['ndim', 'dim'], at, v);
      if (b !== null) check(key('shape edits'), b, load, ref, false);
    }));
  it('edited array and name counts', () =>
    run(fc.tuple(arbList(mode), arbPick, arbValue), ([w, at, v]) => {
      const f = pick([...fieldsOf(w, 'count'), ...fieldsOf(w, 'name count')], at) as Field;
      if (getField(w.bytes, f) !== v) check(key('count edits'), setField(w.bytes, f, v), load, ref, false);
    }));
  it('a name count damaged to 0 is rejected (the names become trailing bytes)', () =>
    run(arbList(mode), (w) => {
      const k = fieldsOf(w, 'name count')[0] as Field;
      if (getField(w.bytes, k) > 0) check(key('name count to 0'), setField(w.bytes, k, 0), load, ref, true);
    }));
  it('duplicate names are rejected', () =>
    run(fc.tuple(arbList(mode), arbPick), ([w, at]) => {
      const names = fieldsOf(w, 'name');
      const a = pick(names, at);
      const b = names.find((n) => n !== a && n.size === a?.size);
      if (a === undefined || b === undefined) return;
      const out = w.bytes.slice();
      out.set(w.bytes.subarray(a.at, a.at + a.size), b.at);
      check(key('duplicate names'), out, load, ref, true);
    }));
  it('edited dtype flags', () =>
    run(fc.tuple(arbList(mode), arbPick, fc.integer({ min: -2, max: 16 })), ([w, at, v]) => {
      const b = edit(w, ['dtype flag'], at, v);
      if (b !== null) check(key('dtype flag edits'), b, load, ref, false);
    }));
  it('edited device types and ids', () =>
    run(fc.tuple(arbList(mode), arbPick, arbValue), ([w, at, v]) => {
      const b = edit(w, ['dev_type', 'dev_id'], at, v);
      if (b !== null) check(key('device edits'), b, load, ref, false);
    }));
  it('edited record magics and the reserved field', () =>
    run(
      fc.tuple(
        arbList(mode),
        arbPick,
        fc.oneof(fc.constantFrom(0xf993fac8, 0xf993fac9, 0xf993faca, 0, 1, 2), arbValue),
      ),
      ([w, at, v]) => {
        const b = edit(w, ['record magic', 'reserved', 'stype'], at, v);
        if (b !== null) check(key('version/reserved edits'), b, load, ref, false);
      },
    ));
  it('random byte flips', () =>
    run(
      fc.tuple(arbList(mode), arbFlips),
      ([w, flips]) => check(key('byte flips'), flipped(w.bytes, flips), load, ref, false),
      250,
    ));
});

describe('.npy files (versions 1.0-3.0, big-endian, Fortran order)', () => {
  const key = (cls: string) => `npy/${cls}`;
  it('valid files load exactly', () =>
    run(arbNpy, ({ w }) => check(key('valid'), w.bytes, npyLoader, npyRef, false)));
  it('truncation at any offset is rejected', () =>
    run(fc.tuple(arbNpy, arbPick), ([{ w }, at]) =>
      check(key('truncation'), cut(w.bytes, at), npyLoader, npyRef, true),
    ));
  it('trailing bytes are rejected', () =>
    run(fc.tuple(arbNpy, arbBytes), ([{ w }, x]) =>
      check(key('trailing bytes'), appended(w.bytes, x), npyLoader, npyRef, true),
    ));
  it('edited shapes (the data stays)', () =>
    run(fc.tuple(arbNpy, arbShape(0)), ([{ a, v }, shape]) => {
      const text = `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
      check(key('shape edits'), writeNpy(a, v, text).bytes, npyLoader, npyRef, false);
    }));
  it('edited versions', () =>
    run(
      fc.tuple(arbNpy, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 2 })),
      ([{ w }, major, minor]) => {
        const f = fieldsOf(w, 'major')[0] as Field;
        const g = fieldsOf(w, 'minor')[0] as Field;
        check(
          key('version edits'),
          setField(setField(w.bytes, f, major), g, minor),
          npyLoader,
          npyRef,
          false,
        );
      },
    ));
  it('edited header characters', () =>
    run(
      fc.tuple(
        arbNpy,
        arbPick,
        fc.oneof(fc.integer({ min: 32, max: 126 }), fc.integer({ min: 0, max: 255 })),
      ),
      ([{ w }, at, c]) => {
        const h = fieldsOf(w, 'header')[0] as Field;
        const out = w.bytes.slice();
        out[h.at + Math.floor(at * h.size)] = c;
        check(key('header edits'), out, npyLoader, npyRef, false);
      },
      250,
    ));
  it('random byte flips', () =>
    run(
      fc.tuple(arbNpy, arbFlips),
      ([{ w }, flips]) => check(key('byte flips'), flipped(w.bytes, flips), npyLoader, npyRef, false),
      250,
    ));
});

describe('.npz files (stored, deflated, ZIP64 local headers)', () => {
  const key = (cls: string) => `npz/${cls}`;
  /** The extent of central directory entry `i`. */
  const centralEntries = (w: Written): [number, number][] => {
    const starts = fieldsOf(w, 'central sig').map((f) => f.at);
    const end = (fieldsOf(w, 'eocd sig')[0] as Field).at;
    return starts.map((s, i) => [s, starts[i + 1] ?? end]);
  };
  /** `w` with its central directory replaced by `entries` (EOCD counts and size updated). */
  const withDirectory = (w: Written, entries: Uint8Array[]): Uint8Array => {
    const cdAt = centralEntries(w)[0]?.[0] ?? (fieldsOf(w, 'eocd sig')[0] as Field).at;
    const eocd = w.bytes.slice((fieldsOf(w, 'eocd sig')[0] as Field).at);
    const cd = Uint8Array.from(entries.flatMap((e) => [...e]));
    const v = new DataView(eocd.buffer);
    v.setUint16(8, entries.length, true);
    v.setUint16(10, entries.length, true);
    v.setUint32(12, cd.length, true);
    return Uint8Array.from([...w.bytes.subarray(0, cdAt), ...cd, ...eocd]);
  };

  it('valid files load exactly', () =>
    run(arbNpz, ({ w }) => check(key('valid'), w.bytes, npzLoader, refNpz, false)));
  it('truncation at any offset is rejected', () =>
    run(fc.tuple(arbNpz, arbPick), ([{ w }, at]) =>
      check(key('truncation'), cut(w.bytes, at), npzLoader, refNpz, true),
    ));
  it('trailing bytes are rejected', () =>
    run(fc.tuple(arbNpz, arbBytes), ([{ w }, x]) =>
      check(key('trailing bytes'), appended(w.bytes, x), npzLoader, refNpz, true),
    ));
  it('a directory entry dropped (counts kept consistent) is rejected', () =>
    run(fc.tuple(arbNpz, arbPick), ([{ w }, at]) => {
      const es = centralEntries(w).map(([s, e]) => w.bytes.slice(s, e));
      es.splice(Math.floor(at * es.length), 1);
      check(key('dropped directory entry'), withDirectory(w, es), npzLoader, refNpz, true);
    }));
  it('a directory entry duplicated (counts kept consistent) is rejected', () =>
    run(fc.tuple(arbNpz, arbPick), ([{ w }, at]) => {
      const es = centralEntries(w).map(([s, e]) => w.bytes.slice(s, e));
      const i = Math.floor(at * es.length);
      es.splice(i, 0, es[i] as (typeof es)[number]);
      check(key('duplicated directory entry'), withDirectory(w, es), npzLoader, refNpz, true);
    }));
  it('edited end-of-directory counts are rejected', () =>
    run(fc.tuple(arbNpz, arbPick, arbValue), ([{ w }, at, v]) => {
      const f = pick([...fieldsOf(w, 'eocd entries on disk'), ...fieldsOf(w, 'eocd entries')], at) as Field;
      if ((v & 0xffff) !== getField(w.bytes, f))
        check(key('entry count edits'), setField(w.bytes, f, v), npzLoader, refNpz, true);
    }));
  it('edited CRCs, sizes and offsets are rejected', () =>
    run(fc.tuple(arbNpz, arbPick, arbPick, arbValue), ([{ w }, at, which, v]) => {
      const kinds = [
        'central crc',
        'local crc',
        'central csize',
        'central usize',
        'local csize',
        'local usize',
        'central offset',
      ];
      const kind = pick(kinds, which) as string;
      const f = pick(fieldsOf(w, kind), at) as Field;
      if ((v >>> 0) % 2 ** (8 * f.size) === getField(w.bytes, f)) return;
      // Edit the directory and the local header alike, half the time, so only the data can disagree.
      let b = setField(w.bytes, f, v);
      const twin = kind.startsWith('central')
        ? kind.replace('central', 'local')
        : kind.replace('local', 'central');
      const g = fieldsOf(w, twin)[fieldsOf(w, kind).indexOf(f)];
      if (at < 0.5 && g !== undefined && g.size === f.size) b = setField(b, g, v);
      check(key('crc/size/offset edits'), b, npzLoader, refNpz, true);
    }));
  it('members that are valid zip data but damaged .npy files', () =>
    run(fc.tuple(arbNpz, arbPick, arbFlips), ([{ members, v }, at, flips]) => {
      const i = Math.floor(at * members.length);
      const changed = members.map((m, j) => (j === i ? { name: m.name, data: flipped(m.data, flips) } : m));
      check(key('damaged member content'), writeZipFile(changed, v).bytes, npzLoader, refNpz, false);
    }));
  it('random byte flips', () =>
    run(
      fc.tuple(arbNpz, arbFlips),
      ([{ w }, flips]) => check(key('byte flips'), flipped(w.bytes, flips), npzLoader, refNpz, false),
      250,
    ));
});

describe('reference sanity', () => {
  it('the dtype table matches MXNet flags', () => {
    expect(FLAG_DTYPES.map((d) => d[0])).toEqual([
      'float32',
      'float64',
      'float16',
      'uint8',
      'int32',
      'int8',
      'int64',
      'bool',
      'int16',
      'uint16',
      'uint32',
      'uint64',
      'bfloat16',
    ]);
  });
});
