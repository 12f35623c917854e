/**
 * Test harness: run one registered op on cpu-wasm without the NDArray layer or the engine — parse
 * params, infer shapes and dtypes, allocate blobs in the wasm memory, call the kernel, read the
 * outputs back. Kernel-family tests use it so they exercise exactly what the NDArray layer calls.
 * Not exported from the package.
 */
import { cpu, DType, type DTypeName, MXNetError, type Shape, type StorageArray, shapeSize } from '@mx/base';
import { createOpRegistry, type OpRegistry, OpReq, type RequestedResource, type TBlob } from '@mx/ops';
import { CpuWasmBackend } from '../backend.js';

export interface HostArray {
  readonly shape: Shape;
  readonly dtype: DTypeName;
  /** Row-major values; numbers are converted to bigint for int64/uint64. */
  readonly data: ArrayLike<number | bigint> | StorageArray;
}

export interface OpResult {
  readonly shape: number[];
  readonly dtype: DTypeName;
  readonly data: StorageArray;
}

export interface OpHarness {
  readonly backend: CpuWasmBackend;
  readonly registry: OpRegistry;
  /** Run `op` on `inputs`; `out` optionally gives existing outputs to write/add into with `req`. */
  run(
    op: string,
    inputs: readonly HostArray[],
    params?: Record<string, unknown>,
    options?: {
      readonly req?: 'write' | 'add';
      readonly out?: readonly HostArray[];
      readonly isTrain?: boolean;
      /** Resources handed to the kernel as `ctx.requested` (e.g. a ParallelRandomResource for samplers). */
      readonly requested?: readonly RequestedResource[];
      /** Append every input's value after the call to the result (ops that mutate inputs). */
      readonly returnInputs?: boolean;
    },
  ): OpResult[];
}

function toStorage(a: HostArray): StorageArray {
  const info = DType[a.dtype];
  const n = shapeSize(a.shape);
  if (a.data.length !== n) throw new Error(`data has ${a.data.length} values for shape (${a.shape})`);
  const out = new info.storage(n);
  for (let i = 0; i < n; i++) {
    const v = a.data[i] as number | bigint;
    (out as unknown as (number | bigint)[])[i] = info.bigint ? BigInt(v) : Number(v);
  }
  return out;
}

export function createOpHarness(): OpHarness {
  const backend = new CpuWasmBackend({ initialPages: 64 });
  const registry = createOpRegistry();
  backend.install(registry);
  const alloc = backend.allocator(cpu());
  const blob = (shape: Shape, dtype: DTypeName): TBlob<number> => {
    const size = shapeSize(shape);
    const bytes = Math.max(size * DType[dtype].bytes, 1);
    const ptr = alloc.alloc(bytes);
    if (ptr === null) throw new Error('harness out of memory');
    return { ptr: size === 0 ? null : ptr, byteOffset: 0, shape: [...shape], dtype, size };
  };
  return {
    backend,
    registry,
    run(name, inputs, params = {}, options = {}) {
      const op = registry.get(name);
      const attrs = op.parseParams(params);
      const nIn = op.numInputs(attrs);
      if (inputs.length !== nIn) {
        throw new MXNetError(`expected ${nIn} inputs, got ${inputs.length}`, { op: name });
      }
      const nOut = op.numOutputs(attrs);
      const inShapes = inputs.map((a) => [...a.shape] as Shape | undefined);
      const outShapes: (Shape | undefined)[] = new Array(nOut).fill(undefined);
      if (!op.inferShape(attrs, inShapes, outShapes)) throw new Error(`${name}: shape inference incomplete`);
      const inTypes = inputs.map((a) => a.dtype as DTypeName | undefined);
      const outTypes: (DTypeName | undefined)[] = new Array(nOut).fill(undefined);
      if (!op.inferType(attrs, inTypes, outTypes)) throw new Error(`${name}: type inference incomplete`);
      const kernel = registry.kernel(op, backend.name);
      if (!kernel?.compute) throw new Error(`${name}: no cpu-wasm kernel`);
      const inBlobs = inputs.map((a) => {
        const b = blob(a.shape, a.dtype);
        backend.write(b, toStorage(a));
        return b;
      });
      const outBlobs = outShapes.map((s, i) => blob(s as Shape, outTypes[i] as DTypeName));
      options.out?.forEach((o, i) => {
        backend.write(outBlobs[i] as TBlob<number>, toStorage(o));
      });
      const req = outBlobs.map(() => (options.req === 'add' ? OpReq.add : OpReq.write));
      kernel.compute(
        attrs,
        {
          isTrain: options.isTrain ?? false,
          needGrad: false,
          ctx: cpu(),
          requested: options.requested ?? [],
        },
        inBlobs,
        req,
        outBlobs,
      );
      const back = options.returnInputs ? [...outBlobs, ...inBlobs] : outBlobs;
      return back.map((b) => ({ shape: [...b.shape], dtype: b.dtype, data: backend.readSync(b) }));
    },
  };
}
