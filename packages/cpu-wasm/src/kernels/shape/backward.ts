/**
 * cpu-wasm kernels of the shape family's backward ops (and reshape_like, the reshape gradients
 * use). Each is the adjoint of a forward kernel's data movement, built from the same strided
 * copies:
 *
 * - `_backward_slice`, `_backward_slice_axis`, `_backward_slice_like`, `_backward_diag` (N-d):
 *   zero the output, then copy ograd into the window the forward read (req=add skips the zeroing
 *   and adds into the window: the positions are distinct);
 * - `_backward_diag` (1-D data), `_backward_Concat`: the forward's window read back;
 * - `_backward_take`, `_backward_pick`: scatter-adds of ograd at the resolved indices (repeated
 *   indices accumulate), blocks of 64 bytes or more through the wasm add loop;
 * - `_backward_Pad`: ograd's interior; for edge/reflect the padding is first folded back, axis by
 *   axis in the reverse of the forward's order, onto the rows it was copied from;
 * - `_backward_Cast`: the Cast kernel (output dtype from the output blob);
 * - `reshape_like`: a byte copy (none when in place).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType, sliceStart } from '@mx/ops';
import { castKernel } from '../../codegen/cast.js';
import type { CpuWasmRuntime } from '../../runtime.js';
import { dtypeError, fillDense, readIndices } from './dtype-bits.js';
import { takeWindow } from './join.js';
import { addr, BACKEND, type Blob, copyBlob, defineKernel } from './kernel-util.js';
import { padSlabs } from './pad.js';
import { copyStrided, dense, denseStrides } from './strided-copy.js';

type OptIdx = readonly (number | null)[];

const norm = (a: number, n: number) => (a < 0 ? a + n : a);

/** Dtypes the scatter-add kernels accumulate in (JS arithmetic on typed views). */
const SCATTER_DTYPES: readonly DTypeName[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'];

function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** Resolve an index into [0, k): `wrap` takes it modulo k, otherwise it is clipped. */
function resolve(j: number, k: number, mode: string): number {
  if (mode === 'wrap') {
    const m = j % k;
    return m < 0 ? m + k : m;
  }
  return j < 0 ? 0 : j >= k ? k - 1 : j;
}

/** Zero `out` unless req is add (then the kernel adds into what is there). */
function zeroUnlessAdd(rt: CpuWasmRuntime, out: Blob, req: OpReqType): void {
  if (req !== OpReq.add) fillDense(rt, out.dtype, addr(rt, out), out.size, 0);
}

/**
 * `out` = zeros except the window at element `offset` with per-axis `strides` (in out's elements),
 * which receives the dense `og`; with req=add, og is added into the window.
 */
function scatterWindow(
  rt: CpuWasmRuntime,
  og: Blob,
  out: Blob,
  req: OpReqType,
  offset: number,
  strides: readonly number[],
): void {
  if (req === OpReq.null || out.size === 0) return;
  zeroUnlessAdd(rt, out, req);
  if (og.size === 0) return;
  const bytes = DType[out.dtype].bytes;
  copyStrided(
    rt,
    out.dtype,
    og.shape,
    dense(addr(rt, og), og.shape),
    { addr: addr(rt, out) + offset * bytes, strides },
    req === OpReq.add ? OpReq.add : OpReq.write,
  );
}

/** `out[dst..dst+n) += og[src..src+n)` (element offsets), in out's arithmetic. */
function addBlock(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  g: (number | bigint)[],
  o: (number | bigint)[],
  gAddr: number,
  oAddr: number,
  src: number,
  dst: number,
  n: number,
): void {
  const bytes = DType[dtype].bytes;
  if (n * bytes >= 64) {
    copyStrided(
      rt,
      dtype,
      [n],
      { addr: gAddr + src * bytes, strides: [1] },
      { addr: oAddr + dst * bytes, strides: [1] },
      OpReq.add,
    );
    return;
  }
  if (DType[dtype].bigint)
    for (let k = 0; k < n; k++) o[dst + k] = (o[dst + k] as bigint) + (g[src + k] as bigint);
  else for (let k = 0; k < n; k++) o[dst + k] = (o[dst + k] as number) + (g[src + k] as number);
}

function padBackward(
  rt: CpuWasmRuntime,
  og: Blob,
  out: Blob,
  req: OpReqType,
  mode: string,
  pw: readonly number[],
) {
  if (req === OpReq.null || out.size === 0) return;
  const n = out.shape.length;
  const bytes = DType[out.dtype].bytes;
  const before = Array.from({ length: n }, (_, i) => pw[2 * i] as number);
  const ost = denseStrides(og.shape);
  const interior = (base: number) =>
    base + before.reduce((acc, b, i) => acc + b * (ost[i] as number), 0) * bytes;
  const copyOut = (base: number) =>
    copyStrided(
      rt,
      out.dtype,
      out.shape,
      { addr: interior(base), strides: ost },
      dense(addr(rt, out), out.shape),
      req,
    );
  if (mode === 'constant') {
    copyOut(addr(rt, og));
    return;
  }
  // Fold into a scratch copy of ograd, then read its interior.
  const total = og.size * bytes;
  const alloc = rt.memory.allocator;
  const tmp = alloc.alloc(total);
  if (tmp === null)
    throw new MXNetError(`out of memory allocating ${total} bytes of scratch`, {
      op: '_backward_Pad',
      shapes: [og.shape],
      device: BACKEND,
    });
  try {
    copyStrided(rt, og.dtype, [og.size], dense(addr(rt, og), [og.size]), dense(tmp, [og.size]), OpReq.write);
    padSlabs(rt, og.dtype, og.shape, out.shape, pw, tmp, true, (lo, len, hi, rows) => {
      // Add `count` rows starting at `from` (step `step`) into rows starting at `to` (step 1).
      const fold = (from: number, step: number, to: number, count: number) =>
        rows(from, step, to, count, OpReq.add);
      if (mode === 'edge') {
        // Every border row was a copy of the edge row: add them one by one.
        for (let r = 0; r < lo; r++) fold(r, 1, lo, 1);
        for (let r = 0; r < hi; r++) fold(lo + len + r, 1, lo + len - 1, 1);
      } else {
        // reflect: out[lo - 1 - i] came from out[lo + 1 + i]; out[lo + len + i] from out[lo + len - 2 - i].
        fold(lo - 1, -1, lo + 1, lo);
        if (hi > 0) fold(lo + len + hi - 1, -1, lo + len - 1 - hi, hi);
      }
    });
    copyOut(tmp);
  } finally {
    alloc.free(tmp, total);
  }
}

export function installShapeBackward(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel(registry, 'reshape_like', (_a, [x], [r], [y]) =>
    copyBlob(rt, x as Blob, y as Blob, r as OpReqType),
  );

  registry.registerKernel('_backward_Cast', BACKEND, castKernel(rt));

  defineKernel<{ begin: OptIdx; step: OptIdx }>(registry, '_backward_slice', (a, [g], [r], [y]) => {
    const out = y as Blob;
    const st = denseStrides(out.shape);
    const { b, s } = sliceStart(out.shape, a.begin, a.step);
    const offset = b.reduce((acc, v, i) => acc + v * (st[i] as number), 0);
    scatterWindow(
      rt,
      g as Blob,
      out,
      r as OpReqType,
      offset,
      st.map((v, i) => v * (s[i] as number)),
    );
  });

  defineKernel<{ axis: number; begin: number }>(registry, '_backward_slice_axis', (a, [g], [r], [y]) => {
    const out = y as Blob;
    const ax = norm(a.axis, out.shape.length);
    const b = norm(a.begin, out.shape[ax] as number);
    const st = denseStrides(out.shape);
    scatterWindow(rt, g as Blob, out, r as OpReqType, b * (st[ax] as number), st);
  });

  defineKernel(registry, '_backward_slice_like', (_a, [g], [r], [y]) => {
    const out = y as Blob;
    scatterWindow(rt, g as Blob, out, r as OpReqType, 0, denseStrides(out.shape));
  });

  defineKernel<{ k: number; axis1: number; axis2: number }>(
    registry,
    '_backward_diag',
    (a, [g], [r], [y]) => {
      const og = g as Blob;
      const out = y as Blob;
      if (out.size === 0 || r === OpReq.null) return;
      const bytes = DType[out.dtype].bytes;
      if (out.shape.length === 1) {
        // diag built a matrix from the vector: read the vector back off diagonal k.
        const n = og.shape[1] as number;
        const start = a.k >= 0 ? a.k : -a.k * n;
        copyStrided(
          rt,
          out.dtype,
          out.shape,
          { addr: addr(rt, og) + start * bytes, strides: [n + 1] },
          dense(addr(rt, out), out.shape),
          r as OpReqType,
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
      scatterWindow(rt, og, out, r as OpReqType, a.k >= 0 ? a.k * s2 : -a.k * s1, strides);
    },
  );

  defineKernel<{ dim: number }>(registry, '_backward_Concat', (a, inputs, req, outputs) => {
    const og = inputs[0] as Blob;
    const axis = norm(a.dim, og.shape.length);
    let start = 0;
    outputs.forEach((o, i) => {
      const len = o.shape[axis] as number;
      takeWindow(rt, og, o, axis, start, start + len, req[i] as OpReqType);
      start += len;
    });
  });

  defineKernel<{ axis: number; mode: string }>(registry, '_backward_take', (a, [g, ind], [r], [y]) => {
    const og = g as Blob;
    const idxBlob = ind as Blob;
    const out = y as Blob;
    if (out.size === 0 || r === OpReq.null) return;
    if (!SCATTER_DTYPES.includes(out.dtype))
      throw dtypeError('_backward_take', out.dtype, 'no add arithmetic');
    zeroUnlessAdd(rt, out, r as OpReqType);
    const axis = norm(a.axis, out.shape.length);
    const K = out.shape[axis] as number;
    const outer = prod(out.shape, 0, axis);
    const inner = prod(out.shape, axis + 1);
    const N = idxBlob.size;
    if (og.size === 0 || K === 0) return;
    const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), N);
    for (let i = 0; i < N; i++) idx[i] = resolve(idx[i] as number, K, a.mode === 'wrap' ? 'wrap' : 'clip');
    const gv = rt.view(og) as unknown as (number | bigint)[];
    const ov = rt.view(out) as unknown as (number | bigint)[];
    const ga = addr(rt, og);
    const oa = addr(rt, out);
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < N; i++)
        addBlock(
          rt,
          out.dtype,
          gv,
          ov,
          ga,
          oa,
          (o * N + i) * inner,
          (o * K + (idx[i] as number)) * inner,
          inner,
        );
  });

  defineKernel<{ axis: number | null; mode: string }>(registry, '_backward_pick', (a, [g, ind], [r], [y]) => {
    const og = g as Blob;
    const idxBlob = ind as Blob;
    const out = y as Blob;
    if (out.size === 0 || r === OpReq.null) return;
    if (!SCATTER_DTYPES.includes(out.dtype))
      throw dtypeError('_backward_pick', out.dtype, 'no add arithmetic');
    zeroUnlessAdd(rt, out, r as OpReqType);
    const axis = norm(a.axis ?? -1, out.shape.length);
    const M = out.shape[axis] as number;
    const inner = prod(out.shape, axis + 1);
    if (og.size === 0 || M === 0) return;
    const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), idxBlob.size);
    const gv = rt.view(og) as unknown as (number | bigint)[];
    const ov = rt.view(out) as unknown as (number | bigint)[];
    const big = DType[out.dtype].bigint;
    for (let p = 0; p < og.size; p++) {
      const o = Math.floor(p / inner);
      const i = p - o * inner;
      const q = (o * M + resolve(idx[p] as number, M, a.mode)) * inner + i;
      if (big) ov[q] = (ov[q] as bigint) + (gv[p] as bigint);
      else ov[q] = (ov[q] as number) + (gv[p] as number);
    }
  });

  defineKernel<{ mode: string; pad_width: readonly number[] }>(
    registry,
    '_backward_Pad',
    (a, [g], [r], [y]) => padBackward(rt, g as Blob, y as Blob, r as OpReqType, a.mode, a.pad_width),
  );
}
