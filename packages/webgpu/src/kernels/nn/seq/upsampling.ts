/**
 * UpSampling and _backward_UpSampling on webgpu (float32, NCHW), every kernel output-indexed so no
 * two invocations write one element:
 *
 * - nearest: one dispatch per input over its slice of the output (its channels for 'concat'; all of
 *   them, added after the first, for 'sum'); the backward sums each s x s block of the output
 *   gradient into the input's gradient, one invocation per input-gradient element.
 * - bilinear: MXNet's depthwise Deconvolution (kernel 2s - s%2, stride s, pad ceil((s-1)/2)) as a
 *   gather over the at most 2 x 2 (input, tap) pairs of each output pixel; the data gradient
 *   gathers the k x k taps of each input pixel; the weight gradient is a reduction over
 *   (n, y, x) per weight element: one workgroup each, strided partial sums, then a tree.
 */
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import { elemOffset, main1d, paramsDecl, storageDecl } from '../../../wgsl.js';
import { define } from './util.js';

const WG = 256;
const RWG = 64;

interface UpAttrs {
  readonly scale: number;
  readonly sample_type: 'nearest' | 'bilinear';
  readonly multi_input_mode: 'concat' | 'sum';
  readonly num_args: number;
}

const geometry = (scale: number) => ({ k: 2 * scale - (scale % 2), s: scale, p: Math.ceil((scale - 1) / 2) });

const decl2 = `${storageDecl(1, 'a', 'float32')}${storageDecl(2, 'o', 'float32')}`;
const decl3 = `${decl2}${storageDecl(3, 'w', 'float32')}`;
const put = (add: boolean, oi: string, v: string) => `o[${oi}] = ${add ? `o[${oi}] + ` : ''}${v};`;

// Nearest uniforms: 0 n, 1 C, 2 H, 3 W, 4 OH, 5 OW, 6 Ctot, 7 base, 8 s, 9 aOff, 10 oOff.
// Forward: i over (n, c, oy, ox) of the slice; backward: i over (n, c, y, x) of the input.
function nearestSource(back: boolean, add: boolean): string {
  const head = `  let C = pu(1u); let H = pu(2u); let W = pu(3u); let OH = pu(4u); let OW = pu(5u); let s = pu(8u);\n`;
  const body = back
    ? `${head}  let x = i % W; let y = (i / W) % H; let nc = i / (W * H);
  let g0 = pu(9u) + ((nc / C) * pu(6u) + pu(7u) + nc % C) * OH * OW;
  var acc = 0.0;
  for (var dy = 0u; dy < s; dy++) {
    var t = 0.0;
    let r = g0 + (y * s + dy) * OW + x * s;
    for (var dx = 0u; dx < s; dx++) { t += a[r + dx]; }
    acc += t;
  }
  ${put(add, 'pu(10u) + i', 'acc')}`
    : `${head}  let ox = i % OW; let oy = (i / OW) % OH; let nc = i / (OW * OH);
  let v = a[pu(9u) + (nc * H + oy / s) * W + ox / s];
  let oi = pu(10u) + ((nc / C) * pu(6u) + pu(7u) + nc % C) * OH * OW + oy * OW + ox;
  ${put(add, 'oi', 'v')}`;
  return `${paramsDecl(11)}${decl2}${main1d(WG, 'pu(0u)', body)}`;
}

// Bilinear uniforms: 0 n, 1 C, 2 H, 3 W, 4 OH, 5 OW, 6 k, 7 s, 8 p, 9 aOff, 10 oOff, 11 wOff.
const BI_HEAD = `  let C = pu(1u); let H = i32(pu(2u)); let W = i32(pu(3u)); let OH = i32(pu(4u)); let OW = i32(pu(5u));
  let k = i32(pu(6u)); let s = i32(pu(7u)); let p = i32(pu(8u));\n`;

