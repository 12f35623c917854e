/**
 * take and its gradient. take gathers blocks (gather.ts); mode 'raise' first checks every index on
 * the GPU (an atomicMin of the first bad position into a flag) and completes the op with an
 * MXNetError once the flag is read back — as MXNet's GPU take copies its check flag to the host —
 * so the error surfaces where the output is read and later ops are unaffected.
 *
 * `_backward_take` sums ograd blocks over every index resolving to the same row. WebGPU has no
 * float atomics, so it is a gather: for few indices each output element scans the index list; for
 * more, the (row, position) pairs are bitonic-sorted once and each output element binary-searches
 * its row's run. Both add the contributions in ascending position order, so results are
 * deterministic and identical between the two paths.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type Kernel, type OpContext, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, elemOffset, load, main1d, paramsDecl, wgslType } from '../../wgsl.js';
import {
  detach,
  dispatchWriter,
  header,
  KP,
  NUMERIC,
  norm,
  prod,
  reg,
  skip,
  writerMain,
  zeroOf,
} from './common.js';
import { type Geometry, indexFns, run } from './gather.js';

/** Up to this many indices `_backward_take` scans the list instead of sorting it. */
const SCAN_MAX = 64;

const CHECK_SRC = (idxType: DTypeName) => {
  return `${header([idxType])}${paramsDecl(12)}@group(0) @binding(1) var<storage, read_write> flag: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> b1: array<${wgslType(idxType).storage}>;
${indexFns('b1', idxType)}${main1d(
  64,
  'pu(0u)',
  `  let j = idx(i);
  if (j < 0 || j >= i32(pu(1u))) { atomicMin(&flag[0], i); }`,
)}`;
};

/** take with mode 'raise': check on the GPU, gather (as clip), fail the op when the flag is set. */
function takeRaise(
  gpu: GpuHost,
  ctx: OpContext,
  data: GpuBlob,
  ind: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  g: Geometry,
) {
  const rt = gpu.rt;
  const flag = rt.createBuffer(4);
  let ran = false;
  const finish = ctx.onComplete;
  const inner: OpContext = {
    ...ctx,
    onComplete: (err?: unknown) => {
      if (err !== undefined || !ran) {
        rt.release(flag);
        finish?.(err);
        return;
      }
      rt.readBuffer(flag, 0, 4, 'take').then(
        (bytes) => {
          rt.release(flag);
          const pos = new Uint32Array(bytes.buffer, bytes.byteOffset, 1)[0] as number;
          if (pos === 0xffffffff) finish?.();
          else
            finish?.(
              new MXNetError(
                `Take indices contains indices out of bound: index at position ${pos}, axis size ${g.K}`,
                {
                  op: 'take',
                  shapes: [data.shape, ind.shape],
                  device: 'gpu(0)',
                  hint: `indices must lie in [0, ${g.K - 1}] with mode='raise'; use mode='clip' or 'wrap' otherwise`,
                },
              ),
            );
        },
        (e: unknown) => finish?.(e),
      );
    },
  };
  rt.runOp('take', inner, () => {
    rt.writeBuffer(flag, 0, new Uint32Array([0xffffffff]));
    const e = rt.pipeline(`shape-take-check:${ind.dtype}`, () => CHECK_SRC(ind.dtype), 12);
    const di = detach(rt, ind, out);
    rt.dispatch(
      e,
      [flag, di.blob.ptr as GPUBuffer],
      [g.N, g.K, 0, 0, 0, 0, 0, 0, 0, elemOffset(di.blob)],
      grid1d(g.N, 64),
    );
    di.done();
    run(rt, 'take', data, ind, out, req, g);
    ran = true;
  });
}

const SORT_WG = 128;

/** keys[p] = (row of index p, p), padded to a power of two with (~0, ~0). */
function initSource(idxType: DTypeName): string {
  return `${header([idxType])}${paramsDecl(12)}@group(0) @binding(1) var<storage, read_write> keys: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> b1: array<${wgslType(idxType).storage}>;
${indexFns('b1', idxType)}${main1d(
  SORT_WG,
  'pu(0u)',
  `  if (i < pu(1u)) { keys[i] = vec2<u32>(u32(res(i, pu(2u), pu(3u))), i); }
  else { keys[i] = vec2<u32>(0xffffffffu, 0xffffffffu); }`,
)}`;
}

/** One bitonic compare-exchange step (block size pu(1), distance pu(2)) over pu(0) pairs. */
const STEP_SRC = `${paramsDecl(4)}@group(0) @binding(1) var<storage, read_write> keys: array<vec2<u32>>;
fn less(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x < b.x || (a.x == b.x && a.y < b.y); }
${main1d(
  SORT_WG,
  'pu(0u)',
  `  let size = pu(1u); let dist = pu(2u);
  let a = 2u * dist * (i / dist) + (i % dist);
  let b = a + dist;
  let up = (a & size) == 0u;
  let x = keys[a]; let y = keys[b];
  if (less(y, x) == up) { keys[a] = y; keys[b] = x; }`,
)}`;

