/**
 * cpu-wasm kernels of Embedding and _backward_Embedding.
 *
 * Forward: one byte copy (`copyWithin`) of an output_dim row per index, so every weight dtype works
 * and no bit pattern changes; indices of any dtype are truncated and clipped into [0, input_dim-1]
 * (MXNet's Take<clip>). req=add goes through a scratch block (withTarget).
 *
 * Backward: the weight gradient is zeroed (write) or kept (add), then each output-gradient row is
 * added at its clipped index by a generated wasm loop (f32x4 / f64x2 adds plus a scalar tail) over
 * an int32 index list in workspace memory; rows are added in index order, so repeated indices
 * accumulate deterministically.
 */
import { DType, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { FunctionBuilder, I32, ModuleBuilder } from '../../../wasm/assembler.js';
import { withTarget } from '../../shape/kernel-util.js';
import { type Blob, defineKernel, floatView, readInts, withWorkspace } from './util.js';

interface EmbeddingAttrs {
  readonly input_dim: number;
  readonly output_dim: number;
}

/** Clip truncated indices into [0, k-1] as int32. */
function clipIndices(idx: Float64Array, k: number, out: Int32Array): void {
  for (let i = 0; i < idx.length; i++) {
    const j = idx[i] as number;
    out[i] = j <= 0 ? 0 : j >= k ? k - 1 : j;
  }
}

type ScatterRows = (dst: number, src: number, idx: number, rows: number, width: number) => void;

/**
 * `scatter(dst, src, idx, rows, width)`: for r < rows, dst[idx[r]*width + k] += src[r*width + k]
 * for k < width (byte addresses; idx int32).
 */
function scatterKernel(rt: CpuWasmRuntime, dtype: 'float32' | 'float64'): ScatterRows {
  const f64 = dtype === 'float64';
  const build = () => {
    const es = f64 ? 8 : 4;
    const lanes = 16 / es;
    const f = new FunctionBuilder([I32, I32, I32, I32, I32]);
    const r = f.local(I32);
    const d = f.local(I32);
    const s = f.local(I32);
    const k = f.local(I32);
    const vecEnd = f.local(I32);
    const rowBytes = f.local(I32);
    // rowBytes = width * es; vecEnd = width - width % lanes
    f.get(4).i32Const(es).op('i32.mul').set(rowBytes);
    f.get(4).get(4).i32Const(lanes).op('i32.rem_u').op('i32.sub').set(vecEnd);
    f.i32Const(0).set(r);
    f.block().loop();
    f.get(r).get(3).op('i32.ge_u').brIf(1);
    // d = dst + idx[r] * rowBytes; s = src + r * rowBytes
    f.get(0)
      .get(2)
      .get(r)
      .i32Const(2)
      .op('i32.shl', 'i32.add')
      .mem('i32.load')
      .get(rowBytes)
      .op('i32.mul', 'i32.add')
      .set(d);
    f.get(1).get(r).get(rowBytes).op('i32.mul', 'i32.add').set(s);
    f.i32Const(0).set(k);
    f.block().loop();
    f.get(k).get(vecEnd).op('i32.ge_u').brIf(1);
    f.get(d)
      .get(d)
      .mem('v128.load', 0, 0)
      .get(s)
      .mem('v128.load', 0, 0)
      .op(f64 ? 'f64x2.add' : 'f32x4.add');
    f.mem('v128.store', 0, 0);
    f.get(d).i32Const(16).op('i32.add').set(d);
    f.get(s).i32Const(16).op('i32.add').set(s);
    f.get(k).i32Const(lanes).op('i32.add').set(k).br(0);
    f.end().end();
    f.block().loop();
    f.get(k).get(4).op('i32.ge_u').brIf(1);
    const [ld, st, add] = f64 ? ['f64.load', 'f64.store', 'f64.add'] : ['f32.load', 'f32.store', 'f32.add'];
    f.get(d)
      .get(d)
      .mem(ld as string)
      .get(s)
      .mem(ld as string)
      .op(add as string)
      .mem(st as string);
    f.get(d).i32Const(es).op('i32.add').set(d);
    f.get(s).i32Const(es).op('i32.add').set(s);
    f.get(k).i32Const(1).op('i32.add').set(k).br(0);
    f.end().end();
    f.get(r).i32Const(1).op('i32.add').set(r).br(0);
    f.end().end();
    return new ModuleBuilder().importMemory(rt.memoryImport()).addFunctionChain(f, 'scatter');
  };
  return rt.kernel(`seq.embedding.scatter.${dtype}`, build).exports.scatter as ScatterRows;
}

/** Scatter-add rows of `src` (rows x width floats) into `dst` at the clipped `idx`, in JS (no SIMD). */
function scatterJs(
  dst: Float32Array | Float64Array,
  src: Float32Array | Float64Array,
  idx: Int32Array,
  width: number,
) {
  for (let r = 0; r < idx.length; r++) {
    const d = (idx[r] as number) * width;
    const s = r * width;
    for (let k = 0; k < width; k++) dst[d + k] = (dst[d + k] as number) + (src[s + k] as number);
  }
}

export function installEmbedding(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<EmbeddingAttrs>(registry, 'Embedding', (a, [data, weight], [r], [y]) => {
    const d = data as Blob;
    const w = weight as Blob;
    const out = y as Blob;
    if (r === OpReq.null || out.size === 0) return;
    if (w.dtype !== out.dtype)
      throw new MXNetError(`Embedding weight is ${w.dtype} but the output is ${out.dtype}`, {
        op: 'Embedding',
        dtypes: [d.dtype, w.dtype, out.dtype],
      });
    const idx = new Int32Array(d.size);
    clipIndices(readInts(rt, d), a.input_dim, idx);
    const rowBytes = a.output_dim * DType[w.dtype].bytes;
    withTarget(rt, out, r as OpReqType, 'Embedding', (t) => {
      const u8 = new Uint8Array(rt.memory.buffer);
      const w0 = rt.address(w);
      const o0 = rt.address(t);
      for (let i = 0; i < idx.length; i++) {
        const src = w0 + (idx[i] as number) * rowBytes;
        u8.copyWithin(o0 + i * rowBytes, src, src + rowBytes);
      }
    });
  });

  defineKernel<EmbeddingAttrs>(registry, '_backward_Embedding', (a, [ograd, data], [r], [gw]) => {
    const og = ograd as Blob;
    const d = data as Blob;
    const out = gw as Blob;
    if (r === OpReq.null || out.size === 0) return;
    floatView(rt, og, '_backward_Embedding', 'output gradient');
    floatView(rt, out, '_backward_Embedding', 'weight gradient');
    const n = d.size;
    const width = a.output_dim;
    const ints = readInts(rt, d);
    if (r !== OpReq.add) rt.zero(out);
    if (n === 0 || width === 0) return;
    const dtype = out.dtype as 'float32' | 'float64';
    if (!rt.features.simd) {
      const idx = new Int32Array(n);
      clipIndices(ints, a.input_dim, idx);
      scatterJs(rt.view(out) as Float32Array, rt.view(og) as Float32Array, idx, width);
      return;
    }
    const scatter = scatterKernel(rt, dtype);
    withWorkspace(rt, '_backward_Embedding', n * 4, (ptr) => {
      clipIndices(ints, a.input_dim, new Int32Array(rt.memory.buffer, ptr, n));
      scatter(rt.address(out), rt.address(og), ptr, n, width);
    });
  });
}
