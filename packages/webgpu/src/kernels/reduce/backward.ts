/**
 * The reduce family's backward ops on webgpu, used by gradients:
 *
 * - `_broadcast_backward`: a sum of the gradient over the axes broadcasting added or stretched,
 *   run by the reduce engine (reduce-into.ts; equal shapes reduce nothing, i.e. a copy with req);
 * - `_backward_sum` / `_backward_mean`: the head gradient spread back over the reduced axes, one
 *   invocation per output element reading og through merged segments (stride 0 on reduced ones);
 *   mean divides by the count (integers truncate, as C++);
 * - `_backward_topk`: ograd scattered to the `indices` positions along the axis, zeros elsewhere.
 *   One invocation per lane walks its k entries in order, so repeated indices accumulate without
 *   atomics (WGSL has no float atomics); indices outside [0, n) are skipped (cpu-wasm throws, but a
 *   GPU kernel cannot fail per element).
 */
import { MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, main1d, paramsDecl, wgslType } from '../../wgsl.js';
import { fillBlob } from '../init/fill.js';
import { laneGeometry, MAX_SEG, REDUCE_DTYPES, reducedFlags, unsupported } from './geometry.js';
import { reduceInto } from './reduce-into.js';

const MAX_SPREAD = 2 * MAX_SEG;
const SIZES_AT = 6;
const STRIDES_AT = SIZES_AT + MAX_SPREAD;
const SPREAD_WORDS = STRIDES_AT + MAX_SPREAD;

/** Axes of `grad` that NumPy broadcasting added or stretched to reach it from `like`. */
function broadcastFlags(grad: readonly number[], like: readonly number[]): boolean[] {
  const off = grad.length - like.length;
  return grad.map((d, i) => {
    const l = i - off < 0 ? 1 : (like[i - off] as number);
    return l === 1 && d !== 1;
  });
}

interface AxesAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
}

function spreadSource(mean: boolean, dtype: GpuBlob['dtype'], decls: string, names: string[]): string {
  const [G, O] = names as [string, string];
  const t = wgslType(dtype).scalar;
  const val = mean ? (t === 'f32' ? `${G}[src] / f32(pu(3u))` : `${G}[src] / ${t}(pu(3u))`) : `${G}[src]`;
  return `${paramsDecl(SPREAD_WORDS)}${decls}${main1d(
    256,
    'pu(2u)',
    `  var src = pu(1u);
  var rem = i;
  for (var d = pu(5u); d > 0u; d--) {
    let sz = pu(${SIZES_AT}u + d - 1u);
    src += (rem % sz) * pu(${STRIDES_AT}u + d - 1u);
    rem /= sz;
  }
  let v = ${val};
  let at = pu(0u) + i;
  if (pu(4u) != 0u) { ${O}[at] = ${O}[at] + v; } else { ${O}[at] = v; }`,
  )}`;
}

function spread(
  rt: WebGpuRuntime,
  name: string,
  a: AxesAttrs,
  og: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  mean: boolean,
) {
  for (const d of [og.dtype, out.dtype])
    if (!REDUCE_DTYPES.includes(d)) throw unsupported(name, d, REDUCE_DTYPES);
  if (req === OpReq.null || out.size === 0 || out.ptr === null || og.ptr === null) return;
  const shape = out.shape;
  const flags = reducedFlags(shape.length, a.axis, a.exclude);
  // Merged segments of the output shape; og strides (dense over kept axes), 0 on reduced ones.
  const segs: { size: number; stride: number; red: boolean }[] = [];
  let ogStride = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = shape[i] as number;
    const red = flags[i] as boolean;
    if (d === 1) continue;
    const first = segs[0];
    if (first !== undefined && first.red === red) first.size *= d;
    else segs.unshift({ size: d, stride: red ? 0 : ogStride, red });
    if (!red) ogStride *= d;
  }
  if (segs.length > MAX_SPREAD) {
    throw new MXNetError(`${name} on webgpu handles at most ${MAX_SPREAD} alternating axis groups`, {
      op: name,
      shapes: [og.shape, out.shape],
      device: 'gpu(0)',
      hint: 'reshape so adjacent axes of the same role merge, or run on cpu(0)',
    });
  }
  const words = new Array<number>(SPREAD_WORDS).fill(0);
  const count = og.size === 0 ? 1 : out.size / og.size;
  words.splice(
    0,
    6,
    elemOffset(out),
    elemOffset(og),
    out.size,
    count,
    req === OpReq.add ? 1 : 0,
    segs.length,
  );
  segs.forEach((s, i) => {
    words[SIZES_AT + i] = s.size;
    words[STRIDES_AT + i] = s.stride;
  });
  const bind = bindBlobs([og, out]);
  const entry = rt.pipeline(
    `reduce:spread:${mean ? 'mean' : 'sum'}:${out.dtype}:${bind.key}`,
    () => {
      const { decls, names } = declareArrays(bind, [og.dtype, out.dtype]);
      return spreadSource(mean, out.dtype, decls, names);
    },
    SPREAD_WORDS,
  );
  rt.dispatch(entry, bind.buffers, words, grid1d(out.size, 256));
}

