/**
 * The driver of the wasm radix sort (radix-module.ts): sorts contiguous lanes of float32, int32,
 * float64 or int64 values in place order (the last axis, or the flattened array), writing sorted
 * values and/or int32 source indices converted to the index dtype, and the distinct sorted values
 * of one lane (unique). Scratch (keys, indices, their temporaries, the histograms) comes from the
 * shared memory's allocator and is freed before returning; addresses, not typed views, cross the
 * calls, so a memory growth during the allocation invalidates nothing.
 */
import { MXNetError } from '@mx/base';
import type { TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { buildRadixModule, DIGIT_BITS, type RadixTypes, radixModuleKey } from './radix-module.js';

type Blob = TBlob<number>;
type KeyDType = RadixTypes['dtype'];

/** The dtypes whose values the radix module sorts. */
export const RADIX_DTYPES: readonly string[] = ['float32', 'int32', 'float64', 'int64'];

/** Index dtypes the module writes, with their export names. */
const IDX_OUT: Readonly<Record<string, string>> = {
  int32: 'idxOutI32',
  int64: 'idxOutI64',
  float32: 'idxOutF32',
  float64: 'idxOutF64',
};

/** Whether the radix path serves values of `dtype` with indices of `indexDType` (if any). */
export function radixServes(dtype: string, indexDType?: string): boolean {
  return RADIX_DTYPES.includes(dtype) && (indexDType === undefined || indexDType in IDX_OUT);
}

type Fn = (...args: number[]) => number;

/** Scratch of `bytes` from the memory (freed by the caller with `free`). */
function scratch(rt: CpuWasmRuntime, bytes: number, op: string): number {
  const p = rt.memory.allocator.alloc(Math.max(bytes, 16));
  if (p === null)
    throw new MXNetError(`out of memory allocating ${bytes} bytes of sort scratch`, {
      op,
      device: 'cpu-wasm',
    });
  return p;
}

/** What one sorted lane set writes. */
export interface RadixSortRequest {
  /** The source: `lanes` contiguous lanes of `n` values. */
  readonly x: Blob;
  readonly lanes: number;
  readonly n: number;
  readonly descending: boolean;
  /** Sorted values (x's dtype, x's layout), or none. */
  readonly values?: Blob;
  /** Source positions within each lane, in the blob's dtype (int32/int64/float32/float64), or none. */
  readonly indices?: Blob;
  /** -0 sorts with +0 (ties); otherwise -0 sorts first. */
  readonly canonicalZero?: boolean;
}

/** A sorting session over one key dtype: scratch for lanes of `n`, reused lane after lane. */
class Session {
  readonly es: number;
  readonly fns: Record<string, Fn>;
  readonly keys: number;
  readonly tmpK: number;
  readonly idx: number;
  readonly tmpI: number;
  readonly hist: number;
  readonly #sizes: [number, number][];
  readonly #rt: CpuWasmRuntime;

  constructor(rt: CpuWasmRuntime, dtype: KeyDType, n: number, withIdx: boolean, op: string) {
    this.#rt = rt;
    this.es = dtype === 'float64' || dtype === 'int64' ? 8 : 4;
    const k = rt.kernel(radixModuleKey({ dtype }), () => buildRadixModule({ dtype }, rt.memoryImport()));
    this.fns = k.exports as unknown as Record<string, Fn>;
    this.#sizes = [];
    const take = (bytes: number) => {
      const p = scratch(rt, bytes, op);
      this.#sizes.push([p, Math.max(bytes, 16)]);
      return p;
    };
    try {
      this.keys = take(n * this.es);
      this.tmpK = take(n * this.es);
      this.idx = withIdx ? take(n * 4) : 0;
      this.tmpI = withIdx ? take(n * 4) : 0;
      this.hist = take(Math.ceil((this.es * 8) / DIGIT_BITS) * (1 << DIGIT_BITS) * 4);
    } catch (e) {
      this.free();
      throw e;
    }
  }

  /** Sort `n` values at `src` into keys; returns the addresses holding sorted keys and indices. */
  sortLane(
    src: number,
    n: number,
    desc: boolean,
    canon: boolean,
    withIdx: boolean,
  ): { k: number; i: number } {
    const f = this.fns;
    (f.toKeys as Fn)(src, this.keys, n, canon ? 1 : 0, desc ? 1 : 0);
    if (withIdx) (f.iota as Fn)(this.idx, n);
    const parity = (f.sort as Fn)(this.keys, this.tmpK, this.idx, this.tmpI, n, this.hist, withIdx ? 1 : 0);
    return parity === 0 ? { k: this.keys, i: this.idx } : { k: this.tmpK, i: this.tmpI };
  }

  free(): void {
    for (const [p, b] of this.#sizes) this.#rt.memory.allocator.free(p, b);
    this.#sizes.length = 0;
  }
}

/** Sort lanes as `r` asks (req 'write' outputs; the caller checked dtypes with `radixServes`). */
export function radixSort(rt: CpuWasmRuntime, op: string, r: RadixSortRequest): void {
  if (r.lanes === 0 || r.n === 0) return;
  const withIdx = r.indices !== undefined;
  const s = new Session(rt, r.x.dtype as KeyDType, r.n, withIdx, op);
  try {
    const src0 = rt.address(r.x);
    const val0 = r.values === undefined ? 0 : rt.address(r.values);
    const idx0 = r.indices === undefined ? 0 : rt.address(r.indices);
    const ib = r.indices === undefined ? 0 : rt.itemSize(r.indices.dtype);
    const idxOut = r.indices === undefined ? undefined : (s.fns[IDX_OUT[r.indices.dtype] as string] as Fn);
    for (let l = 0; l < r.lanes; l++) {
      const { k, i } = s.sortLane(
        src0 + l * r.n * s.es,
        r.n,
        r.descending,
        r.canonicalZero === true,
        withIdx,
      );
      if (r.values !== undefined) (s.fns.fromKeys as Fn)(k, val0 + l * r.n * s.es, r.n, r.descending ? 1 : 0);
      if (idxOut !== undefined) idxOut(i, idx0 + l * r.n * ib, r.n);
    }
  } finally {
    s.free();
  }
}

/** The result of `radixUnique`: host copies of what the np outputs need. */
export interface UniqueParts {
  /** Distinct values count. */
  readonly count: number;
  /** Writes the distinct values (x's dtype) at `dst`. */
  writeValues(dst: number): void;
  /** First-occurrence index of each distinct value (when indices were asked). */
  readonly first?: Float64Array;
  /** For each input position, its distinct value's position (when asked). */
  readonly inverse?: Float64Array;
  /** Occurrences of each distinct value (when asked). */
  readonly counts?: Float64Array;
  /** Free the scratch. */
  free(): void;
}

/**
 * The distinct values of `x` (flattened) in ascending order, NaNs as one (NumPy 1.24's
 * `equal_nan=True`), ±0 as one. With `extras`, the first index, inverse and counts.
 */
export function radixUnique(rt: CpuWasmRuntime, op: string, x: Blob, extras: boolean): UniqueParts {
  const n = x.size;
  const s = new Session(rt, x.dtype as KeyDType, n, extras, op);
  try {
    const { k, i } = s.sortLane(rt.address(x), n, false, true, extras);
    if (!extras) {
      const count = (s.fns.compact as Fn)(k, n, k);
      return {
        count,
        writeValues: (dst) => (s.fns.fromKeys as Fn)(k, dst, count, 0),
        free: () => s.free(),
      };
    }
    const buf = rt.memory.buffer;
    const keys = s.es === 8 ? new BigUint64Array(buf, k, n) : new Uint32Array(buf, k, n);
    const idx = new Int32Array(buf, i, n);
    const inverse = new Float64Array(n);
    const firstList: number[] = [];
    const countList: number[] = [];
    let g = -1;
    for (let j = 0; j < n; j++) {
      if (j === 0 || keys[j] !== keys[j - 1]) {
        g++;
        firstList.push(idx[j] as number);
        countList.push(0);
      }
      countList[g] = (countList[g] as number) + 1;
      inverse[idx[j] as number] = g;
    }
    const count = (s.fns.compact as Fn)(k, n, k);
    return {
      count,
      writeValues: (dst) => (s.fns.fromKeys as Fn)(k, dst, count, 0),
      first: Float64Array.from(firstList),
      inverse,
      counts: Float64Array.from(countList),
      free: () => s.free(),
    };
  } catch (e) {
    s.free();
    throw e;
  }
}
