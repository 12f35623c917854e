/**
 * Pooling and _backward_Pooling on webgpu: direct kernels, no atomics.
 *
 * - forward: one invocation per output, looping over its window (clipped to the input; padding
 *   never wins a max; avg divides by the window clipped to the padded extent when
 *   count_include_pad, else by its real elements; lp2 takes the square root, lp3 the cube root).
 * - backward: one invocation per *input* element gathers the gradient of every output whose window
 *   covers it, so each dX element has one writer (req write/add are plain stores). Max routes an
 *   output's gradient to the first window element (row-major) equal to the output, as MXNet and
 *   cpu-wasm do: a first pass records that element per output (u32 scratch), the gather compares.
 *
 * Geometry is 3-D (1-D/2-D get unit leading axes) with element strides per axis, which covers the
 * channel-first and channel-last layouts alike. Semantics follow cpu-wasm's pool-run.ts.
 */
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import { bindBlobs, declareArrays, elemOffset } from '../../../wgsl.js';
import { checkF32 } from '../../linalg/dot.js';
import { to3 } from './geometry.js';
import { argmaxSource, forwardSource, gatherSource, type Kind, Q, WG, WORDS } from './pool-wgsl.js';

interface PoolAttrs extends Attrs {
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly pad: readonly number[];
  readonly pool_type: 'max' | 'avg' | 'sum' | 'lp';
  readonly global_pool: boolean;
  readonly p_value: number | null;
  readonly count_include_pad: boolean | null;
  readonly layout: string | null;
}

function kindOf(p: PoolAttrs): Kind {
  if (p.pool_type !== 'lp') return p.pool_type;
  return p.p_value === 2 ? 'lp2' : p.p_value === 3 ? 'lp3' : 'sum';
}

function words(p: PoolAttrs, data: readonly number[], out: readonly number[]): number[] {
  const nd = data.length;
  const cl = p.layout !== null && !p.layout.startsWith('NC');
  const sp = cl ? data.slice(1, nd - 1) : data.slice(2);
  const osp = cl ? out.slice(1, nd - 1) : out.slice(2);
  const k = p.global_pool ? sp : p.kernel;
  const s = p.global_pool || p.stride.length === 0 ? sp.map(() => 1) : p.stride;
  const pd = p.global_pool || p.pad.length === 0 ? sp.map(() => 0) : p.pad;
  const ch = (cl ? data[nd - 1] : data[1]) as number;
  const w = new Array<number>(WORDS).fill(0);
  const put = (at: number, v: readonly number[]) =>
    v.forEach((x, i) => {
      w[at + i] = x;
    });
  const ext = to3(sp, 1);
  const oext = to3(osp, 1);
  put(Q.IN, ext);
  put(Q.OUT, oext);
  put(Q.K, to3(k, 1));
  put(Q.S, to3(s, 1));
  put(Q.PAD, to3(pd, 0));
  const strides = (e: readonly number[]) => {
    const [d, h, ww] = e as [number, number, number];
    const unit = cl ? ch : 1;
    return [d * h * ww * ch, cl ? 1 : d * h * ww, h * ww * unit, ww * unit, unit];
  };
  put(Q.IS, strides(ext));
  put(Q.OS, strides(oext));
  w[Q.CH] = ch;
  w[Q.INCLUDE_PAD] = (p.count_include_pad ?? true) ? 1 : 0;
  return w;
}

function forward(rt: WebGpuRuntime, p: PoolAttrs, x: GpuBlob, y: GpuBlob, req: OpReqType): void {
  checkF32('Pooling', [x, y]);
  if (req === OpReq.null || y.size === 0 || x.size === 0) return;
  const kind = kindOf(p);
  const acc = req === OpReq.add;
  const b = bindBlobs([x, y]);
  const { decls, names } = declareArrays(b, ['float32', 'float32']);
  const [X, Y] = names as [string, string];
  const entry = rt.pipeline(
    `pool-fwd:${kind}:${acc ? 1 : 0}:${b.key}`,
    () => forwardSource(kind, acc, decls, X, Y),
    WORDS,
  );
  const w = words(p, x.shape, y.shape);
  w[Q.TOTAL] = y.size;
  w[Q.OFF_X] = elemOffset(x);
  w[Q.OFF_Y] = elemOffset(y);
  rt.dispatch(entry, b.buffers, w, grid1d(y.size, WG));
}