/** Forward (a = data, o = output): i over output pixels. */
function bilinearSource(add: boolean): string {
  const body = `${BI_HEAD}  let ox = i32(i % u32(OW)); let oy = i32((i / u32(OW)) % u32(OH)); let nc = i / u32(OW * OH);
  let c = nc % C;
  let x0 = pu(9u) + nc * u32(H * W);
  let w0 = pu(11u) + c * u32(k * k);
  let fy = max(0, (oy + p - k + s) / s); let ly = min(H - 1, (oy + p) / s);
  let fx = max(0, (ox + p - k + s) / s); let lx = min(W - 1, (ox + p) / s);
  var acc = 0.0;
  for (var iy = fy; iy <= ly; iy++) {
    let ky = oy + p - iy * s;
    for (var ix = lx; ix >= fx; ix--) {
      acc += w[w0 + u32(ky * k + ox + p - ix * s)] * a[x0 + u32(iy * W + ix)];
    }
  }
  ${put(add, 'pu(10u) + i', 'acc')}`;
  return `${paramsDecl(12)}${decl3}${main1d(WG, 'pu(0u)', body)}`;
}

/** Data gradient (a = output gradient, o = data gradient): i over input pixels. */
function bilinearDataGradSource(add: boolean): string {
  const body = `${BI_HEAD}  let ix = i32(i % u32(W)); let iy = i32((i / u32(W)) % u32(H)); let nc = i / u32(W * H);
  let c = nc % C;
  let g0 = pu(9u) + nc * u32(OH * OW);
  let w0 = pu(11u) + c * u32(k * k);
  var acc = 0.0;
  for (var ky = max(0, p - iy * s); ky < min(k, OH + p - iy * s); ky++) {
    let gy = iy * s - p + ky;
    for (var kx = max(0, p - ix * s); kx < min(k, OW + p - ix * s); kx++) {
      acc += w[w0 + u32(ky * k + kx)] * a[g0 + u32(gy * OW + ix * s - p + kx)];
    }
  }
  ${put(add, 'pu(10u) + i', 'acc')}`;
  return `${paramsDecl(12)}${decl3}${main1d(WG, 'pu(0u)', body)}`;
}

/**
 * Weight gradient (a = output gradient, w = data, o = weight gradient): one workgroup per weight
 * element (c, ky, kx), threads strided over (n, iy, ix). Uniform 0 = N (batch) here.
 */
function bilinearWeightGradSource(add: boolean): string {
  return `${paramsDecl(12)}${decl3}var<workgroup> sh: array<f32, ${RWG}>;
@compute @workgroup_size(${RWG})
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) g: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
${BI_HEAD}  let e = g.x + g.y * nwg.x;
  if (e >= C * u32(k * k)) { return; }
  let c = e / u32(k * k); let ky = i32(e % u32(k * k)) / k; let kx = i32(e % u32(k * k)) % k;
  let total = pu(0u) * u32(H * W);
  var acc = 0.0;
  for (var q = l.x; q < total; q += ${RWG}u) {
    let n = q / u32(H * W); let iy = i32(q % u32(H * W)) / W; let ix = i32(q % u32(H * W)) % W;
    let gy = iy * s - p + ky; let gx = ix * s - p + kx;
    if (gy >= 0 && gy < OH && gx >= 0 && gx < OW) {
      let nc = n * C + c;
      acc += w[pu(11u) + nc * u32(H * W) + u32(iy * W + ix)] * a[pu(9u) + nc * u32(OH * OW) + u32(gy * OW + gx)];
    }
  }
  sh[l.x] = acc;
  workgroupBarrier();
  for (var t = ${RWG / 2}u; t > 0u; t >>= 1u) {
    if (l.x < t) { sh[l.x] = sh[l.x] + sh[l.x + t]; }
    workgroupBarrier();
  }
  if (l.x == 0u) { ${put(add, 'pu(10u) + e', 'sh[0]')} }
}
`;
}

type Src = (add: boolean) => string;

function go(
  rt: WebGpuRuntime,
  key: string,
  src: Src,
  add: boolean,
  bufs: GpuBlob[],
  params: number[],
  groups: [number, number, number],
) {
  const words = params.length;
  const entry = rt.pipeline(`up:${key}:${add ? 1 : 0}`, () => src(add), words);
  rt.dispatch(
    entry,
    bufs.map((b) => b.ptr as GPUBuffer),
    params,
    groups,
  );
}

