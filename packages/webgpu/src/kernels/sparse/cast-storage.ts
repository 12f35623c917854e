/**
 * `cast_storage` on webgpu (MXNet `cast_storage-inl.cuh`): dense → csr / row_sparse, csr /
 * row_sparse → dense, csr → csr and row_sparse → row_sparse copies, and dense → dense.
 *
 * A sparse output's size (nnz, or the kept rows) is known only after a pass over the data, and
 * `SparseOutput.alloc` must be called with it; WebGPU reads are asynchronous. So dense → sparse is
 * an `async` kernel in two phases, as MXNet's GPU kernel (count, prefix sum, copy nnz to the host,
 * allocate, fill): a count pass on the GPU, a read back of one u32 per row, the prefix sum and
 * `alloc` on the host, indptr (csr) or the kept rows (row_sparse) written from the host, then the
 * fill pass — and only then `onComplete`. The engine holds the output's variable until then, so
 * nothing observes the unallocated blocks; other ops keep encoding meanwhile. The other casts are
 * one phase and complete once encoded, like every webgpu kernel (WebGPU runs a queue in order).
 *
 * Index blocks are int32 or int64 (MXNet's default), whatever the output declares. The shaders
 * (shaders.ts) never read or write out of range, even for a malformed input (its dense result is
 * then unspecified rather than refused: checking would cost a read back per cast).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import {
  isSparseBlob,
  type Kernel,
  type OpContext,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type SparseOutput,
} from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, elemOffset } from '../../wgsl.js';
import { copyBytes } from '../copy/bytes.js';
import { fillBlob } from '../init/index.js';
import {
  type AuxType,
  addDenseSource,
  convertAuxSource,
  countSource,
  csrToDenseSource,
  fillCsrSource,
  gatherRspSource,
  rspToDenseSource,
  WG,
} from './shaders.js';

const OP = 'cast_storage';

/** Data dtypes served: one element per storage word or wider (see shaders.ts). */
export const CAST_STORAGE_DTYPES: readonly DTypeName[] = Object.freeze([
  'float32',
  'int32',
  'uint32',
  'float16',
]);

type Attrs = { readonly stype: 'default' | 'row_sparse' | 'csr' };
type SBlob = SparseBlob<GPUBuffer>;
type SOut = SparseOutput<GPUBuffer>;
type Done = (error?: unknown) => void;

function fail(message: string, hint?: string): MXNetError {
  return new MXNetError(message, { op: OP, device: 'gpu(0)', ...(hint === undefined ? {} : { hint }) });
}

function auxType(t: DTypeName | undefined): AuxType {
  if (t === 'int32' || t === 'int64') return t;
  throw fail(`sparse index blocks are int32 or int64, got ${String(t)}`);
}

/** Word offset of an index block (int32: its element offset; int64: two words per element). */
const wordOffset = (b: GpuBlob) => b.byteOffset / 4;

/** Host indices as the bytes of an int32 or int64 block (int64: low word, then a zero high word). */
function indexWords(values: ArrayLike<number>, t: AuxType): Uint32Array | Int32Array {
  if (t === 'int32') return Int32Array.from(values);
  const w = new Uint32Array(values.length * 2);
  for (let i = 0; i < values.length; i++) w[2 * i] = values[i] as number;
  return w;
}

/** The ctx for one phase of a two-phase op: the phase's own completion, not the op's. */
const phase = (ctx: OpContext, onComplete: Done): OpContext => ({ ...ctx, onComplete });

