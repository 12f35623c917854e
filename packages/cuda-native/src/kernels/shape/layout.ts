/**
 * Shape ops that are one strided copy of their input (strided.ts), built exactly as cpu-wasm's
 * layout.ts builds its views so both backends agree on every index convention: the shape-only ops
 * (a dense copy, none when in place), transpose / SwapAxis (permuted strides), broadcasts (stride
 * 0), slices (offset + stepped strides), reverse (negative strides), tile and repeat (the output
 * seen as a 2N-d / N+1-d array with stride-0 copy axes, as MXNet computes them) and diag
 * (extraction: stride s1 + s2; from a vector: zeros, then the vector with stride n + 1).
 */
import { type OpRegistry, OpReq, type OpReqType, sliceStart } from '@mx/ops';
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import { denseStrides, itemBytes, norm, reg, skip } from './common.js';
import { copyDense, copyStrided, zeroBlob } from './strided.js';

type OptIdx = readonly (number | null)[];

/** Input shape left-padded with 1s to `ndim`, and its dense strides (0 where padded). */
export function alignRight(shape: readonly number[], ndim: number): [number[], number[]] {
  const st = denseStrides(shape);
  const pad = ndim - shape.length;
  return [
    Array.from({ length: ndim }, (_, i) => (i < pad ? 1 : (shape[i - pad] as number))),
    Array.from({ length: ndim }, (_, i) => (i < pad ? 0 : (st[i - pad] as number))),
  ];
}

/** Copy the view of `x` (element `offset`, `strides`, shaped like `y`) into dense `y`. */
export function viewInto(
  host: CudaHost,
  op: string,
  x: CudaBlob,
  y: CudaBlob,
  r: OpReqType,
  offset: number,
  strides: readonly number[],
  shape: readonly number[] = y.shape,
): void {
  const bytes = itemBytes(y.dtype, op);
  copyStrided(
    host.rt,
    y.dtype,
    shape,
    { ptr: addr(x, op) + offset * bytes, strides },
    { ptr: addr(y, op), strides: denseStrides(shape) },
    r,
    op,
  );
}

