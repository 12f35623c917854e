/**
 * Pad and the gradients that are one masked view of ograd (view.ts, fill 0 outside the window):
 * `_backward_slice` / `_backward_slice_axis` / `_backward_slice_like` (mode-1 axes: the positions
 * the forward read, steps included), `_backward_diag` (the diagonal coupling; for 1-D data the
 * diagonal read back with stride n + 1), and `_backward_Cast` (an elementwise conversion with
 * cpu-wasm's astype semantics: float → int truncates and wraps modulo 2^32, NaN/inf → 0,
 * anything → bool is != 0). Pad itself is one view: constant = mode 1 + fill, edge = clamp,
 * reflect = reflection, so it is a single pass with req add for free.
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType, sliceStart } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, elemOffset, load, paramsDecl, wgslType } from '../../wgsl.js';
import { denseStrides, detach, dispatchWriter, header, norm, reg, skip, writerMain } from './common.js';
import { runView, type ViewDim } from './view.js';

type OptIdx = readonly (number | null)[];

/** out = zeros except axis d's positions b_d + t * st_d (t < cnt_d), which get og (dense). */
function scatterWindow(
  gpu: GpuHost,
  op: string,
  og: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  b: readonly number[],
  st: readonly number[],
): void {
  const gst = denseStrides(og.shape);
  const dims: ViewDim[] = out.shape.map((n, i) => ({
    n,
    stride: gst[i] as number,
    mode: 1,
    b: b[i] as number,
    st: st[i] as number,
    cnt: og.shape[i] as number,
  }));
  runView(gpu.rt, op, og, out, req, { dims, fill: 0 });
}

function castSource(from: DTypeName, to: DTypeName, add: boolean, alias: boolean): string {
  const tf = wgslType(from);
  const tt = wgslType(to);
  const x = load(alias ? 'b0' : 'b1', from, 'pu(8u) + e');
  let conv: string;
  if (tt.packed === 4)
    conv =
      tf.scalar === 'u32' || tf.scalar === 'i32'
        ? `select(0u, 1u, x != ${tf.scalar}(0))`
        : `select(0u, 1u, x != ${tf.scalar}(0.0))`;
  else if (tt.scalar === 'f32' || tt.scalar === 'f16') conv = `${tt.scalar}(x)`;
  else if (tf.scalar === 'f32' || tf.scalar === 'f16') {
    // Truncate, wrap modulo 2^32 (JS typed-array stores), NaN/inf -> 0: exact in f32 arithmetic.
    const w = `wrapU(f32(x))`;
    conv = tt.scalar === 'u32' ? w : `bitcast<i32>(${w})`;
  } else conv = tf.scalar === tt.scalar ? 'x' : `bitcast<${tt.scalar}>(x)`;
  const sto = (s: string) =>
    `@group(0) @binding(${s === 'b0' ? 1 : 2}) var<storage, read_write> ${s}: array<${s === 'b0' ? tt.storage : tf.storage}>;\n`;
  return `${header([from, to])}${paramsDecl(12)}${sto('b0')}${alias ? '' : sto('b1')}
fn wrapU(v: f32) -> u32 {
  if (v != v || abs(v) > 3.4e38) { return 0u; }
  let t = trunc(v);
  if (abs(t) < 2147483648.0) { return bitcast<u32>(i32(t)); }
  let m = t - floor(t / 4294967296.0) * 4294967296.0;
  return u32(m);
}
fn val(e: u32) -> ${tt.scalar} {
  let x = ${x};
  return ${conv};
}
${writerMain(to, add, 'none', 'b0')}`;
}

function cast(rt: WebGpuRuntime, src: GpuBlob, out: GpuBlob, req: OpReqType): void {
  const { blob: s, done } = detach(rt, src, out);
  const bind = bindBlobs([out, s]);
  const alias = bind.buffers.length === 1;
  const add = req === OpReq.add;
  const entry = rt.pipeline(
    `shape-cast:${src.dtype}:${out.dtype}:${add ? 'add' : 'w'}:${alias ? 'a' : ''}`,
    () => castSource(src.dtype, out.dtype, add, alias),
    12,
  );
  dispatchWriter(rt, entry, bind.buffers, out, 0, out.size, 0, [elemOffset(s)]);
  done();
}

export function installBackward(registry: OpRegistry, gpu: GpuHost): void {
  reg<{ mode: string; pad_width: readonly number[]; constant_value: number }>(
    registry,
    gpu,
    'Pad',
    (a, [x], [r], [y]) => {
      if (skip(r, y)) return;
      const src = x as GpuBlob;
      const out = y as GpuBlob;
      const st = denseStrides(src.shape);
      const mode = a.mode === 'constant' ? 1 : a.mode === 'edge' ? 2 : 3;
      const dims: ViewDim[] = out.shape.map((n, i) => ({
        n,
        stride: st[i] as number,
        mode,
        b: a.pad_width[2 * i] ?? 0,
        st: 1,
        cnt: src.shape[i] as number,
      }));
      runView(gpu.rt, 'Pad', src, out, r as OpReqType, { dims, fill: a.constant_value });
    },
  );

  reg<{ begin: OptIdx; step: OptIdx }>(registry, gpu, '_backward_slice', (a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as GpuBlob;
    const { b, s } = sliceStart(out.shape, a.begin, a.step);
    scatterWindow(gpu, '_backward_slice', g as GpuBlob, out, r as OpReqType, b, s);
  });

  reg<{ axis: number; begin: number }>(registry, gpu, '_backward_slice_axis', (a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as GpuBlob;
    const ax = norm(a.axis, out.shape.length);
    const b = out.shape.map((_, i) => (i === ax ? norm(a.begin, out.shape[ax] as number) : 0));
    scatterWindow(
      gpu,
      '_backward_slice_axis',
      g as GpuBlob,
      out,
      r as OpReqType,
      b,
      b.map(() => 1),
    );
  });

  reg(registry, gpu, '_backward_slice_like', (_a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as GpuBlob;
    const zeros = out.shape.map(() => 0);
    scatterWindow(
      gpu,
      '_backward_slice_like',
      g as GpuBlob,
      out,
      r as OpReqType,
      zeros,
      zeros.map(() => 1),
    );
  });

  reg<{ k: number; axis1: number; axis2: number }>(registry, gpu, '_backward_diag', (a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    const og = g as GpuBlob;
    const out = y as GpuBlob;
    if (out.shape.length === 1) {
      // diag built a matrix from the vector: read the vector back off diagonal k.
      const n = og.shape[1] as number;
      runView(gpu.rt, '_backward_diag', og, out, r as OpReqType, {
        dims: [{ n: out.size, stride: n + 1 }],
        offset: a.k >= 0 ? a.k : -a.k * n,
      });
      return;
    }
    const nd = out.shape.length;
    const a1 = norm(a.axis1, nd);
    const a2 = norm(a.axis2, nd);
    const gst = denseStrides(og.shape);
    let j = 0;
    const dims: ViewDim[] = out.shape.map((n, i) => {
      if (i === a1) return { n, stride: a.k >= 0 ? 1 : 0 };
      if (i === a2) return { n, stride: a.k >= 0 ? 0 : 1 };
      return { n, stride: gst[j++] as number };
    });
    runView(gpu.rt, '_backward_diag', og, out, r as OpReqType, {
      dims,
      diag: { a: a1, b: a2, k: a.k },
      fill: 0,
    });
  });

  reg(registry, gpu, '_backward_Cast', (_a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    cast(gpu.rt, g as GpuBlob, y as GpuBlob, r as OpReqType);
  });
}