function forward(rt: WebGpuRuntime, a: UpAttrs, inputs: readonly GpuBlob[], r: OpReqType, out: GpuBlob) {
  const [N, Ctot, OH, OW] = out.shape as [number, number, number, number];
  if (a.sample_type === 'bilinear') {
    const x = inputs[0] as GpuBlob;
    const w = inputs[1] as GpuBlob;
    const [, C, H, W] = x.shape as [number, number, number, number];
    const { k, s, p } = geometry(a.scale);
    const params = [out.size, C, H, W, OH, OW, k, s, p, elemOffset(x), elemOffset(out), elemOffset(w)];
    go(rt, 'bi', bilinearSource, r === OpReq.add, [x, out, w], params, grid1d(out.size, WG));
    return;
  }
  const sum = a.multi_input_mode === 'sum' && a.num_args > 1;
  let cOff = 0;
  inputs.forEach((x, i) => {
    const [, C, H, W] = x.shape as [number, number, number, number];
    const n = N * C * OH * OW;
    const add = r === OpReq.add || (sum && i > 0);
    const params = [n, C, H, W, OH, OW, Ctot, sum ? 0 : cOff, OH / H, elemOffset(x), elemOffset(out)];
    cOff += C;
    if (n > 0) go(rt, 'near', (ad) => nearestSource(false, ad), add, [x, out], params, grid1d(n, WG));
  });
}

function backward(
  rt: WebGpuRuntime,
  a: UpAttrs,
  inputs: readonly GpuBlob[],
  req: readonly OpReqType[],
  outs: readonly GpuBlob[],
) {
  const og = inputs[0] as GpuBlob;
  const [N, Ctot, OH, OW] = og.shape as [number, number, number, number];
  if (a.sample_type === 'bilinear') {
    const x = inputs[1] as GpuBlob;
    const w = inputs[2] as GpuBlob;
    const [, C, H, W] = x.shape as [number, number, number, number];
    const { k, s, p } = geometry(a.scale);
    const dx = outs[0] as GpuBlob;
    const dw = outs[1] as GpuBlob;
    const base = [C, H, W, OH, OW, k, s, p, elemOffset(og)];
    if (req[0] !== OpReq.null && dx.size > 0) {
      const params = [dx.size, ...base, elemOffset(dx), elemOffset(w)];
      go(rt, 'bi-dx', bilinearDataGradSource, req[0] === OpReq.add, [og, dx, w], params, grid1d(dx.size, WG));
    }
    if (req[1] !== OpReq.null && dw.size > 0) {
      const params = [N, ...base, elemOffset(dw), elemOffset(x)];
      go(
        rt,
        'bi-dw',
        bilinearWeightGradSource,
        req[1] === OpReq.add,
        [og, dw, x],
        params,
        grid1d(dw.size, 1),
      );
    }
    return;
  }
  const sum = a.multi_input_mode === 'sum' && a.num_args > 1;
  let cOff = 0;
  outs.forEach((g, i) => {
    const [, C, H, W] = g.shape as [number, number, number, number];
    const base = sum ? 0 : cOff;
    cOff += C;
    const ri = req[i] as OpReqType;
    if (ri === OpReq.null || g.size === 0) return;
    const params = [g.size, C, H, W, OH, OW, Ctot, base, OH / H, elemOffset(og), elemOffset(g)];
    go(
      rt,
      'near-back',
      (ad) => nearestSource(true, ad),
      ri === OpReq.add,
      [og, g],
      params,
      grid1d(g.size, WG),
    );
  });
}

export function installUpSampling(registry: OpRegistry, gpu: GpuHost): void {
  define<UpAttrs>(
    registry,
    gpu,
    'UpSampling',
    (a, inputs, [r], [out]) => {
      const o = out as GpuBlob;
      if (r === OpReq.null || o.size === 0) return;
      forward(gpu.rt, a, inputs, r as OpReqType, o);
    },
    ['float32'],
  );
  define<UpAttrs>(
    registry,
    gpu,
    '_backward_UpSampling',
    (a, inputs, req, outs) => backward(gpu.rt, a, inputs, req, outs),
    ['float32'],
  );
}