function backward(
  rt: WebGpuRuntime,
  p: PoolAttrs,
  dy: GpuBlob,
  x: GpuBlob,
  y: GpuBlob,
  dx: GpuBlob,
  req: OpReqType,
): void {
  checkF32('_backward_Pooling', [dy, x, y, dx]);
  if (req === OpReq.null || dx.size === 0) return;
  const kind = kindOf(p);
  const acc = req === OpReq.add;
  const w = words(p, x.shape, y.shape);
  w[Q.OFF_X] = elemOffset(x);
  w[Q.OFF_Y] = elemOffset(y);
  w[Q.OFF_DY] = elemOffset(dy);
  w[Q.OFF_DX] = elemOffset(dx);
  const empty = y.size === 0;
  let idx: GpuBlob | null = null;
  if (kind === 'max' && !empty) {
    const buf = rt.createBuffer(y.size * 4);
    idx = { ptr: buf, byteOffset: 0, shape: [y.size], dtype: 'uint32', size: y.size };
    const b = bindBlobs([x, y, idx]);
    const { decls, names } = declareArrays(b, ['float32', 'float32', 'uint32']);
    const [X, Y, I] = names as [string, string, string];
    const entry = rt.pipeline(`pool-argmax:${b.key}`, () => argmaxSource(decls, X, Y, I), WORDS);
    rt.dispatch(entry, b.buffers, [y.size, ...w.slice(1)], grid1d(y.size, WG));
  }
  // Bind only what the gather reads (layout 'auto' drops unused bindings); with no outputs every
  // gradient is zero and dy is never read.
  const k2: Kind = empty ? 'sum' : kind;
  const lp = k2 === 'lp2' || k2 === 'lp3';
  const blobs: GpuBlob[] = [empty ? dx : dy, dx, ...(lp ? [x, y] : []), ...(idx ? [idx] : [])];
  const b = bindBlobs(blobs);
  const { decls, names } = declareArrays(
    b,
    blobs.map((t) => t.dtype),
  );
  const [DY, DX, X, Y, I] = lp
    ? (names as [string, string, string, string])
    : [names[0] as string, names[1] as string, '', '', names[2] ?? ''];
  const entry = rt.pipeline(
    `pool-bwd:${k2}:${acc ? 1 : 0}:${b.key}`,
    () => gatherSource(k2, acc, decls, { DY, X, Y, DX, I: I ?? '' }),
    WORDS,
  );
  if (empty) for (const q of [Q.OUT, Q.OUT + 1, Q.OUT + 2]) w[q] = 0;
  w[Q.TOTAL] = dx.size;
  rt.dispatch(entry, b.buffers, w, grid1d(dx.size, WG));
  if (idx?.ptr) rt.release(idx.ptr);
}

export function installPooling(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'Pooling',
    'webgpu',
    gpuKernel<PoolAttrs>(
      gpu,
      'Pooling',
      (p, inputs, req, outputs) =>
        forward(gpu.rt, p, inputs[0] as GpuBlob, outputs[0] as GpuBlob, req[0] ?? OpReq.write),
      ['float32'],
    ),
  );
  registry.registerKernel(
    '_backward_Pooling',
    'webgpu',
    gpuKernel<PoolAttrs>(
      gpu,
      '_backward_Pooling',
      (p, inputs, req, outputs) => {
        const [dy, x, y] = inputs as [GpuBlob, GpuBlob, GpuBlob];
        backward(gpu.rt, p, dy, x, y, outputs[0] as GpuBlob, req[0] ?? OpReq.write);
      },
      ['float32'],
    ),
  );
}
