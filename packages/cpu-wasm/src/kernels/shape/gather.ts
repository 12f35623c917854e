/**
 * cpu-wasm kernels for index-driven gathers: take (blocks along an axis; clip, wrap or raise —
 * raise checks every index before writing anything, so a bad index never leaves a half-written
 * output), pick (one element per position) and one_hot (fill off_value, then set on_value).
 * Indices of any dtype are read as truncated integers. Blocks move as raw words (8-byte types as
 * word pairs), with `copyWithin` for blocks of 64 bytes or more.
 */
import { DType, MXNetError } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { encodeScalar, fillDense, readIndices, wordView } from './dtype-bits.js';
import { addr, type Blob, defineKernel, withTarget } from './kernel-util.js';

const norm = (a: number, n: number) => (a < 0 ? a + n : a);

function prod(shape: readonly number[], from: number, to: number): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** Resolve an index into [0, k) by mode (`clip` clamps, `wrap` takes it modulo k). */
function resolve(j: number, k: number, mode: string): number {
  if (mode === 'wrap') {
    const m = j % k;
    return m < 0 ? m + k : m;
  }
  return j < 0 ? 0 : j >= k ? k - 1 : j;
}

/** Words per element view: `W` indexes words, element `i` of a blob at word `base + i * e`. */
function words(rt: CpuWasmRuntime, dtype: keyof typeof DType) {
  const bytes = DType[dtype].bytes;
  const w = (bytes === 8 ? 4 : bytes) as 1 | 2 | 4;
  return { W: wordView(rt, w), w, e: bytes / w };
}

export function installGather(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<{ axis: number; mode: string }>(registry, 'take', (a, [data, ind], [r], [y]) => {
    const src = data as Blob;
    const idxBlob = ind as Blob;
    const out = y as Blob;
    if (out.size === 0 || r === 0) return;
    const axis = norm(a.axis, src.shape.length);
    const K = src.shape[axis] as number;
    const outer = prod(src.shape, 0, axis);
    const inner = prod(src.shape, axis + 1, src.shape.length);
    const N = idxBlob.size;
    const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), N);
    if (a.mode === 'raise') {
      for (let i = 0; i < N; i++) {
        const j = idx[i] as number;
        if (j < 0 || j >= K)
          throw new MXNetError(
            `Take indices contains indices out of bound: index ${j} at position ${i}, axis size ${K}`,
            {
              op: 'take',
              params: a,
              shapes: [src.shape, idxBlob.shape],
              hint: `indices must lie in [0, ${K - 1}] with mode='raise'; use mode='clip' or 'wrap' otherwise`,
            },
          );
      }
    }
    for (let i = 0; i < N; i++) idx[i] = resolve(idx[i] as number, K, a.mode);
    withTarget(rt, out, r as OpReqType, 'take', (t) => {
      const { W, w, e } = words(rt, src.dtype);
      const s0 = addr(rt, src) / w;
      const d0 = addr(rt, t) / w;
      const blk = inner * e;
      const big = blk * w >= 64;
      const u8 = big ? new Uint8Array(rt.memory.buffer) : null;
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < N; i++) {
          const sp = s0 + (o * K + (idx[i] as number)) * blk;
          const dp = d0 + (o * N + i) * blk;
          if (u8 !== null) u8.copyWithin(dp * w, sp * w, (sp + blk) * w);
          else for (let k = 0; k < blk; k++) W[dp + k] = W[sp + k] as number;
        }
      }
    });
  });

  defineKernel<{ axis: number | null; mode: string }>(registry, 'pick', (a, [data, ind], [r], [y]) => {
    const src = data as Blob;
    const idxBlob = ind as Blob;
    const out = y as Blob;
    if (out.size === 0 || r === 0) return;
    const axis = norm(a.axis ?? -1, src.shape.length);
    const K = src.shape[axis] as number;
    const outer = prod(src.shape, 0, axis);
    const inner = prod(src.shape, axis + 1, src.shape.length);
    const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), idxBlob.size);
    withTarget(rt, out, r as OpReqType, 'pick', (t) => {
      const { W, w, e } = words(rt, src.dtype);
      const s0 = addr(rt, src) / w;
      const d0 = addr(rt, t) / w;
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < inner; i++) {
          const p = o * inner + i;
          const j = resolve(idx[p] as number, K, a.mode);
          const sp = s0 + ((o * K + j) * inner + i) * e;
          const dp = d0 + p * e;
          W[dp] = W[sp] as number;
          if (e === 2) W[dp + 1] = W[sp + 1] as number;
        }
      }
    });
  });

  defineKernel<{ depth: number; on_value: number; off_value: number }>(
    registry,
    'one_hot',
    (a, [ind], [r], [y]) => {
      const idxBlob = ind as Blob;
      const out = y as Blob;
      if (out.size === 0 || r === 0) return;
      const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), idxBlob.size);
      withTarget(rt, out, r as OpReqType, 'one_hot', (t) => {
        const base = addr(rt, t);
        fillDense(rt, t.dtype, base, t.size, a.off_value);
        const view = rt.memory.view(t.dtype, base, t.size) as unknown as (number | bigint)[];
        const on = encodeScalar(t.dtype, a.on_value);
        const onv = DType[t.dtype].bigint && typeof on === 'number' ? BigInt(on) : on;
        for (let i = 0; i < idx.length; i++) {
          const j = idx[i] as number;
          if (j >= 0 && j < a.depth) view[i * a.depth + j] = onv;
        }
      });
    },
  );
}
