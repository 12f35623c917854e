/**
 * Test-only harness for sparse kernels at the kernel level (no NDArray layer, no engine): blocks
 * carved from the backend's allocator, sparse inputs built from golden parts (int64 or int32
 * aux), `SparseOutput`s that allocate like the real store, and `run(op, params, inputs, outputs)`
 * calling the registered kernel's `computeEx` after checking its `computeExStorage`. Not exported
 * from the package.
 */
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
type Value = number | string;

/** Golden numbers ('nan' for NaN) as numbers. */
export const num = (v: Value): number => (v === 'nan' ? Number.NaN : (v as number));

export function createSparseHarness() {
  const backend = new CpuWasmBackend({ initialPages: 16, workers: 0 });
  const registry = createOpRegistry();
  backend.install(registry);
  const alloc = backend.allocator(cpu());
  const ctx = { isTrain: false, needGrad: false, ctx: cpu(), requested: [] };

  const blob = (shape: Shape, dtype: DTypeName, values?: ArrayLike<Value>): Blob => {
    const size = shapeSize(shape);
    const ptr = alloc.alloc(Math.max(size * DType[dtype].bytes, 8)) as number;
    const b = { ptr: size === 0 ? null : ptr, byteOffset: 0, shape: [...shape], dtype, size };
    if (values !== undefined && size > 0) {
      const info = DType[dtype];
      const nums = Array.from(values, num);
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
  ): SparseOutput<number> & { readonly allocated: boolean } => {
    let state: { storageShape: Shape; data: Blob; aux: Blob[] } | undefined;
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
        state = {
          storageShape,
          data: blob(storageShape, dtype),
          aux: auxShapes.map((s) => blob(s, auxType)),
        };
      },
      get allocated() {
        return state !== undefined;
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
    p: { data: Value[]; indices: number[]; indptr: number[] },
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
    p: { data: Value[]; indices: number[] },
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

  return { backend, registry, blob, read, output, csr, rsp, run, served };
}
