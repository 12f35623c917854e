/**
 * Embedding's sparse kernels on cpu-wasm (MXNet `indexing_op.{h,cc}` `FComputeEx<cpu>`):
 *
 * - `_backward_Embedding` with `sparse_grad` (dense ograd and indices → row_sparse weight
 *   gradient, MXNet's `SparseEmbeddingOpBackwardRspImpl`): the stored rows are the distinct indices
 *   of the batch, ascending, each holding the sum of its output-gradient rows, added in batch
 *   order (deterministic). Indices are checked against [0, input_dim - 1] BEFORE truncation, as
 *   MXNet compares them in their own dtype ("Embedding input contains data out of bound"), where the
 *   dense kernel clips instead. Only req=write: MXNet refuses to accumulate into a row_sparse
 *   gradient here (autograd's gradReq 'add' adds the finished gradient with elemwise_add instead).
 * - `Embedding` with a row_sparse weight (MXNet's `SparseEmbeddingOpForwardRspImpl`): each index is
 *   looked up among the stored rows (binary search); rows not stored read as zeros.
 *
 * Both computeEx kernels are merged into the dense kernels that `nn/seq/embedding.ts` registered
 * (installSparse runs after installNN), so one kernel object serves both dispatch modes. The
 * distinct rows come from sorting a copy of the indices, so the work is O(n log n) in the batch
 * and independent of input_dim; the row sums are a plain TypeScript loop over typed views.
 */
import { DType, MXNetError, type StorageArray } from '@mx/base';
import {
  type Kernel,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type SparseOutput,
  type TBlob,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { bfloatToFloat, halfToFloat } from '../shape/dtype-bits.js';

type Blob = TBlob<number>;
type FloatArray = Float32Array | Float64Array;
type Values = StorageArray & { [i: number]: number | bigint };

interface EmbeddingAttrs {
  readonly input_dim: number;
  readonly output_dim: number;
  readonly sparse_grad: boolean;
}

const BACKEND = 'cpu-wasm';

/** The values of an index array as numbers, NOT truncated (MXNet checks bounds in the index dtype). */
function readRaw(rt: CpuWasmRuntime, b: Blob): Float64Array {
  const out = new Float64Array(b.size);
  if (b.size === 0) return out;
  const v = rt.view(b) as Values;
  const conv = b.dtype === 'float16' ? halfToFloat : b.dtype === 'bfloat16' ? bfloatToFloat : undefined;
  for (let i = 0; i < b.size; i++) out[i] = conv ? conv(v[i] as number) : Number(v[i]);
  return out;
}

/**
 * Indices as int32 after MXNet's bounds check (`v < 0 || v > rows - 1` in the index dtype is an
 * error; NaN passes the check and reads as 0, like a static_cast of NaN on x86).
 */
function checkedIndices(raw: Float64Array, rows: number, op: string, message: string): Int32Array {
  const idx = new Int32Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i] as number;
    if (v < 0 || v > rows - 1) {
      throw new MXNetError(`${message}: index ${v} at position ${i} is outside [0, ${rows - 1}]`, {
        op,
        device: BACKEND,
        hint: `keep indices in [0, ${rows}) (the dense gradient clips them; the sparse one refuses)`,
      });
    }
    idx[i] = Math.trunc(v) || 0;
  }
  return idx;
}

/** Writes integers into an int64 or int32 aux view. */
function writeIndices(view: StorageArray, values: Int32Array): void {
  if (view instanceof BigInt64Array)
    for (let i = 0; i < values.length; i++) view[i] = BigInt(values[i] as number);
  else (view as Int32Array).set(values);
}

/** Sorted distinct values of `idx`, and for each position of `idx` the slot of its value among them. */
function distinctRows(idx: Int32Array): { rows: Int32Array; slot: Int32Array } {
  const sorted = idx.slice().sort();
  let k = 0;
  for (let i = 0; i < sorted.length; i++)
    if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[k++] = sorted[i] as number;
  const rows = sorted.subarray(0, k);
  const slot = new Int32Array(idx.length);
  for (let i = 0; i < idx.length; i++) slot[i] = lowerBound(rows, idx[i] as number);
  return { rows, slot };
}

