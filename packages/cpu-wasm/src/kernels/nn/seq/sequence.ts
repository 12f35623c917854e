/**
 * cpu-wasm kernels of SequenceMask, SequenceLast, SequenceReverse and their backward ops.
 *
 * Data is viewed as (T, B, R) for axis 0 or (B, T, R) for axis 1, R the product of the trailing
 * dims, so every move is a row of R elements. Forward kernels move raw bytes (`copyWithin`), so
 * every dtype works; SequenceMask fills with the value encoded in the data's dtype. Lengths (any
 * dtype) are truncated and clamped into [0, T]; SequenceLast of an empty sequence reads position 0.
 *
 * The backward of SequenceMask is SequenceMask of the output gradient with value 0, the backward of
 * SequenceReverse is SequenceReverse of the output gradient (a reversal is its own inverse), so they
 * share the forward kernels; SequenceLast's backward zeroes (write) and adds each output-gradient
 * row at its last position. req=add of the forward kernels goes through a scratch block.
 */
import { DType } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { fillDense } from '../../shape/dtype-bits.js';
import { withTarget } from '../../shape/kernel-util.js';
import { type Blob, defineKernel, floatView, prod, readInts } from './util.js';

interface SeqAttrs {
  readonly use_sequence_length: boolean;
  readonly axis: number;
  readonly value?: number;
}

/** (T, B, R) and the element offset of row (t, b). */
function geometry(shape: readonly number[], axis: number) {
  const T = shape[axis] as number;
  const B = shape[1 - axis] as number;
  const R = prod(shape, 2);
  const row =
    axis === 0 ? (t: number, b: number) => (t * B + b) * R : (t: number, b: number) => (b * T + t) * R;
  return { T, B, R, row };
}

/** Per-batch lengths clamped into [0, T] (T for all without `use_sequence_length`). */
function lengths(
  rt: CpuWasmRuntime,
  attrs: SeqAttrs,
  lenBlob: Blob | undefined,
  B: number,
  T: number,
): Int32Array {
  const out = new Int32Array(B).fill(T);
  if (!attrs.use_sequence_length || lenBlob === undefined) return out;
  const v = readInts(rt, lenBlob);
  for (let b = 0; b < B; b++) {
    const l = v[b] as number;
    out[b] = Math.min(Math.max(l, 0), T);
  }
  return out;
}

function copyBytes(rt: CpuWasmRuntime, dst: number, src: number, bytes: number): void {
  if (bytes === 0 || dst === src) return;
  new Uint8Array(rt.memory.buffer).copyWithin(dst, src, src + bytes);
}

function mask(
  rt: CpuWasmRuntime,
  attrs: SeqAttrs,
  x: Blob,
  len: Blob | undefined,
  out: Blob,
  req: OpReqType,
  value: number,
) {
  if (req === OpReq.null || out.size === 0) return;
  const { T, B, R, row } = geometry(x.shape, attrs.axis);
  const L = lengths(rt, attrs, len, B, T);
  const es = DType[x.dtype].bytes;
  withTarget(rt, out, req, 'SequenceMask', (t) => {
    const o0 = rt.address(t);
    copyBytes(rt, o0, rt.address(x), x.size * es);
    for (let b = 0; b < B; b++) {
      const l = L[b] as number;
      if (attrs.axis === 1) fillDense(rt, t.dtype, o0 + row(l, b) * es, (T - l) * R, value);
      else for (let s = l; s < T; s++) fillDense(rt, t.dtype, o0 + row(s, b) * es, R, value);
    }
  });
}

function reverse(
  rt: CpuWasmRuntime,
  attrs: SeqAttrs,
  x: Blob,
  len: Blob | undefined,
  out: Blob,
  req: OpReqType,
) {
  if (req === OpReq.null || out.size === 0) return;
  const { T, B, R, row } = geometry(x.shape, attrs.axis);
  const L = lengths(rt, attrs, len, B, T);
  const es = DType[x.dtype].bytes;
  withTarget(rt, out, req, 'SequenceReverse', (t) => {
    const o0 = rt.address(t);
    const x0 = rt.address(x);
    for (let b = 0; b < B; b++) {
      const l = L[b] as number;
      for (let s = 0; s < T; s++) {
        const from = s < l ? l - 1 - s : s;
        copyBytes(rt, o0 + row(s, b) * es, x0 + row(from, b) * es, R * es);
      }
    }
  });
}

export function installSequence(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<SeqAttrs>(registry, 'SequenceMask', (a, [x, len], [r], [y]) =>
    mask(rt, a, x as Blob, len, y as Blob, r as OpReqType, a.value ?? 0),
  );
  defineKernel<SeqAttrs>(registry, '_backward_SequenceMask', (a, [og, len], [r], [dx]) => {
    floatView(rt, og as Blob, '_backward_SequenceMask', 'output gradient');
    mask(rt, a, og as Blob, len, dx as Blob, r as OpReqType, 0);
  });

  defineKernel<SeqAttrs>(registry, 'SequenceReverse', (a, [x, len], [r], [y]) =>
    reverse(rt, a, x as Blob, len, y as Blob, r as OpReqType),
  );
  defineKernel<SeqAttrs>(registry, '_backward_SequenceReverse', (a, [og, len], [r], [dx]) => {
    floatView(rt, og as Blob, '_backward_SequenceReverse', 'output gradient');
    reverse(rt, a, og as Blob, len, dx as Blob, r as OpReqType);
  });

  defineKernel<SeqAttrs>(registry, 'SequenceLast', (a, [x, len], [r], [y]) => {
    const data = x as Blob;
    const out = y as Blob;
    if (r === OpReq.null || out.size === 0) return;
    const { T, B, R, row } = geometry(data.shape, a.axis);
    const L = lengths(rt, a, len, B, T);
    const es = DType[data.dtype].bytes;
    withTarget(rt, out, r as OpReqType, 'SequenceLast', (t) => {
      const o0 = rt.address(t);
      if (T === 0) {
        fillDense(rt, t.dtype, o0, t.size, 0);
        return;
      }
      const x0 = rt.address(data);
      for (let b = 0; b < B; b++) {
        const pos = Math.max((L[b] as number) - 1, 0);
        copyBytes(rt, o0 + b * R * es, x0 + row(pos, b) * es, R * es);
      }
    });
  });

  defineKernel<SeqAttrs>(registry, '_backward_SequenceLast', (a, [og, x, len], [r], [dx]) => {
    const g = og as Blob;
    const data = x as Blob;
    const out = dx as Blob;
    if (r === OpReq.null || out.size === 0) return;
    const { T, B, R, row } = geometry(data.shape, a.axis);
    const L = lengths(rt, a, len, B, T);
    floatView(rt, g, '_backward_SequenceLast', 'output gradient');
    const dst = floatView(rt, out, '_backward_SequenceLast', 'data gradient');
    const src = rt.view(g) as Float32Array;
    if (r !== OpReq.add) rt.zero(out);
    if (T === 0) return;
    for (let b = 0; b < B; b++) {
      const at = row(Math.max((L[b] as number) - 1, 0), b);
      for (let k = 0; k < R; k++) dst[at + k] = (dst[at + k] as number) + (src[b * R + k] as number);
    }
  });
}
