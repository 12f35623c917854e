/**
 * The shape family's gradients that are the adjoint of one forward view, as cpu-wasm's backward.ts:
 * `_backward_slice`, `_backward_slice_axis`, `_backward_slice_like` and `_backward_diag` (N-d data)
 * zero the output (a memset), then copy ograd into the window the forward read (req add skips the
 * zeroing and adds into the window: its positions are distinct); `_backward_diag` of 1-D data reads
 * the diagonal back with stride n + 1; `_backward_Cast` is the cast kernel (cast.ts).
 */
import { type OpRegistry, OpReq, type OpReqType, sliceStart } from '@mx/ops';
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import { castInto } from './cast.js';
import { denseStrides, itemBytes, norm, reg, skip } from './common.js';
import { copyStrided, zeroBlob } from './strided.js';

type OptIdx = readonly (number | null)[];

/**
 * `out` = zeros except the window at element `offset` with per-axis `strides` (in out's elements),
 * which receives the dense `og`; with req add, og is added into the window.
 */
function scatterWindow(
  host: CudaHost,
  op: string,
  og: CudaBlob,
  out: CudaBlob,
  req: OpReqType,
  offset: number,
  strides: readonly number[],
): void {
  const add = req === OpReq.add;
  if (!add) zeroBlob(host.rt, out, op);
  if (og.size === 0) return;
  const bytes = itemBytes(out.dtype, op);
  copyStrided(
    host.rt,
    out.dtype,
    og.shape,
    { ptr: addr(og, op), strides: denseStrides(og.shape) },
    { ptr: addr(out, op) + offset * bytes, strides },
    add ? OpReq.add : OpReq.write,
    op,
  );
}

export function installBackward(registry: OpRegistry, host: CudaHost): void {
  reg<{ begin: OptIdx; step: OptIdx }>(registry, host, '_backward_slice', (a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as CudaBlob;
    const st = denseStrides(out.shape);
    const { b, s } = sliceStart(out.shape, a.begin, a.step);
    const offset = b.reduce((acc, v, i) => acc + v * (st[i] as number), 0);
    scatterWindow(
      host,
      '_backward_slice',
      g as CudaBlob,
      out,
      r as OpReqType,
      offset,
      st.map((v, i) => v * (s[i] as number)),
    );
  });

  reg<{ axis: number; begin: number }>(registry, host, '_backward_slice_axis', (a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as CudaBlob;
    const ax = norm(a.axis, out.shape.length);
    const b = norm(a.begin, out.shape[ax] as number);
    const st = denseStrides(out.shape);
    scatterWindow(
      host,
      '_backward_slice_axis',
      g as CudaBlob,
      out,
      r as OpReqType,
      b * (st[ax] as number),
      st,
    );
  });

  reg(registry, host, '_backward_slice_like', (_a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as CudaBlob;
    scatterWindow(
      host,
      '_backward_slice_like',
      g as CudaBlob,
      out,
      r as OpReqType,
      0,
      denseStrides(out.shape),
    );
  });

  reg<{ k: number; axis1: number; axis2: number }>(registry, host, '_backward_diag', (a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const og = g as CudaBlob;
    const out = y as CudaBlob;
    const bytes = itemBytes(out.dtype, '_backward_diag');
    if (out.shape.length === 1) {
      // diag built a matrix from the vector: read the vector back off diagonal k.
      const n = og.shape[1] as number;
      const start = a.k >= 0 ? a.k : -a.k * n;
      copyStrided(
        host.rt,
        out.dtype,
        out.shape,
        { ptr: addr(og, '_backward_diag') + start * bytes, strides: [n + 1] },
        { ptr: addr(out, '_backward_diag'), strides: [1] },
        r as OpReqType,
        '_backward_diag',
      );
      return;
    }
    const nd = out.shape.length;
    const a1 = norm(a.axis1, nd);
    const a2 = norm(a.axis2, nd);
    const st = denseStrides(out.shape);
    const s1 = st[a1] as number;
    const s2 = st[a2] as number;
    const strides = [...st.filter((_, i) => i !== a1 && i !== a2), s1 + s2];
    scatterWindow(host, '_backward_diag', og, out, r as OpReqType, a.k >= 0 ? a.k * s2 : -a.k * s1, strides);
  });

  reg(registry, host, '_backward_Cast', (_a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    castInto(host.rt, '_backward_Cast', g as CudaBlob, y as CudaBlob, r as OpReqType);
  });
}
