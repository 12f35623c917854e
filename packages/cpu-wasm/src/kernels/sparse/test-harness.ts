/**
 * Test-only harness for sparse kernels at the kernel level (no NDArray layer, no engine): blocks
 * carved from the backend's allocator, sparse inputs built from golden parts (int64 or int32
 * aux), `SparseOutput`s that allocate like the real store, and `run(op, params, inputs, outputs)`
 * calling the registered kernel's `computeEx` after checking its `computeExStorage`. Every
 * sparse kernel test in this folder builds its blocks here, so the few knobs they differ in are
 * options (memory size, training flag, poisoned fresh blocks, single-alloc outputs) rather than
 * copies; `loadGolden` reads the generators' JSON from src/__golden__/. Not exported from the
 * package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpu, DType, type DTypeName, type Shape, shapeSize } from '@mx/base';
import {
  createOpRegistry,
  isSparseBlob,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type SparseOutput,
  type SparseStorageType,
  type StorageType,
  type TBlob,
} from '@mx/ops';
import { CpuWasmBackend } from '../../backend.js';

export type Blob = TBlob<number>;
/** A golden number: JSON has no NaN or ∞, so the generators write those as strings. */
export type Value = number | string;

/** Golden numbers as numbers: the generators spell NaN and ±∞ as strings ('nan', 'NaN', 'Infinity'). */
export const num = (v: Value): number => (typeof v === 'number' ? v : Number(v));

/** What the sparse kernel tests differ in; every field defaults to the plain case. */
export interface SparseHarnessOptions {
  /** Initial wasm memory pages (16). */
  readonly initialPages?: number;
  /** The op context's `isTrain` (false). */
  readonly isTrain?: boolean;
  /**
   * Fill blobs made without values with NaN (0 for bigint dtypes, and integer dtypes store NaN
   * as 0), so elements a kernel never wrote show up (false: left as the allocator gives them).
   */
  readonly poisonFresh?: boolean;
  /** Outputs throw on a second `alloc` (false: they reallocate, as the real store does). */
  readonly allocOnce?: boolean;
}

/** A `SparseOutput` over harness blobs, with what it allocated. */
export type HarnessOutput = SparseOutput<number> & {
  /** Whether `alloc` was called. */
  readonly allocated: boolean;
  /** How many times `alloc` was called. */
  readonly allocs: number;
  /** Blocks held by the latest `alloc` (data + aux), 0 before any. */
  readonly blocks: number;
};