export function installCastStorage(registry: OpRegistry, gpu: GpuHost): void {
  const dispatch = (
    key: string,
    source: (bind: ReturnType<typeof bindBlobs>) => string,
    words: number,
    blobs: readonly GpuBlob[],
    params: readonly number[],
    n: number,
  ): void => {
    const rt = gpu.rt;
    const bind = bindBlobs(blobs);
    const entry = rt.pipeline(`${OP}:${key}:${bind.key}`, () => source(bind), words);
    rt.dispatch(entry, bind.buffers, params, grid1d(n, WG));
  };

  /** A temporary buffer as a blob (uint32 elements). */
  const scratch = (rt: WebGpuRuntime, n: number): GpuBlob => ({
    ptr: rt.createBuffer(n * 4),
    byteOffset: 0,
    shape: [n],
    dtype: 'uint32',
    size: n,
  });

  /**
   * Dense → csr / row_sparse: count on the GPU, read the counts back, allocate, fill. Completes
   * the op through `done` (exactly once).
   */
  const denseToSparse = (ctx: OpContext, src: GpuBlob, dst: SOut, done: Done): void => {
    const rt = gpu.rt;
    const rows = src.shape[0] as number;
    const len = rows === 0 ? 0 : src.size / rows;
    const aux = auxType(dst.auxTypes[0]);
    const csr = dst.stype === 'csr';
    const finish = (counts: Uint32Array): void => {
      if (csr) {
        const ptr = new Float64Array(rows + 1);
        for (let r = 0; r < rows; r++) ptr[r + 1] = (ptr[r] as number) + (counts[r] as number);
        const nnz = ptr[rows] as number;
        dst.alloc([nnz], [[rows + 1], [nnz]]);
        const p = dst.aux[0] as GpuBlob;
        rt.writeBuffer(p.ptr as GPUBuffer, p.byteOffset, indexWords(ptr, aux));
        if (nnz === 0) {
          done();
          return;
        }
        const [data, idx] = [dst.data as GpuBlob, dst.aux[1] as GpuBlob];
        const blobs = [src, data, p, idx];
        rt.runOp(OP, phase(ctx, done), () =>
          dispatch(
            `fill-csr:${src.dtype}:${aux}`,
            (b) => fillCsrSource(src.dtype, aux, b),
            6,
            blobs,
            [rows, len, elemOffset(src), elemOffset(data), wordOffset(p), wordOffset(idx)],
            rows,
          ),
        );
        return;
      }
      const kept: number[] = [];
      for (let r = 0; r < rows; r++) if (counts[r] !== 0) kept.push(r);
      const k = kept.length;
      dst.alloc([k, ...src.shape.slice(1)], [[k]]);
      if (k === 0 || len === 0) {
        done();
        return;
      }
      const [data, idx] = [dst.data as GpuBlob, dst.aux[0] as GpuBlob];
      rt.writeBuffer(idx.ptr as GPUBuffer, idx.byteOffset, indexWords(kept, aux));
      rt.runOp(OP, phase(ctx, done), () =>
        dispatch(
          `gather-rsp:${src.dtype}:${aux}`,
          (b) => gatherRspSource(src.dtype, aux, b),
          5,
          [src, data, idx],
          [k * len, len, elemOffset(src), elemOffset(data), wordOffset(idx)],
          k * len,
        ),
      );
    };
    const guarded = (counts: Uint32Array): void => {
      try {
        finish(counts);
      } catch (e) {
        done(e);
      }
    };
    // Nothing to scan: every row is empty.
    if (rows === 0 || len === 0) {
      guarded(new Uint32Array(rows));
      return;
    }
    const counts = scratch(rt, rows);
    const buf = counts.ptr as GPUBuffer;
    rt.runOp(
      OP,
      phase(ctx, (err) => {
        if (err !== undefined) {
          rt.release(buf);
          return done(err);
        }
        rt.readBuffer(buf, 0, rows * 4, OP).then(
          (bytes) => {
            rt.release(buf);
            guarded(new Uint32Array(bytes.buffer, bytes.byteOffset, rows));
          },
          (e: unknown) => {
            rt.release(buf);
            done(e);
          },
        );
      }),
      () =>
        dispatch(
          `count:${src.dtype}:${csr ? 'csr' : 'rsp'}`,
          (b) => countSource(src.dtype, !csr, b),
          3,
          [src, counts],
          [rows, len, elemOffset(src)],
          rows,
        ),
    );
  };

  /** csr / row_sparse → dense: one invocation per output element. */
  const sparseToDense = (src: SBlob, dst: GpuBlob, req: OpReqType): void => {
    const rt = gpu.rt;
    const add = req === OpReq.add;
    const nnz = src.storageShape[0] as number;
    if (dst.size === 0) return;
    if (nnz === 0 || src.data.size === 0) {
      if (!add) fillBlob(rt, OP, dst, OpReq.write, 0);
      return;
    }
    const aux = auxType(src.auxTypes[0]);
    if (src.stype === 'csr') {
      const [ptr, idx] = src.aux as [GpuBlob, GpuBlob];
      dispatch(
        `csr-dense:${dst.dtype}:${aux}:${add}`,
        (b) => csrToDenseSource(dst.dtype, aux, add, b),
        7,
        [dst, src.data, ptr, idx],
        [
          dst.size,
          src.shape[1] as number,
          elemOffset(dst),
          elemOffset(src.data),
          wordOffset(ptr),
          wordOffset(idx),
          nnz,
        ],
        dst.size,
      );
      return;
    }
    const idx = src.aux[0] as GpuBlob;
    const len = dst.size / (src.shape[0] as number);
    dispatch(
      `rsp-dense:${dst.dtype}:${aux}:${add}`,
      (b) => rspToDenseSource(dst.dtype, aux, add, b),
      6,
      [dst, src.data, idx],
      [dst.size, len, elemOffset(dst), elemOffset(src.data), wordOffset(idx), nnz],
      dst.size,
    );
  };

  /** Same dtype: a byte copy; int32 ↔ int64 index blocks: a conversion. */
  const copyBlob = (dst: GpuBlob, src: GpuBlob): void => {
    if (src.size === 0 || src.ptr === null || dst.ptr === null) return;
    if (dst.dtype === src.dtype) {
      copyBytes(gpu.rt, dst.ptr, dst.byteOffset, src.ptr, src.byteOffset, src.size * DType[src.dtype].bytes);
      return;
    }
    const to = auxType(dst.dtype);
    dispatch(
      `convert-aux:${to}`,
      (b) => convertAuxSource(to, b),
      3,
      [dst, src],
      [src.size, wordOffset(dst), wordOffset(src)],
      src.size,
    );
  };

  const copySparse = (src: SBlob, dst: SOut): void => {
    dst.alloc(
      src.storageShape,
      src.aux.map((a) => a.shape),
    );
    copyBlob(dst.data as GpuBlob, src.data as GpuBlob);
    src.aux.forEach((a, i) => {
      copyBlob(dst.aux[i] as GpuBlob, a as GpuBlob);
    });
  };

  const denseCopy = (src: GpuBlob, dst: GpuBlob, req: OpReqType): void => {
    if (req === OpReq.null || dst.size === 0) return;
    if (req !== OpReq.add) {
      if (dst.ptr !== src.ptr || dst.byteOffset !== src.byteOffset) copyBlob(dst, src);
      return;
    }
    dispatch(
      `add:${dst.dtype}`,
      (b) => addDenseSource(dst.dtype, b),
      3,
      [dst, src],
      [dst.size, elemOffset(dst), elemOffset(src)],
      dst.size,
    );
  };

  const kernel: Kernel<Attrs> = {
    execType: 'async',
    dtypes: CAST_STORAGE_DTYPES,
    compute: (_attrs, ctx, inputs, req, outputs) =>
      gpu.rt.runOp(OP, ctx, () =>
        denseCopy(inputs[0] as GpuBlob, outputs[0] as GpuBlob, req[0] as OpReqType),
      ),
    computeEx: (attrs, ctx, inputs, req, outputs) => {
      const done: Done = (e) => {
        if (ctx.onComplete !== undefined) ctx.onComplete(e);
        else if (e !== undefined) throw e;
      };
      const src = inputs[0] as GpuBlob | SBlob;
      const dst = outputs[0] as GpuBlob | SOut;
      const r = req[0] as OpReqType;
      try {
        gpu.rt.checkAlive(OP);
        if (r === OpReq.null) return done();
        if (!isSparseBlob(dst)) {
          gpu.rt.runOp(OP, ctx, () =>
            isSparseBlob(src) ? sparseToDense(src as SBlob, dst, r) : denseCopy(src, dst, r),
          );
          return;
        }
        if (r === OpReq.add) throw fail('cannot accumulate (req=add) into a sparse output');
        if (dst.stype !== attrs.stype) throw fail(`the output is ${dst.stype}, stype says ${attrs.stype}`);
        if (isSparseBlob(src)) {
          if (src.stype !== dst.stype) throw fail(`cast from ${src.stype} to ${dst.stype} is not supported`);
          gpu.rt.runOp(OP, ctx, () => copySparse(src as SBlob, dst as SOut));
          return;
        }
        denseToSparse(ctx, src, dst as SOut, done);
      } catch (e) {
        done(e);
      }
    },
  };
  registry.registerKernel<Attrs>(OP, 'webgpu', kernel as Kernel);
}
