/**
 * Pieces the layer kernels share: elementwise loops compiled from SimpleOp expressions (the
 * codegen family's compiler, so each activation is one generated SIMD loop that honours req, splits
 * across the worker pool and broadcasts a per-channel operand), scratch blobs in the wasm memory,
 * reshaped blob views and the float-only dtype check.
 *
 * An expression kernel is built from a private `Op` that is never registered: the layer ops pick
 * the expression from a string param (`act_type`), which a registered SimpleOp cannot do.
 */
import { DType, type DTypeName, MXNetError, type Shape } from '@mx/base';
import {
  type Attrs,
  type ElementwiseDef,
  type Expr,
  exprKey,
  type Kernel,
  Op,
  OpReq,
  type OpReqType,
  type TBlob,
} from '@mx/ops';
import { compileElementwise } from '../../../codegen/index.js';
import type { CpuWasmRuntime } from '../../../runtime.js';

export const BACKEND = 'cpu-wasm';
export const FLOAT_DTYPES: readonly DTypeName[] = Object.freeze(['float32', 'float64']);

export type Blob = TBlob<number>;

/** The same memory seen with another shape of equal size. */
export function reshaped(b: Blob, shape: Shape): Blob {
  return { ptr: b.ptr, byteOffset: b.byteOffset, shape: [...shape], dtype: b.dtype, size: b.size };
}

/** Throw MXNet's dtype error unless every blob is float32/float64 (MSHADOW_REAL_TYPE_SWITCH). */
export function checkFloat(op: string, blobs: readonly Blob[]): void {
  for (const b of blobs) {
    if (b.dtype !== 'float32' && b.dtype !== 'float64') {
      throw new MXNetError(
        `dtype ${b.dtype} is not supported by ${op} on ${BACKEND} (float32 and float64 only)`,
        {
          op,
          dtypes: blobs.map((x) => x.dtype),
          shapes: blobs.map((x) => x.shape),
          device: BACKEND,
          hint: 'cast the inputs to float32 first (astype / Cast)',
        },
      );
    }
  }
}

/** Run `body` with a scratch blob of `shape`/`dtype` in the wasm memory, freed afterwards. */
export function withScratch<T>(
  rt: CpuWasmRuntime,
  op: string,
  shape: Shape,
  dtype: DTypeName,
  body: (b: Blob) => T,
): T {
  let size = 1;
  for (const d of shape) size *= d;
  const bytes = Math.max(64, size * DType[dtype].bytes);
  const alloc = rt.memory.allocator;
  const ptr = alloc.alloc(bytes);
  if (ptr === null) {
    throw new MXNetError(`out of memory allocating ${bytes} bytes of scratch`, {
      op,
      shapes: [[...shape]],
      dtypes: [dtype],
      device: BACKEND,
      hint: 'free arrays or use smaller batches',
    });
  }
  try {
    return body({ ptr, byteOffset: 0, shape: [...shape], dtype, size });
  } finally {
    alloc.free(ptr, bytes);
  }
}

const SYNC_CTX = Object.freeze({
  isTrain: false,
  needGrad: false,
  ctx: Object.freeze({ deviceType: 'cpu', deviceId: 0 }),
  requested: Object.freeze([]),
}) as never;

/**
 * Elementwise expression kernels compiled on first use and kept per (expression, options): the
 * SimpleOp compiler's SIMD loops, req handling, broadcasting and pool split, for expressions the
 * layer kernels choose at run time.
 */
export class ExprKernels {
  readonly #rt: CpuWasmRuntime;
  readonly #cache = new Map<string, Kernel>();

  constructor(rt: CpuWasmRuntime) {
    this.#rt = rt;
  }

  /** The kernel computing `forward`; `views` reads inputs under other shapes (per-channel operands). */
  get(name: string, forward: Expr, views?: ElementwiseDef['inputViews']): Kernel {
    const key = `${exprKey(forward)}|${views ? name : ''}`;
    let k = this.#cache.get(key);
    if (k === undefined) {
      const op = new Op({
        name,
        elementwise: { forward, ...(views ? { broadcast: true, inputViews: views } : {}) },
        inferShape: () => true,
      });
      k = compileElementwise(this.#rt, op);
      this.#cache.set(key, k);
    }
    return k;
  }

  /** out (=|+=) forward(inputs) with `attrs` supplying the expression's params. */
  run(
    name: string,
    forward: Expr,
    attrs: Attrs,
    inputs: readonly Blob[],
    req: OpReqType,
    out: Blob,
    views?: ElementwiseDef['inputViews'],
  ): void {
    if (req === OpReq.null || out.size === 0) return;
    const k = this.get(name, forward, views);
    (k.compute as NonNullable<Kernel['compute']>)(attrs, SYNC_CTX, inputs, [req], [out]);
  }
}