/** Output-indexed sum over the sorted run of row k. Params from KP: N, K, inner, og offset. */
function sumSource(dtype: DTypeName, add: boolean, alias: boolean): string {
  const st = wgslType(dtype).storage;
  const og = alias ? 'b0' : 'b1';
  const f = wgslType(dtype).scalar === 'f32';
  return `${header([dtype])}${paramsDecl(16)}@group(0) @binding(1) var<storage, read_write> b0: array<${st}>;
${alias ? '' : `@group(0) @binding(2) var<storage, read_write> b1: array<${st}>;\n`}@group(0) @binding(${alias ? 2 : 3}) var<storage, read_write> keys: array<vec2<u32>>;
fn lower(k: u32, n: u32) -> u32 {
  var lo = 0u; var hi = n;
  while (lo < hi) { let m = (lo + hi) / 2u; if (keys[m].x < k) { lo = m + 1u; } else { hi = m; } }
  return lo;
}
fn val(e: u32) -> ${wgslType(dtype).scalar} {
  let N = pu(${KP}u); let K = pu(${KP + 1}u); let inner = pu(${KP + 2}u);
  let j = e % inner; let r = e / inner; let k = r % K; let o = r / K;
  var acc = ${zeroOf(dtype)};${f ? ' var comp = 0.0f;' : ''}
  for (var p = lower(k, N); p < N && keys[p].x == k; p++) {
    let x = ${load(og, dtype, `pu(${KP + 3}u) + (o * N + keys[p].y) * inner + j`)};
    ${f ? '{ let y = x - comp; let t = acc + y; comp = (t - acc) - y; acc = t; }' : 'acc += x;'}
  }
  return acc;
}
${writerMain(dtype, add, 'none', 'b0')}`;
}

function takeGradSorted(
  rt: WebGpuRuntime,
  og: GpuBlob,
  ind: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  g: Geometry,
) {
  const M = 2 ** Math.ceil(Math.log2(g.N));
  const keys = rt.createBuffer(M * 8);
  const init = rt.pipeline(`shape-btake-init:${ind.dtype}`, () => initSource(ind.dtype), 12);
  rt.dispatch(
    init,
    [keys, ind.ptr as GPUBuffer],
    [M, g.N, g.K, g.mode, 0, 0, 0, 0, 0, elemOffset(ind)],
    grid1d(M, SORT_WG),
  );
  const step = rt.pipeline('shape-btake-step', () => STEP_SRC, 4);
  for (let size = 2; size <= M; size *= 2)
    for (let dist = size / 2; dist >= 1; dist /= 2)
      rt.dispatch(step, [keys], [M / 2, size, dist], grid1d(M / 2, SORT_WG));
  const { blob: s, done } = detach(rt, og, out);
  const bind = bindBlobs([out, s]);
  const alias = bind.buffers.length === 1;
  const add = req === OpReq.add;
  const entry = rt.pipeline(
    `shape-btake-sum:${out.dtype}:${add ? 'add' : 'w'}:${alias ? 'a' : ''}`,
    () => sumSource(out.dtype, add, alias),
    16,
  );
  dispatchWriter(rt, entry, [...bind.buffers, keys], out, 0, out.size, 0, [g.N, g.K, g.inner, elemOffset(s)]);
  done();
  rt.release(keys);
}

export function installTake(registry: OpRegistry, gpu: GpuHost): void {
  const takeKernel: Kernel = {
    execType: 'async',
    compute: (attrs, ctx, inputs, req, outputs) => {
      const a = attrs as { axis: number; mode: string };
      const data = inputs[0] as GpuBlob;
      const ind = inputs[1] as GpuBlob;
      const out = outputs[0] as GpuBlob;
      const r = req[0] as OpReqType;
      const axis = norm(a.axis, data.shape.length);
      const g: Geometry = {
        mode: a.mode === 'wrap' ? 1 : 0,
        outer: prod(data.shape, 0, axis),
        K: data.shape[axis] as number,
        inner: prod(data.shape, axis + 1),
        N: ind.size,
      };
      if (skip(r, out) || g.K === 0) {
        gpu.rt.runOp('take', ctx, () => {});
        return;
      }
      if (a.mode === 'raise') takeRaise(gpu, ctx, data, ind, out, r, g);
      else gpu.rt.runOp('take', ctx, () => run(gpu.rt, 'take', data, ind, out, r, g));
    },
  };
  registry.registerKernel('take', 'webgpu', takeKernel);
  reg<{ axis: number; mode: string }>(
    registry,
    gpu,
    '_backward_take',
    (a, [g, i], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as GpuBlob;
      const og = g as GpuBlob;
      const ind = i as GpuBlob;
      const axis = norm(a.axis, out.shape.length);
      const geo: Geometry = {
        mode: a.mode === 'wrap' ? 1 : 0,
        outer: prod(out.shape, 0, axis),
        K: out.shape[axis] as number,
        inner: prod(out.shape, axis + 1),
        N: ind.size,
      };
      if (geo.N <= SCAN_MAX || og.size === 0) run(gpu.rt, 'btake', og, ind, out, r as OpReqType, geo);
      else takeGradSorted(gpu.rt, og, ind, out, r as OpReqType, geo);
    },
    NUMERIC,
  );
}