function scatterSource(decls: string, names: string[]): string {
  const [G, I, O] = names as [string, string, string];
  return `${paramsDecl(8)}${decls}${main1d(
    64,
    'pu(3u)',
    `  let n = pu(4u); let inner = pu(5u); let k = pu(6u);
  let o = i / inner; let kk = i % inner;
  for (var j = 0u; j < k; j++) {
    let p = o * k * inner + kk + j * inner;
    let s = i32(${I}[pu(1u) + p]);
    if (s >= 0i && u32(s) < n) {
      let q = pu(2u) + o * n * inner + kk + u32(s) * inner;
      ${O}[q] = ${O}[q] + ${G}[pu(0u) + p];
    }
  }`,
  )}`;
}

function topkScatter(
  rt: WebGpuRuntime,
  axis: number | null,
  og: GpuBlob,
  ind: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
) {
  const name = '_backward_topk';
  for (const d of [og.dtype, ind.dtype, out.dtype])
    if (!REDUCE_DTYPES.includes(d)) throw unsupported(name, d, REDUCE_DTYPES);
  if (req === OpReq.null || out.size === 0 || out.ptr === null) return;
  if (req !== OpReq.add) fillBlob(rt, name, out, OpReq.write, 0);
  if (og.size === 0 || og.ptr === null || ind.ptr === null) return;
  const [outer, n, inner] = laneGeometry(out.shape, axis);
  const lanes = outer * inner;
  const k = og.size / lanes;
  const bind = bindBlobs([og, ind, out]);
  const entry = rt.pipeline(
    `reduce:topk-scatter:${out.dtype}:${ind.dtype}:${bind.key}`,
    () => {
      const { decls, names } = declareArrays(bind, [og.dtype, ind.dtype, out.dtype]);
      return scatterSource(decls, names);
    },
    8,
  );
  const words = [elemOffset(og), elemOffset(ind), elemOffset(out), lanes, n, inner, k];
  rt.dispatch(entry, bind.buffers, words, grid1d(lanes, 64));
}

export function installReduceBackward(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    '_broadcast_backward',
    'webgpu',
    gpuKernel(
      gpu,
      '_broadcast_backward',
      (_a, inputs, req, outputs) => {
        const g = inputs[0] as GpuBlob;
        const out = outputs[0] as GpuBlob;
        if (!REDUCE_DTYPES.includes(g.dtype))
          throw unsupported('_broadcast_backward', g.dtype, REDUCE_DTYPES);
        const flags = broadcastFlags(g.shape, out.shape);
        reduceInto(gpu.rt, '_broadcast_backward', 'sum', 'none', g, g.shape, flags, out, req[0] as OpReqType);
      },
      REDUCE_DTYPES,
    ),
  );
  for (const [name, mean] of [
    ['_backward_sum', false],
    ['_backward_mean', true],
  ] as const) {
    registry.registerKernel(
      name,
      'webgpu',
      gpuKernel<AxesAttrs>(
        gpu,
        name,
        (a, inputs, req, outputs) =>
          spread(gpu.rt, name, a, inputs[0] as GpuBlob, outputs[0] as GpuBlob, req[0] as OpReqType, mean),
        REDUCE_DTYPES,
      ),
    );
  }
  registry.registerKernel(
    '_backward_topk',
    'webgpu',
    gpuKernel<{ axis: number | null } & Attrs>(
      gpu,
      '_backward_topk',
      (a, inputs, req, outputs) =>
        topkScatter(
          gpu.rt,
          a.axis,
          inputs[0] as GpuBlob,
          inputs[1] as GpuBlob,
          outputs[0] as GpuBlob,
          req[0] as OpReqType,
        ),
      REDUCE_DTYPES,
    ),
  );
}
