/**
 * Quantize and dequantize as engine operations on arrays (MXNet pushes `QuantizeCPU`/`QuantizeGPU`
 * engine functions that read the gradient and write the compressed array and the residual).
 *
 * The runtime's public way to push work that reads and writes arrays is an operator, so the store
 * defines two internal ops in its runtime's registry the first time it compresses:
 * `_kvstore_quantize(data, residual) → compressed` (the residual is a mutated input, as optimizer
 * states are) and `_kvstore_dequantize(compressed) → data`. Their kernels run the host functions of
 * quantize.ts on any backend through the backend contract: inputs are read (synchronously where the
 * backend can, else asynchronously inside an async kernel) and results written back with
 * `backend.write`. The engine orders them after the gradient's writers and before the merge, so a
 * push returns at once and overlaps with compute. A real device kernel can replace a host kernel
 * by registering the same op name for its backend.
 */
import { MXNetError, type Shape, type StorageArray, shapeSize } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { type Attrs, type Backend, type Kernel, OpReq, P } from '@mx/ops';
import { hostKernel } from '../host-kernel.js';
import type { GradientCompression } from './params.js';
import { type CompressionType, compressedSize, dequantize, quantize } from './quantize.js';

export const QUANTIZE_OP = '_kvstore_quantize';
export const DEQUANTIZE_OP = '_kvstore_dequantize';

interface CompressionAttrs extends Attrs {
  readonly type: CompressionType;
  readonly threshold: number;
}
interface DequantizeAttrs extends CompressionAttrs {
  readonly shape: Shape;
}

const TYPE_DOC = "Compression type: '2bit' (16 values per float32 word) or '1bit' (32 values per word).";

function float32Only(op: string, inTypes: (string | undefined)[], outTypes: (string | undefined)[]): boolean {
  for (const t of [...inTypes, ...outTypes]) {
    if (t !== undefined && t !== 'float32') {
      throw new MXNetError(`gradient compression works on float32 arrays, got ${t}`, {
        op,
        dtypes: inTypes.map((x) => x ?? 'unknown'),
        hint: 'compress float32 gradients only (cast with astype first)',
      });
    }
  }
  inTypes.fill('float32');
  outTypes.fill('float32');
  return true;
}

/** Define the two ops in `rt`'s registry (once). */
function defineOps(rt: Runtime): void {
  const registry = rt.registry;
  if (!registry.has(QUANTIZE_OP)) {
    registry.define({
      name: QUANTIZE_OP,
      doc: "MXNet's gradient quantization with residual (kvstore internal): residual += data, then the packed form",
      params: {
        type: P.enum(['2bit', '1bit'] as const, { doc: TYPE_DOC }),
        threshold: P.float({ default: 0.5, doc: 'Quantization threshold.' }),
      },
      numInputs: 2,
      listInputNames: () => ['data', 'residual'],
      mutateInputs: () => [1],
      inferShape: (attrs, ins, outs) => {
        const [data, residual] = ins;
        if (data === undefined) return false;
        if (residual !== undefined && shapeSize(residual) !== shapeSize(data)) {
          throw new MXNetError(`residual has ${shapeSize(residual)} values, data ${shapeSize(data)}`, {
            op: QUANTIZE_OP,
            shapes: [data, residual],
          });
        }
        ins[1] = residual ?? data;
        outs[0] = [compressedSize(shapeSize(data), attrs.type)];
        return true;
      },
      inferType: (_a, inT, outT) => float32Only(QUANTIZE_OP, inT, outT),
    });
  }
  if (!registry.has(DEQUANTIZE_OP)) {
    registry.define({
      name: DEQUANTIZE_OP,
      doc: "MXNet's gradient dequantization (kvstore internal): the values of a packed array",
      params: {
        type: P.enum(['2bit', '1bit'] as const, { doc: TYPE_DOC }),
        threshold: P.float({ default: 0.5, doc: 'Quantization threshold.' }),
        shape: P.shape({ doc: 'Shape of the dequantized array.' }),
      },
      numInputs: 1,
      listInputNames: () => ['data'],
      inferShape: (attrs, ins, outs) => {
        const packed = ins[0];
        if (packed === undefined) return false;
        const want = compressedSize(shapeSize(attrs.shape), attrs.type);
        if (shapeSize(packed) !== want) {
          throw new MXNetError(
            `${shapeSize(attrs.shape)} values need ${want} packed words, got ${shapeSize(packed)}`,
            {
              op: DEQUANTIZE_OP,
              shapes: [packed],
            },
          );
        }
        outs[0] = attrs.shape;
        return true;
      },
      inferType: (_a, inT, outT) => float32Only(DEQUANTIZE_OP, inT, outT),
    });
  }
}

function bytesOf(a: StorageArray): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function quantizeKernel(backend: Backend): Kernel<CompressionAttrs> {
  return hostKernel<CompressionAttrs>(backend, (attrs, [data, residual], req) => {
    if (req[0] === OpReq.add) {
      throw new MXNetError("the compressed output cannot be accumulated (req 'add')", { op: QUANTIZE_OP });
    }
    const r = residual as Float32Array; // a host copy (Backend.read), updated and written back
    const packed = quantize(attrs.type, data as Float32Array, r, attrs.threshold);
    const words = new Float32Array(packed.buffer, packed.byteOffset, packed.length / 4);
    // Blob 1 is the residual (a mutated input), blob 2 the compressed output.
    return req[0] === OpReq.null
      ? [[1, r]]
      : [
          [1, r],
          [2, words],
        ];
  });
}

function dequantizeKernel(backend: Backend): Kernel<DequantizeAttrs> {
  return hostKernel<DequantizeAttrs>(backend, (attrs, [packed], req, current) => {
    if (req[0] === OpReq.null) return [];
    const n = shapeSize(attrs.shape);
    const out = dequantize(attrs.type, bytesOf(packed as StorageArray), n, attrs.threshold);
    if (current !== undefined)
      for (let i = 0; i < n; i++) out[i] = (out[i] as number) + (current[i] as number);
    return [[1, out]];
  });
}

/**
 * The compression operators of one runtime. Creating it defines the ops in the runtime's registry
 * if needed; kernels are registered per backend on first use of a device.
 */
export class CompressionOps {
  readonly #rt: Runtime;

  constructor(runtime: Runtime) {
    this.#rt = runtime;
    defineOps(runtime);
  }

  #ensureKernels(a: NDArray): void {
    const registry = this.#rt.registry;
    const backend = this.#rt.backendFor(a.ctx, QUANTIZE_OP);
    if (registry.kernel(registry.get(QUANTIZE_OP), backend.name) === undefined)
      registry.registerKernel(QUANTIZE_OP, backend.name, quantizeKernel(backend));
    if (registry.kernel(registry.get(DEQUANTIZE_OP), backend.name) === undefined)
      registry.registerKernel(DEQUANTIZE_OP, backend.name, dequantizeKernel(backend));
  }

  /** Push `out = quantize(data)` with `residual` updated in place (all on data's device). */
  quantize(gc: GradientCompression, data: NDArray, residual: NDArray, out: NDArray): void {
    this.#ensureKernels(data);
    this.#rt.invoke(QUANTIZE_OP, [data, residual], { type: gc.type, threshold: gc.threshold }, { out });
  }

  /** Push `out = dequantize(packed)` (on packed's device). */
  dequantize(gc: GradientCompression, packed: NDArray, out: NDArray): void {
    this.#ensureKernels(packed);
    this.#rt.invoke(
      DEQUANTIZE_OP,
      [packed],
      { type: gc.type, threshold: gc.threshold, shape: out.shape },
      { out },
    );
  }
}
