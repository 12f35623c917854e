/**
 * Shape ops that are one strided view of their input (view.ts): the shape-only ops (a dense copy,
 * none when in place), transpose / SwapAxis (permuted strides), broadcasts (stride 0), slices
 * (offset + stepped strides), reverse (negative strides), tile and repeat (the output seen as a
 * 2N-d / N+1-d array with stride-0 copy axes, as MXNet computes them) and diag (stride s1 + s2,
 * or the diagonal coupling to build a matrix from a vector). Same structure as cpu-wasm's
 * layout.ts, so both backends agree on every index convention.
 */
import { type OpRegistry, type OpReqType, sliceStart } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import { denseStrides, norm, reg, skip } from './common.js';
import { copyDense, runView, type ViewDim } from './view.js';

type OptIdx = readonly (number | null)[];

/** A plain view shaped like the output: axis i of `shape` reads the source with `strides[i]`. */
export function plainView(shape: readonly number[], strides: readonly number[]): ViewDim[] {
  return shape.map((n, i) => ({ n, stride: strides[i] as number }));
}

/** Input shape left-padded with 1s to `ndim`, and its strides (0 where padded). */
export function alignRight(shape: readonly number[], ndim: number): [number[], number[]] {
  const st = denseStrides(shape);
  const pad = ndim - shape.length;
  return [
    Array.from({ length: ndim }, (_, i) => (i < pad ? 1 : (shape[i - pad] as number))),
    Array.from({ length: ndim }, (_, i) => (i < pad ? 0 : (st[i - pad] as number))),
  ];
}

