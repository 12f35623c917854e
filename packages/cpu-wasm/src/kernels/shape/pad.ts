/**
 * cpu-wasm kernels for Pad and diag, built from strided copies and fills.
 *
 * Pad copies the input into the interior of the output, then (constant) fills the borders, or
 * (edge, reflect) fills them axis by axis from the output itself: for axis k the slab spans the
 * full padded range on axes < k (already complete) and the interior on axes > k, and its border
 * rows are a stride-0 (edge) or stride -1 (reflect) view of the interior — so no index tables.
 * diag extracts a diagonal as one view with stride (s1 + s2), and builds a matrix from a vector
 * by zero-filling and copying the vector with stride n + 1.
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { fillDense } from './dtype-bits.js';
import { addr, type Blob, defineKernel, withTarget } from './kernel-util.js';
import { copyStrided, dense, denseStrides } from './strided-copy.js';

const WRITE: OpReqType = OpReq.write;

/**
 * Copies `count` rows of axis k starting at row `from` (stepping `step`, possibly 0 or -1) onto
 * rows starting at `to` (stepping 1), within the axis-k slab, with `req` (write or add).
 */
export type SlabRows = (from: number, step: number, to: number, count: number, req: OpReqType) => void;

/**
 * Visit Pad's border slabs of a dense padded array at `base` (shape `padded`, interior `inner`,
 * MXNet `pad_width`): for each padded axis k — ascending as the forward fills them, or descending
 * for the gradient, which undoes them — the slab spans the full range on axes < k and the interior
 * on axes > k, and `visit` moves rows within it.
 */
export function padSlabs(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  padded: readonly number[],
  inner: readonly number[],
  pw: readonly number[],
  base: number,
  descending: boolean,
  visit: (lo: number, len: number, hi: number, rows: SlabRows) => void,
): void {
  const n = inner.length;
  const bytes = rt.itemSize(dtype);
  const ost = denseStrides(padded);
  const at = (idx: readonly number[]) =>
    base + idx.reduce((acc, v, i) => acc + v * (ost[i] as number), 0) * bytes;
  for (let j = 0; j < n; j++) {
    const k = descending ? n - 1 - j : j;
    const len = inner[k] as number;
    const lo = pw[2 * k] as number;
    const hi = pw[2 * k + 1] as number;
    if (lo + hi === 0) continue;
    const shape = padded.map((d, i) => (i < k ? d : (inner[i] as number)));
    const origin = Array.from({ length: n }, (_, i) => (i < k ? 0 : (pw[2 * i] as number)));
    if (shape.some((d, i) => i !== k && d === 0)) continue;
    const sk = ost[k] as number;
    visit(lo, len, hi, (from, step, to, count, req) => {
      if (count === 0) return;
      const src = [...origin];
      src[k] = from;
      const dst = [...origin];
      dst[k] = to;
      const sh = [...shape];
      sh[k] = count;
      const sst = [...ost];
      sst[k] = step * sk;
      copyStrided(rt, dtype, sh, { addr: at(src), strides: sst }, { addr: at(dst), strides: ost }, req);
    });
  }
}

function padInto(
  rt: CpuWasmRuntime,
  src: Blob,
  t: Blob,
  mode: string,
  pw: readonly number[],
  value: number,
): void {
  const n = src.shape.length;
  const bytes = rt.itemSize(t.dtype);
  const ost = denseStrides(t.shape);
  const base = addr(rt, t);
  const at = (idx: readonly number[]) =>
    base + idx.reduce((acc, v, i) => acc + v * (ost[i] as number), 0) * bytes;
  const before = Array.from({ length: n }, (_, i) => pw[2 * i] as number);
  if (mode === 'constant') fillDense(rt, t.dtype, base, t.size, value);
  if (src.size > 0)
    copyStrided(
      rt,
      t.dtype,
      src.shape,
      dense(addr(rt, src), src.shape),
      { addr: at(before), strides: ost },
      WRITE,
    );
  if (mode === 'constant') return;
  padSlabs(rt, t.dtype, t.shape, src.shape, pw, base, false, (lo, len, hi, rows) => {
    const region = (start: number, count: number, from: number, step: number) =>
      rows(from, step, start, count, WRITE);
    if (mode === 'edge') {
      region(0, lo, lo, 0);
      region(lo + len, hi, lo + len - 1, 0);
    } else {
      // reflect: out[lo - 1 - i] = out[lo + 1 + i]; out[lo + len + i] = out[lo + len - 2 - i].
      region(0, lo, 2 * lo, -1);
      region(lo + len, hi, lo + len - 2, -1);
    }
  });
}

export function installPad(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<{ mode: string; pad_width: readonly number[]; constant_value: number }>(
    registry,
    'Pad',
    (a, [x], [r], [y]) => {
      const src = x as Blob;
      withTarget(rt, y as Blob, r as OpReqType, 'Pad', (t) =>
        padInto(rt, src, t, a.mode, a.pad_width, a.constant_value),
      );
    },
  );

  defineKernel<{ k: number; axis1: number; axis2: number }>(registry, 'diag', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const bytes = rt.itemSize(src.dtype);
    if (src.shape.length === 1) {
      withTarget(rt, out, r as OpReqType, 'diag', (t) => {
        const n = t.shape[0] as number;
        const base = addr(rt, t);
        fillDense(rt, t.dtype, base, t.size, 0);
        const start = a.k >= 0 ? a.k : -a.k * n;
        copyStrided(
          rt,
          t.dtype,
          src.shape,
          dense(addr(rt, src), src.shape),
          { addr: base + start * bytes, strides: [n + 1] },
          WRITE,
        );
      });
      return;
    }
    const nd = src.shape.length;
    const a1 = a.axis1 < 0 ? a.axis1 + nd : a.axis1;
    const a2 = a.axis2 < 0 ? a.axis2 + nd : a.axis2;
    const st = denseStrides(src.shape);
    const s1 = st[a1] as number;
    const s2 = st[a2] as number;
    const strides = [...st.filter((_, i) => i !== a1 && i !== a2), s1 + s2];
    const offset = a.k >= 0 ? a.k * s2 : -a.k * s1;
    copyStrided(
      rt,
      out.dtype,
      out.shape,
      { addr: addr(rt, src) + offset * bytes, strides },
      dense(addr(rt, out), out.shape),
      r as OpReqType,
    );
  });
}
