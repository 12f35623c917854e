/**
 * cpu-wasm kernels for ops that are one strided copy: the shape-only ops (Reshape, Flatten,
 * expand_dims, squeeze: a plain copy, skipped when in place), transpose, SwapAxis, broadcast_to /
 * broadcast_axis / broadcast_like (stride 0 on broadcast axes), slice / slice_axis / slice_like
 * (offset + stepped strides), reverse (negative strides), tile and repeat (a 2N-d broadcast view,
 * as MXNet implements them). Each builds a source view of the input in the output's shape.
 */
import { type OpRegistry, type OpReqType, sliceStart } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { addr, alignRight, type Blob, copyBlob, defineKernel } from './kernel-util.js';
import { copyStrided, dense, denseStrides } from './strided-copy.js';

type OptIdx = readonly (number | null)[];

const norm = (a: number, n: number) => (a < 0 ? a + n : a);

/** Copy `view` (a window of `src` shaped like `out`) into the dense output. */
function copyView(
  rt: CpuWasmRuntime,
  src: Blob,
  out: Blob,
  req: OpReqType,
  offset: number,
  strides: readonly number[],
): void {
  if (out.size === 0) return;
  const bytes = rt.itemSize(src.dtype);
  copyStrided(
    rt,
    out.dtype,
    out.shape,
    { addr: addr(rt, src) + offset * bytes, strides },
    dense(addr(rt, out), out.shape),
    req,
  );
}

/** Broadcast `src` into `out` (same ndim after left-padding; stride 0 where src has 1 and out not). */
function broadcastInto(rt: CpuWasmRuntime, src: Blob, out: Blob, req: OpReqType): void {
  const [shape, strides] = alignRight(src.shape, denseStrides(src.shape), out.shape.length);
  copyView(
    rt,
    src,
    out,
    req,
    0,
    strides.map((s, i) => (shape[i] === out.shape[i] ? s : 0)),
  );
}

export function installLayout(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const name of ['Reshape', 'Flatten', 'expand_dims', 'squeeze']) {
    defineKernel(registry, name, (_a, [x], [r], [y]) => copyBlob(rt, x as Blob, y as Blob, r as OpReqType));
  }

  const permute = (x: Blob, y: Blob, r: OpReqType, perm: readonly number[]) => {
    const st = denseStrides(x.shape);
    copyView(
      rt,
      x,
      y,
      r,
      0,
      perm.map((p) => st[p] as number),
    );
  };

  defineKernel<{ axes: readonly number[] }>(registry, 'transpose', (a, [x], [r], [y]) => {
    const n = (x as Blob).shape.length;
    const perm =
      a.axes.length === 0 ? Array.from({ length: n }, (_, i) => n - 1 - i) : a.axes.map((v) => norm(v, n));
    permute(x as Blob, y as Blob, r as OpReqType, perm);
  });

  defineKernel<{ dim1: number; dim2: number }>(registry, 'SwapAxis', (a, [x], [r], [y]) => {
    const n = (x as Blob).shape.length;
    const perm = Array.from({ length: n }, (_, i) => i);
    const d1 = norm(a.dim1, n);
    const d2 = norm(a.dim2, n);
    perm[d1] = d2;
    perm[d2] = d1;
    permute(x as Blob, y as Blob, r as OpReqType, perm);
  });

  for (const name of ['broadcast_to', 'broadcast_axis', 'broadcast_like']) {
    defineKernel(registry, name, (_a, [x], [r], [y]) =>
      broadcastInto(rt, x as Blob, y as Blob, r as OpReqType),
    );
  }

  defineKernel<{ begin: OptIdx; end: OptIdx; step: OptIdx }>(registry, 'slice', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const st = denseStrides(src.shape);
    const { b, s } = sliceStart(src.shape, a.begin, a.step);
    const offset = b.reduce((acc, v, i) => acc + v * (st[i] as number), 0);
    copyView(
      rt,
      src,
      out,
      r as OpReqType,
      offset,
      st.map((v, i) => v * (s[i] as number)),
    );
  });

  defineKernel<{ axis: number; begin: number }>(registry, 'slice_axis', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const ax = norm(a.axis, src.shape.length);
    const b = norm(a.begin, src.shape[ax] as number);
    const st = denseStrides(src.shape);
    copyView(rt, src, out, r as OpReqType, b * (st[ax] as number), st);
  });

  defineKernel(registry, 'slice_like', (_a, [x], [r], [y]) => {
    const src = x as Blob;
    copyView(rt, src, y as Blob, r as OpReqType, 0, denseStrides(src.shape));
  });

  defineKernel<{ axis: readonly number[] }>(registry, 'reverse', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const n = src.shape.length;
    const st = denseStrides(src.shape);
    const flip = new Array<boolean>(n).fill(false);
    for (const v of a.axis) flip[norm(v, n)] = !flip[norm(v, n)];
    let offset = 0;
    const strides = st.map((v, i) => {
      if (!flip[i]) return v;
      offset += ((src.shape[i] as number) - 1) * v;
      return -v;
    });
    copyView(rt, src, y as Blob, r as OpReqType, offset, strides);
  });

  defineKernel<{ reps: readonly number[] }>(registry, 'tile', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const n = Math.max(src.shape.length, a.reps.length);
    const [shape, strides] = alignRight(src.shape, denseStrides(src.shape), n);
    const reps = Array.from({ length: n }, (_, i) =>
      i < n - a.reps.length ? 1 : (a.reps[i - (n - a.reps.length)] as number),
    );
    // Output (r0*d0, r1*d1, ...) is the dense 2N-d array (r0, d0, r1, d1, ...); rep axes have stride 0.
    const vshape = shape.flatMap((d, i) => [reps[i] as number, d]);
    const vstrides = strides.flatMap((s) => [0, s]);
    copyStrided(
      rt,
      out.dtype,
      vshape,
      { addr: addr(rt, src), strides: vstrides },
      dense(addr(rt, out), vshape),
      r as OpReqType,
    );
  });

  defineKernel<{ repeats: number; axis: number | null }>(registry, 'repeat', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0 || a.repeats === 0) return;
    let vshape: number[];
    let vstrides: number[];
    if (a.axis === null) {
      vshape = [src.size, a.repeats];
      vstrides = [1, 0];
    } else {
      const ax = norm(a.axis, src.shape.length);
      const st = denseStrides(src.shape);
      vshape = [...src.shape.slice(0, ax + 1), a.repeats, ...src.shape.slice(ax + 1)];
      vstrides = [...st.slice(0, ax + 1), 0, ...st.slice(ax + 1)];
    }
    copyStrided(
      rt,
      out.dtype,
      vshape,
      { addr: addr(rt, src), strides: vstrides },
      dense(addr(rt, out), vshape),
      r as OpReqType,
    );
  });
}