export function installLayout(registry: OpRegistry, gpu: GpuHost): void {
  const view = (op: string, x: GpuBlob, y: GpuBlob, r: OpReqType, offset: number, strides: number[]) =>
    runView(gpu.rt, op, x, y, r, { dims: plainView(y.shape, strides), offset });

  for (const name of ['Reshape', 'Flatten', 'expand_dims', 'squeeze', 'reshape_like']) {
    reg(registry, gpu, name, (_a, [x], [r], [y]) => {
      if (skip(r, y)) return;
      copyDense(gpu.rt, name, x as GpuBlob, y as GpuBlob, r as OpReqType);
    });
  }

  const permute = (op: string, x: GpuBlob, y: GpuBlob, r: OpReqType, perm: readonly number[]) => {
    const st = denseStrides(x.shape);
    view(
      op,
      x,
      y,
      r,
      0,
      perm.map((p) => st[p] as number),
    );
  };

  reg<{ axes: readonly number[] }>(registry, gpu, 'transpose', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const n = (x as GpuBlob).shape.length;
    const perm =
      a.axes.length === 0 ? Array.from({ length: n }, (_, i) => n - 1 - i) : a.axes.map((v) => norm(v, n));
    permute('transpose', x as GpuBlob, y as GpuBlob, r as OpReqType, perm);
  });

  reg<{ dim1: number; dim2: number }>(registry, gpu, 'SwapAxis', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const n = (x as GpuBlob).shape.length;
    const perm = Array.from({ length: n }, (_, i) => i);
    const d1 = norm(a.dim1, n);
    const d2 = norm(a.dim2, n);
    perm[d1] = d2;
    perm[d2] = d1;
    permute('SwapAxis', x as GpuBlob, y as GpuBlob, r as OpReqType, perm);
  });

  for (const name of ['broadcast_to', 'broadcast_axis', 'broadcast_like']) {
    reg(registry, gpu, name, (_a, [x], [r], [y]) => {
      if (skip(r, y)) return;
      const src = x as GpuBlob;
      const out = y as GpuBlob;
      const [shape, strides] = alignRight(src.shape, out.shape.length);
      view(
        name,
        src,
        out,
        r as OpReqType,
        0,
        strides.map((s, i) => (shape[i] === out.shape[i] ? s : 0)),
      );
    });
  }

  reg<{ begin: OptIdx; end: OptIdx; step: OptIdx }>(registry, gpu, 'slice', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as GpuBlob;
    const st = denseStrides(src.shape);
    const { b, s } = sliceStart(src.shape, a.begin, a.step);
    const offset = b.reduce((acc, v, i) => acc + v * (st[i] as number), 0);
    view(
      'slice',
      src,
      y as GpuBlob,
      r as OpReqType,
      offset,
      st.map((v, i) => v * (s[i] as number)),
    );
  });

  reg<{ axis: number; begin: number }>(registry, gpu, 'slice_axis', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as GpuBlob;
    const ax = norm(a.axis, src.shape.length);
    const b = norm(a.begin, src.shape[ax] as number);
    const st = denseStrides(src.shape);
    view('slice_axis', src, y as GpuBlob, r as OpReqType, b * (st[ax] as number), st);
  });

  reg(registry, gpu, 'slice_like', (_a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as GpuBlob;
    view('slice_like', src, y as GpuBlob, r as OpReqType, 0, denseStrides(src.shape));
  });

  reg<{ axis: readonly number[] }>(registry, gpu, 'reverse', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as GpuBlob;
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
    view('reverse', src, y as GpuBlob, r as OpReqType, offset, strides);
  });

  reg<{ reps: readonly number[] }>(registry, gpu, 'tile', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as GpuBlob;
    const n = Math.max(src.shape.length, a.reps.length);
    const [shape, strides] = alignRight(src.shape, n);
    const reps = Array.from({ length: n }, (_, i) =>
      i < n - a.reps.length ? 1 : (a.reps[i - (n - a.reps.length)] as number),
    );
    // Output (r0*d0, r1*d1, ...) is the dense 2N-d array (r0, d0, r1, d1, ...); rep axes stride 0.
    const dims = shape.flatMap((d, i) => [
      { n: reps[i] as number, stride: 0 },
      { n: d, stride: strides[i] as number },
    ]);
    runView(gpu.rt, 'tile', src, y as GpuBlob, r as OpReqType, { dims });
  });

  reg<{ repeats: number; axis: number | null }>(registry, gpu, 'repeat', (a, [x], [r], [y]) => {
    if (skip(r, y) || a.repeats === 0) return;
    const src = x as GpuBlob;
    let dims: ViewDim[];
    if (a.axis === null) {
      dims = [
        { n: src.size, stride: 1 },
        { n: a.repeats, stride: 0 },
      ];
    } else {
      const ax = norm(a.axis, src.shape.length);
      const st = denseStrides(src.shape);
      dims = plainView(src.shape, st);
      dims.splice(ax + 1, 0, { n: a.repeats, stride: 0 });
    }
    runView(gpu.rt, 'repeat', src, y as GpuBlob, r as OpReqType, { dims });
  });

  reg<{ k: number; axis1: number; axis2: number }>(registry, gpu, 'diag', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as GpuBlob;
    const out = y as GpuBlob;
    if (src.shape.length === 1) {
      // out[i, j] = (j - i == k) ? v[k >= 0 ? i : j] : 0.
      const n = out.shape[0] as number;
      runView(gpu.rt, 'diag', src, out, r as OpReqType, {
        dims: [
          { n, stride: a.k >= 0 ? 1 : 0 },
          { n, stride: a.k >= 0 ? 0 : 1 },
        ],
        diag: { a: 0, b: 1, k: a.k },
        fill: 0,
      });
      return;
    }
    const nd = src.shape.length;
    const a1 = norm(a.axis1, nd);
    const a2 = norm(a.axis2, nd);
    const st = denseStrides(src.shape);
    const s1 = st[a1] as number;
    const s2 = st[a2] as number;
    const strides = [...st.filter((_, i) => i !== a1 && i !== a2), s1 + s2];
    view('diag', src, out, r as OpReqType, a.k >= 0 ? a.k * s2 : -a.k * s1, strides);
  });
}