/** Parse `file` (e.g. 'sparse-dot.json') from this package's golden directory, typed as the caller says. */
export function loadGolden<T>(file: string): T {
  const url = new URL(`../../__golden__/${file}`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as T;
}

export function createSparseHarness(options: SparseHarnessOptions = {}) {
  const backend = new CpuWasmBackend({ initialPages: options.initialPages ?? 16, workers: 0 });
  const registry = createOpRegistry();
  backend.install(registry);
  const alloc = backend.runtime.memory.allocator; // what backend.allocator(cpu()) hands out
  const ctx = { isTrain: options.isTrain ?? false, needGrad: false, ctx: cpu(), requested: [] };

  const blob = (shape: Shape, dtype: DTypeName, values?: ArrayLike<Value>): Blob => {
    const size = shapeSize(shape);
    const ptr = alloc.alloc(Math.max(size * DType[dtype].bytes, 8)) as number;
    const b = { ptr: size === 0 ? null : ptr, byteOffset: 0, shape: [...shape], dtype, size };
    const info = DType[dtype];
    const fill = options.poisonFresh ? new Array<number>(size).fill(info.bigint ? 0 : Number.NaN) : undefined;
    const v = values ?? fill;
    if (v !== undefined && size > 0) {
      const nums = Array.from(v, num);
      backend.write(
        b,
        info.bigint ? BigInt64Array.from(nums, (v) => BigInt(v)) : new info.storage(nums as never),
      );
    }
    return b;
  };

  const read = (b: Blob): number[] =>
    b.size === 0 ? [] : Array.from(backend.readSync(b) as ArrayLike<number | bigint>, Number);

  const output = (
    stype: SparseStorageType,
    shape: Shape,
    dtype: DTypeName,
    auxType: DTypeName = 'int64',
  ): HarnessOutput => {
    let state: { storageShape: Shape; data: Blob; aux: Blob[] } | undefined;
    let allocs = 0;
    const get = () => {
      if (state === undefined) throw new Error('output read before alloc');
      return state;
    };
    return {
      stype,
      shape,
      dtype,
      auxTypes: stype === 'csr' ? [auxType, auxType] : [auxType],
      alloc(storageShape, auxShapes) {
        if (options.allocOnce && state !== undefined) throw new Error('allocated twice');
        allocs++;
        state = {
          storageShape,
          data: blob(storageShape, dtype),
          aux: auxShapes.map((s) => blob(s, auxType)),
        };
      },
      get allocated() {
        return state !== undefined;
      },
      get allocs() {
        return allocs;
      },
      get blocks() {
        return state === undefined ? 0 : 1 + state.aux.length;
      },
      get storageShape() {
        return get().storageShape;
      },
      get data() {
        return get().data;
      },
      get aux() {
        return get().aux;
      },
    };
  };

  const csr = (
    shape: Shape,
    dtype: DTypeName,
    p: { data: ArrayLike<Value>; indices: readonly number[]; indptr: readonly number[] },
    auxType: DTypeName = 'int64',
  ): SparseBlob<number> => {
    const aux = [blob([p.indptr.length], auxType, p.indptr), blob([p.indices.length], auxType, p.indices)];
    return {
      stype: 'csr',
      shape,
      dtype,
      storageShape: [p.data.length],
      data: blob([p.data.length], dtype, p.data),
      aux,
      auxTypes: [auxType, auxType],
    };
  };

  const rsp = (
    shape: Shape,
    dtype: DTypeName,
    p: { data: ArrayLike<Value>; indices: readonly number[] },
    auxType: DTypeName = 'int64',
  ): SparseBlob<number> => {
    const storageShape = [p.indices.length, ...shape.slice(1)];
    return {
      stype: 'row_sparse',
      shape,
      dtype,
      storageShape,
      data: blob(storageShape, dtype, p.data),
      aux: [blob([p.indices.length], auxType, p.indices)],
      auxTypes: [auxType],
    };
  };

  const stypeOf = (x: Blob | SparseBlob<number> | SparseOutput<number>): StorageType =>
    isSparseBlob(x) ? x.stype : 'default';

  /** Run `op`'s computeEx; throws if its computeExStorage refuses the storage types. */
  const run = (
    opName: string,
    params: Record<string, unknown>,
    inputs: readonly (Blob | SparseBlob<number>)[],
    outputs: readonly (Blob | SparseOutput<number>)[],
    req: OpReqType = OpReq.write,
  ): void => {
    const op = registry.get(opName);
    const kernel = registry.kernel(op, backend.name);
    const attrs = op.parseParams(params);
    if (kernel?.computeEx === undefined) throw new Error(`${opName} has no computeEx`);
    if (kernel.computeExStorage?.(attrs, inputs.map(stypeOf), outputs.map(stypeOf)) === false)
      throw new Error(`${opName}'s computeExStorage refuses these storage types`);
    kernel.computeEx(
      attrs,
      ctx,
      inputs,
      outputs.map(() => req),
      outputs,
    );
  };

  /** The registered kernel of `opName` on this backend; throws if it has no computeEx. */
  const kernelOf = (opName: string) => {
    const k = registry.kernel(registry.get(opName), backend.name);
    if (k?.computeEx === undefined) throw new Error(`${opName} has no computeEx`);
    return k as Required<Pick<typeof k, 'computeEx' | 'compute'>> & typeof k;
  };

  /** Whether `op`'s kernel serves these storage types with computeEx. */
  const served = (
    opName: string,
    params: Record<string, unknown>,
    inSt: StorageType[],
    outSt: StorageType[],
  ): boolean => {
    const op = registry.get(opName);
    const kernel = registry.kernel(op, backend.name);
    if (kernel?.computeEx === undefined) return false;
    return kernel.computeExStorage?.(op.parseParams(params), inSt, outSt) ?? true;
  };

  return { backend, registry, alloc, ctx, blob, read, output, csr, rsp, run, served, kernelOf };
}
