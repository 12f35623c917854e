/**
 * `cast_storage` on cpu-wasm (MXNet `cast_storage-inl.h`): dense → CSR (count the nonzeros per
 * row, prefix-sum into indptr, fill), dense → row_sparse (the rows holding a nonzero), CSR /
 * row_sparse → dense (zero, then scatter), CSR → CSR and row_sparse → row_sparse (copies), and
 * dense → dense (the identity, MXNet's dense `FCompute`).
 *
 * TypeScript over typed views of the wasm memory: each loop is one pass over the data and touches
 * nothing else, so generated wasm would pay mainly for dense → CSR on large matrices (the nonzero
 * scan, vectorisable) and for int64 aux blocks, which go through BigInt here. The output blocks are
 * allocated mid-kernel (`SparseOutput.alloc`), which may grow the memory and so detach views:
 * every view is taken after the allocation.
 */
import { DType, type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import {
  isSparseBlob,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type SparseOutput,
  type TBlob,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

/** Data dtypes served (every compute dtype: the loops only compare with zero and copy). */
export const CAST_STORAGE_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'int32',
  'int64',
  'int8',
  'uint8',
  'bool',
];

type Attrs = { readonly stype: 'default' | 'row_sparse' | 'csr' };
type Blob = TBlob<number>;
type Values = StorageArray & { [i: number]: number | bigint };

/** Writes integers into an int64 or int32 aux view. */
function indexWriter(view: StorageArray): (i: number, v: number) => void {
  if (view instanceof BigInt64Array)
    return (i, v) => {
      view[i] = BigInt(v);
    };
  const v32 = view as Int32Array;
  return (i, v) => {
    v32[i] = v;
  };
}

function fail(message: string): MXNetError {
  return new MXNetError(message, { op: 'cast_storage', hint: 'check the sparse array with checkFormat()' });
}

export function installCastStorage(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const view = (b: Blob): Values => rt.view(b) as Values;
  const zeroOf = (dtype: DTypeName): number | bigint => (DType[dtype].bigint ? 0n : 0);

  const denseToCsr = (src: Blob, dst: SparseOutput<number>): void => {
    const rows = src.shape[0] as number;
    const cols = src.shape[1] as number;
    const zero = zeroOf(src.dtype);
    const counts = new Float64Array(rows + 1);
    let x = view(src);
    for (let r = 0; r < rows; r++) {
      let n = 0;
      for (let c = r * cols, end = c + cols; c < end; c++) if (x[c] !== zero) n++;
      counts[r + 1] = (counts[r] as number) + n;
    }
    const nnz = counts[rows] as number;
    dst.alloc([nnz], [[rows + 1], [nnz]]);
    x = view(src);
    const data = view(dst.data);
    const setPtr = indexWriter(view(dst.aux[0] as Blob));
    const setIdx = indexWriter(view(dst.aux[1] as Blob));
    for (let r = 0; r <= rows; r++) setPtr(r, counts[r] as number);
    let j = 0;
    for (let r = 0; r < rows; r++) {
      const base = r * cols;
      for (let c = 0; c < cols; c++) {
        const v = x[base + c] as number | bigint;
        if (v !== zero) {
          data[j] = v;
          setIdx(j++, c);
        }
      }
    }
  };

  const denseToRsp = (src: Blob, dst: SparseOutput<number>): void => {
    const rows = src.shape[0] as number;
    const rowSize = rows === 0 ? 0 : src.size / rows;
    const zero = zeroOf(src.dtype);
    let x = view(src);
    const kept: number[] = [];
    for (let r = 0; r < rows; r++) {
      for (let c = r * rowSize, end = c + rowSize; c < end; c++) {
        if (x[c] !== zero) {
          kept.push(r);
          break;
        }
      }
    }
    const k = kept.length;
    dst.alloc([k, ...src.shape.slice(1)], [[k]]);
    x = view(src);
    const data = view(dst.data);
    const setIdx = indexWriter(view(dst.aux[0] as Blob));
    kept.forEach((r, j) => {
      setIdx(j, r);
      (data as unknown as { set(a: ArrayLike<unknown>, at: number): void }).set(
        x.subarray(r * rowSize, (r + 1) * rowSize) as ArrayLike<unknown>,
        j * rowSize,
      );
    });
  };

  const sparseToDense = (src: SparseBlob<number>, dst: Blob, req: OpReqType): void => {
    if (dst.size === 0) return;
    const out = view(dst);
    const add = req === OpReq.add;
    if (!add) rt.zero(dst);
    const nnz = src.storageShape[0] as number;
    if (src.data.size === 0) return;
    const data = view(src.data);
    const big = DType[dst.dtype].bigint;
    const put = (at: number, v: number | bigint): void => {
      out[at] = add ? (big ? (out[at] as bigint) + (v as bigint) : (out[at] as number) + (v as number)) : v;
    };
    if (src.stype === 'csr') {
      const rows = src.shape[0] as number;
      const cols = src.shape[1] as number;
      const ptr = view(src.aux[0] as Blob);
      const idx = view(src.aux[1] as Blob);
      for (let r = 0; r < rows; r++) {
        const b = Number(ptr[r]);
        const e = Number(ptr[r + 1]);
        if (b < 0 || e < b || e > nnz)
          throw fail(`malformed CSR: indptr[${r}..${r + 1}] = ${b}..${e} with nnz ${nnz}`);
        for (let j = b; j < e; j++) {
          const c = Number(idx[j]);
          if (!(c >= 0 && c < cols))
            throw fail(`malformed CSR: column ${c} at indices[${j}] is outside [0, ${cols})`);
          put(r * cols + c, data[j] as number | bigint);
        }
      }
      return;
    }
    const rows = src.shape[0] as number;
    const rowSize = dst.size / rows;
    const idx = view(src.aux[0] as Blob);
    for (let j = 0; j < nnz; j++) {
      const r = Number(idx[j]);
      if (!(r >= 0 && r < rows))
        throw fail(`malformed row_sparse: row ${r} at indices[${j}] is outside [0, ${rows})`);
      for (let c = 0; c < rowSize; c++) put(r * rowSize + c, data[j * rowSize + c] as number | bigint);
    }
  };

  const copyConverting = (dst: Blob, src: Blob): void => {
    if (src.size === 0) return;
    if (dst.dtype === src.dtype) {
      rt.copyBlob(dst, src);
      return;
    }
    const from = view(src);
    const set = indexWriter(view(dst));
    for (let i = 0; i < src.size; i++) set(i, Number(from[i]));
  };

  const copySparse = (src: SparseBlob<number>, dst: SparseOutput<number>): void => {
    dst.alloc(
      src.storageShape,
      src.aux.map((a) => a.shape),
    );
    rt.copyBlob(dst.data, src.data);
    src.aux.forEach((a, i) => {
      copyConverting(dst.aux[i] as Blob, a);
    });
  };

  const denseCopy = (src: Blob, dst: Blob, req: OpReqType): void => {
    if (req === OpReq.null || dst.size === 0) return;
    if (req !== OpReq.add) {
      if (rt.address(dst) !== rt.address(src)) rt.copyBlob(dst, src);
      return;
    }
    const x = view(src);
    const out = view(dst);
    const big = DType[dst.dtype].bigint;
    for (let i = 0; i < dst.size; i++)
      out[i] = big ? (out[i] as bigint) + (x[i] as bigint) : (out[i] as number) + (x[i] as number);
  };

  registry.registerKernel<Attrs>('cast_storage', 'cpu-wasm', {
    dtypes: CAST_STORAGE_DTYPES,
    compute(_attrs, _ctx, inputs, req, outputs) {
      denseCopy(inputs[0] as Blob, outputs[0] as Blob, req[0] as OpReqType);
    },
    computeEx(attrs, _ctx, inputs, req, outputs) {
      const src = inputs[0] as Blob | SparseBlob<number>;
      const dst = outputs[0] as Blob | SparseOutput<number>;
      const r = req[0] as OpReqType;
      if (r === OpReq.null) return;
      if (isSparseBlob(dst)) {
        if (r === OpReq.add) throw fail('cannot accumulate (req=add) into a sparse output');
        if (dst.stype !== attrs.stype) throw fail(`the output is ${dst.stype}, stype says ${attrs.stype}`);
        if (isSparseBlob(src)) {
          if (src.stype !== dst.stype) throw fail(`cast from ${src.stype} to ${dst.stype} is not supported`);
          copySparse(src as SparseBlob<number>, dst);
        } else if (dst.stype === 'csr') denseToCsr(src, dst);
        else denseToRsp(src, dst);
        return;
      }
      if (isSparseBlob(src)) sparseToDense(src as SparseBlob<number>, dst, r);
      else denseCopy(src, dst, r);
    },
  });
}