/** First position in the ascending `a` whose value is >= v. */
function lowerBound(a: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function fail(op: string, message: string, hint?: string): MXNetError {
  return new MXNetError(message, { op, device: BACKEND, ...(hint !== undefined ? { hint } : {}) });
}

export function installSparseEmbedding(registry: OpRegistry, rt: CpuWasmRuntime): void {
  /** `_backward_Embedding` → row_sparse weight gradient. */
  const backwardRsp = (
    attrs: EmbeddingAttrs,
    ograd: Blob,
    data: Blob,
    req: OpReqType,
    out: SparseOutput<number>,
  ): void => {
    const op = '_backward_Embedding';
    if (req === OpReq.null) return;
    if (req !== OpReq.write && req !== OpReq.inplace) {
      throw fail(
        op,
        "SparseEmbedding layer doesn't support weight gradient calculation with req != write",
        'write the gradient into a new array and add it with elemwise_add',
      );
    }
    if (ograd.dtype !== 'float32' && ograd.dtype !== 'float64')
      throw fail(
        op,
        `needs a float32 or float64 output gradient, got ${ograd.dtype}`,
        "cast with astype('float32')",
      );
    if (out.dtype !== ograd.dtype)
      throw fail(op, `the gradient is ${out.dtype} but the output gradient is ${ograd.dtype}`);
    const width = attrs.output_dim;
    const idx = checkedIndices(
      readRaw(rt, data),
      attrs.input_dim,
      op,
      'Embedding input contains data out of bound',
    );
    const { rows, slot } = distinctRows(idx);
    const k = rows.length;
    out.alloc([k, width], [[k]]);
    if (k === 0) return;
    // Views after alloc: it may grow the memory.
    writeIndices(rt.view(out.aux[0] as Blob), rows);
    const g = rt.view(out.data) as FloatArray;
    const og = rt.view(ograd) as FloatArray;
    g.fill(0);
    for (let i = 0; i < idx.length; i++) {
      const d = (slot[i] as number) * width;
      const s = i * width;
      for (let c = 0; c < width; c++) g[d + c] = (g[d + c] as number) + (og[s + c] as number);
    }
  };

  /** `Embedding` with a row_sparse weight → dense output; rows not stored read as zeros. */
  const forwardRsp = (
    attrs: EmbeddingAttrs,
    data: Blob,
    weight: SparseBlob<number>,
    req: OpReqType,
    out: Blob,
  ): void => {
    const op = 'Embedding';
    if (req === OpReq.null || out.size === 0) return;
    if (weight.dtype !== out.dtype)
      throw fail(op, `Embedding weight is ${weight.dtype} but the output is ${out.dtype}`);
    const width = attrs.output_dim;
    const nnr = weight.storageShape[0] as number;
    const idx = checkedIndices(
      readRaw(rt, data),
      weight.shape[0] as number,
      op,
      'SparseEmbedding input contains data out of bound',
    );
    const stored = nnr === 0 ? new Float64Array(0) : readRaw(rt, weight.aux[0] as Blob);
    const y = rt.view(out) as Values;
    const w = nnr === 0 ? undefined : (rt.view(weight.data) as Values);
    const add = req === OpReq.add;
    const big = DType[out.dtype].bigint;
    const zero = big ? 0n : 0;
    for (let i = 0; i < idx.length; i++) {
      const v = idx[i] as number;
      const j = lowerBound(stored, v);
      const found = w !== undefined && j < nnr && stored[j] === v;
      const o = i * width;
      const s = j * width;
      for (let c = 0; c < width; c++) {
        const val = found ? (w[s + c] as number | bigint) : zero;
        if (!add) y[o + c] = val;
        else y[o + c] = big ? (y[o + c] as bigint) + (val as bigint) : (y[o + c] as number) + (val as number);
      }
    }
  };

  // A registry without the op (a test registry of a few ops) gets nothing: its dense kernel waits
  // as a pending kernel, which cannot be merged with.
  const merge = (name: string, extra: Partial<Kernel>): void => {
    if (!registry.has(name)) return;
    const dense = registry.kernel(registry.get(name), BACKEND);
    registry.registerKernel(name, BACKEND, { ...dense, ...extra } as Kernel);
  };

  merge('_backward_Embedding', {
    computeExStorage: (_attrs, ins, outs) =>
      ins[0] === 'default' && ins[1] === 'default' && outs[0] === 'row_sparse',
    computeEx(attrs, _ctx, inputs, req, outputs) {
      backwardRsp(
        attrs as unknown as EmbeddingAttrs,
        inputs[0] as Blob,
        inputs[1] as Blob,
        req[0] as OpReqType,
        outputs[0] as SparseOutput<number>,
      );
    },
  });

  merge('Embedding', {
    computeExStorage: (_attrs, ins, outs) =>
      ins[0] === 'default' && ins[1] === 'row_sparse' && outs[0] === 'default',
    computeEx(attrs, _ctx, inputs, req, outputs) {
      forwardRsp(
        attrs as unknown as EmbeddingAttrs,
        inputs[0] as Blob,
        inputs[1] as SparseBlob<number>,
        req[0] as OpReqType,
        outputs[0] as Blob,
      );
    },
  });
}