export function installLayout(registry: OpRegistry, host: CudaHost): void {
  for (const name of ['Reshape', 'Flatten', 'expand_dims', 'squeeze', 'reshape_like']) {
    reg(registry, host, name, (_a, [x], [r], [y]) => {
      if (skip(r, y)) return;
      copyDense(host.rt, name, x as CudaBlob, y as CudaBlob, r as OpReqType);
    });
  }

  const permute = (op: string, x: CudaBlob, y: CudaBlob, r: OpReqType, perm: readonly number[]) => {
    const st = denseStrides(x.shape);
    viewInto(
      host,
      op,
      x,
      y,
      r,
      0,
      perm.map((p) => st[p] as number),
    );
  };

  reg<{ axes: readonly number[] }>(registry, host, 'transpose', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const n = (x as CudaBlob).shape.length;
    const perm =
      a.axes.length === 0 ? Array.from({ length: n }, (_, i) => n - 1 - i) : a.axes.map((v) => norm(v, n));
    permute('transpose', x as CudaBlob, y as CudaBlob, r as OpReqType, perm);
  });

  reg<{ dim1: number; dim2: number }>(registry, host, 'SwapAxis', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const n = (x as CudaBlob).shape.length;
    const perm = Array.from({ length: n }, (_, i) => i);
    const d1 = norm(a.dim1, n);
    const d2 = norm(a.dim2, n);
    perm[d1] = d2;
    perm[d2] = d1;
    permute('SwapAxis', x as CudaBlob, y as CudaBlob, r as OpReqType, perm);
  });

  for (const name of ['broadcast_to', 'broadcast_axis', 'broadcast_like']) {
    reg(registry, host, name, (_a, [x], [r], [y]) => {
      if (skip(r, y)) return;
      const src = x as CudaBlob;
      const out = y as CudaBlob;
      const [shape, strides] = alignRight(src.shape, out.shape.length);
      viewInto(
        host,
        name,
        src,
        out,
        r as OpReqType,
        0,
        strides.map((s, i) => (shape[i] === out.shape[i] ? s : 0)),
      );
    });
  }

  reg<{ begin: OptIdx; end: OptIdx; step: OptIdx }>(registry, host, 'slice', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as CudaBlob;
    const st = denseStrides(src.shape);
    const { b, s } = sliceStart(src.shape, a.begin, a.step);
    const offset = b.reduce((acc, v, i) => acc + v * (st[i] as number), 0);
    viewInto(
      host,
      'slice',
      src,
      y as CudaBlob,
      r as OpReqType,
      offset,
      st.map((v, i) => v * (s[i] as number)),
    );
  });

  reg<{ axis: number; begin: number }>(registry, host, 'slice_axis', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as CudaBlob;
    const ax = norm(a.axis, src.shape.length);
    const b = norm(a.begin, src.shape[ax] as number);
    const st = denseStrides(src.shape);
    viewInto(host, 'slice_axis', src, y as CudaBlob, r as OpReqType, b * (st[ax] as number), st);
  });

  reg(registry, host, 'slice_like', (_a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as CudaBlob;
    viewInto(host, 'slice_like', src, y as CudaBlob, r as OpReqType, 0, denseStrides(src.shape));
  });

  reg<{ axis: readonly number[] }>(registry, host, 'reverse', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as CudaBlob;
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
    viewInto(host, 'reverse', src, y as CudaBlob, r as OpReqType, offset, strides);
  });

  reg<{ reps: readonly number[] }>(registry, host, 'tile', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as CudaBlob;
    const n = Math.max(src.shape.length, a.reps.length);
    const [shape, strides] = alignRight(src.shape, n);
    const reps = Array.from({ length: n }, (_, i) =>
      i < n - a.reps.length ? 1 : (a.reps[i - (n - a.reps.length)] as number),
    );
    // Output (r0*d0, r1*d1, ...) is the dense 2N-d array (r0, d0, r1, d1, ...); rep axes stride 0.
    const vshape = shape.flatMap((d, i) => [reps[i] as number, d]);
    const vstrides = strides.flatMap((s) => [0, s]);
    viewInto(host, 'tile', src, y as CudaBlob, r as OpReqType, 0, vstrides, vshape);
  });

  reg<{ repeats: number; axis: number | null }>(registry, host, 'repeat', (a, [x], [r], [y]) => {
    if (skip(r, y) || a.repeats === 0) return;
    const src = x as CudaBlob;
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
    viewInto(host, 'repeat', src, y as CudaBlob, r as OpReqType, 0, vstrides, vshape);
  });

  reg<{ k: number; axis1: number; axis2: number }>(registry, host, 'diag', (a, [x], [r], [y]) => {
    if (skip(r, y)) return;
    const src = x as CudaBlob;
    const out = y as CudaBlob;
    const req = r as OpReqType;
    if (src.shape.length === 1) {
      // Zeros with the vector on diagonal k; with req add only the diagonal changes.
      const n = out.shape[0] as number;
      if (req !== OpReq.add) zeroBlob(host.rt, out, 'diag');
      if (src.size === 0) return;
      const bytes = itemBytes(out.dtype, 'diag');
      const start = a.k >= 0 ? a.k : -a.k * n;
      copyStrided(
        host.rt,
        out.dtype,
        src.shape,
        { ptr: addr(src, 'diag'), strides: [1] },
        { ptr: addr(out, 'diag') + start * bytes, strides: [n + 1] },
        req === OpReq.add ? OpReq.add : OpReq.write,
        'diag',
      );
      return;
    }
    const nd = src.shape.length;
    const a1 = norm(a.axis1, nd);
    const a2 = norm(a.axis2, nd);
    const st = denseStrides(src.shape);
    const s1 = st[a1] as number;
    const s2 = st[a2] as number;
    const strides = [...st.filter((_, i) => i !== a1 && i !== a2), s1 + s2];
    viewInto(host, 'diag', src, out, req, a.k >= 0 ? a.k * s2 : -a.k * s1, strides);
  });
}
