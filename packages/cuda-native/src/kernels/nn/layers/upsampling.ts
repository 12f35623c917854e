/**
 * UpSampling and _backward_UpSampling on cuda (float dtypes, NCHW), every kernel output-indexed so
 * no two threads write one element (no atomics, deterministic sums):
 *
 * - nearest: one launch per input over its slice of the output (its channels for 'concat'; all of
 *   them, added after the first, for 'sum'); the backward sums each s x s block of the output
 *   gradient into the input's gradient, one thread per input-gradient element.
 * - bilinear: MXNet's depthwise Deconvolution (kernel 2s - s%2, stride s, pad ceil((s-1)/2)) as a
 *   gather over the (input, tap) pairs of each output pixel; the data gradient gathers the k x k
 *   taps of each input pixel; the weight gradient is one block per weight element reducing over
 *   (n, y, x).
 * Accumulation is in float (double for float64).
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { BLOCK, blocksFor, type KernelArg, loadC } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../../kernel.js';
import { BLOCK_REDUCE_C } from './softmax.js';
import { accOf, cptr, FLOATS, type Mode, modeOf, putC, requireFloat, SourceCache } from './util.js';

interface UpAttrs extends Attrs {
  readonly scale: number;
  readonly sample_type: 'nearest' | 'bilinear';
  readonly multi_input_mode: 'concat' | 'sum';
  readonly num_args: number;
}

const geometry = (scale: number) => ({ k: 2 * scale - (scale % 2), s: scale, p: Math.ceil((scale - 1) / 2) });

const cache = new SourceCache('layers_up');

type Kind = 'near' | 'near-back' | 'bi' | 'bi-dx' | 'bi-dw';

/**
 * Sources over (a: the read array, o: the written one, w: the weight or data) with parameters
 * n, C, H, W, OH, OW, Ctot/k, base/s, p — each kind reads the ones it needs.
 */
function body(kind: Kind, ad: DTypeName, wd: DTypeName, od: DTypeName, m: Mode): string {
  const A = (i: string) => `(ACC)(${loadC('a', ad, i)})`;
  const Wt = (i: string) => `(ACC)(${loadC('w', wd, i)})`;
  const put = (i: string, v: string) => putC('o', od, i, v, m);
  switch (kind) {
    case 'near':
      return `  MX_GRID_LOOP(i, n) {
    long long s = q0;
    long long ox = i % OW, oy = (i / OW) % OH, nc = i / (OW * OH);
    ACC v = ${A('(nc * H + oy / s) * W + ox / s')};
    long long oi = ((nc / C) * q1 + q2 + nc % C) * OH * OW + oy * OW + ox;
    ${put('oi', 'v')}
  }`;
    case 'near-back':
      return `  MX_GRID_LOOP(i, n) {
    long long s = q0;
    long long x = i % W, y = (i / W) % H, nc = i / (W * H);
    long long g0 = ((nc / C) * q1 + q2 + nc % C) * OH * OW;
    ACC acc = 0;
    for (long long dy = 0; dy < s; dy++) {
      ACC t = 0;
      long long r = g0 + (y * s + dy) * OW + x * s;
      for (long long dx = 0; dx < s; dx++) t += ${A('r + dx')};
      acc += t;
    }
    ${put('i', 'acc')}
  }`;
    case 'bi':
      return `  long long k = q0, s = q1, p = q2;
  MX_GRID_LOOP(i, n) {
    long long ox = i % OW, oy = (i / OW) % OH, nc = i / (OW * OH);
    long long c = nc % C;
    long long x0 = nc * H * W, w0 = c * k * k;
    long long fy = (oy + p - k + s) / s; if (fy < 0) fy = 0;
    long long ly = (oy + p) / s; if (ly > H - 1) ly = H - 1;
    long long fx = (ox + p - k + s) / s; if (fx < 0) fx = 0;
    long long lx = (ox + p) / s; if (lx > W - 1) lx = W - 1;
    ACC acc = 0;
    for (long long iy = fy; iy <= ly; iy++) {
      long long ky = oy + p - iy * s;
      if (ky < 0 || ky >= k) continue;
      for (long long ix = lx; ix >= fx; ix--) {
        long long kx = ox + p - ix * s;
        if (kx < 0 || kx >= k) continue;
        acc += ${Wt('w0 + ky * k + kx')} * ${A('x0 + iy * W + ix')};
      }
    }
    ${put('i', 'acc')}
  }`;
    case 'bi-dx':
      return `  long long k = q0, s = q1, p = q2;
  MX_GRID_LOOP(i, n) {
    long long ix = i % W, iy = (i / W) % H, nc = i / (W * H);
    long long c = nc % C;
    long long g0 = nc * OH * OW, w0 = c * k * k;
    long long ky0 = p - iy * s; if (ky0 < 0) ky0 = 0;
    long long ky1 = OH + p - iy * s; if (ky1 > k) ky1 = k;
    long long kx0 = p - ix * s; if (kx0 < 0) kx0 = 0;
    long long kx1 = OW + p - ix * s; if (kx1 > k) kx1 = k;
    ACC acc = 0;
    for (long long ky = ky0; ky < ky1; ky++) {
      long long gy = iy * s - p + ky;
      for (long long kx = kx0; kx < kx1; kx++) acc += ${Wt('w0 + ky * k + kx')} * ${A('g0 + gy * OW + ix * s - p + kx')};
    }
    ${put('i', 'acc')}
  }`;
    default:
      // One block per weight element e = (c, ky, kx); w = data here, a = output gradient, n = batch.
      return `  __shared__ ACC sh[32];
  long long k = q0, s = q1, p = q2;
  for (long long e = blockIdx.x; e < C * k * k; e += gridDim.x) {
    long long c = e / (k * k), ky = (e % (k * k)) / k, kx = e % k;
    long long total = n * H * W;
    ACC acc = 0;
    for (long long q = threadIdx.x; q < total; q += blockDim.x) {
      long long b = q / (H * W), iy = (q % (H * W)) / W, ix = q % W;
      long long gy = iy * s - p + ky, gx = ix * s - p + kx;
      if (gy >= 0 && gy < OH && gx >= 0 && gx < OW) {
        long long nc = b * C + c;
        acc += ${Wt('nc * H * W + iy * W + ix')} * ${A('nc * OH * OW + gy * OW + gx')};
      }
    }
    acc = mx_block_sum(acc, sh);
    if (threadIdx.x == 0) { ${put('e', 'acc')} }
  }`;
  }
}

function launch(
  host: CudaHost,
  op: string,
  kind: Kind,
  m: Mode,
  a: CudaBlob,
  w: CudaBlob | undefined,
  o: CudaBlob,
  dims: readonly number[],
  q: readonly number[],
  grid: number,
  block: number,
): void {
  const wd = w?.dtype ?? a.dtype;
  const acc = accOf([a.dtype, wd, o.dtype]);
  const key = `${kind}|${m}|${a.dtype},${wd},${o.dtype}`;
  const src = cache.get(
    key,
    (entry) => `typedef ${acc} ACC;
${kind === 'bi-dw' ? BLOCK_REDUCE_C : ''}extern "C" __global__ void ${entry}(${cptr(a.dtype, 'a')}, ${cptr(wd, 'w')}, ${cptr(o.dtype, 'o', false)}, long long n, long long C, long long H, long long W, long long OH, long long OW, long long q0, long long q1, long long q2) {
${body(kind, a.dtype, wd, o.dtype, m)}
}
`,
  );
  const args: KernelArg[] = [
    { t: 'ptr', v: addr(a, op) },
    { t: 'ptr', v: w === undefined ? 0 : addr(w, op) },
    { t: 'ptr', v: addr(o, op) },
    ...dims.map((v): KernelArg => ({ t: 'i64', v })),
    ...q.map((v): KernelArg => ({ t: 'i64', v })),
  ];
  host.rt.launch(src, [grid], [block], args);
}

function forward(
  host: CudaHost,
  a: UpAttrs,
  inputs: readonly CudaBlob[],
  r: OpReqType | undefined,
  out: CudaBlob,
): void {
  const op = 'UpSampling';
  const m = modeOf(r, out);
  if (m === 'n') return;
  const [N, Ctot, OH, OW] = out.shape as [number, number, number, number];
  if (a.sample_type === 'bilinear') {
    const x = inputs[0] as CudaBlob;
    const [, C, H, W] = x.shape as [number, number, number, number];
    const { k, s, p } = geometry(a.scale);
    launch(
      host,
      op,
      'bi',
      m,
      x,
      inputs[1],
      out,
      [out.size, C, H, W, OH, OW],
      [k, s, p],
      blocksFor(out.size),
      BLOCK,
    );
    return;
  }
  const sum = a.multi_input_mode === 'sum' && a.num_args > 1;
  let cOff = 0;
  inputs.forEach((x, i) => {
    const [, C, H, W] = x.shape as [number, number, number, number];
    const n = N * C * OH * OW;
    const mi: Mode = sum && i > 0 ? 'a' : m;
    const q = [Math.max(1, OH / Math.max(1, H)), Ctot, sum ? 0 : cOff];
    cOff += C;
    if (n > 0) launch(host, op, 'near', mi, x, undefined, out, [n, C, H, W, OH, OW], q, blocksFor(n), BLOCK);
  });
}

function backward(
  host: CudaHost,
  a: UpAttrs,
  inputs: readonly CudaBlob[],
  req: readonly OpReqType[],
  outs: readonly CudaBlob[],
): void {
  const op = '_backward_UpSampling';
  const og = inputs[0] as CudaBlob;
  const [N, Ctot, OH, OW] = og.shape as [number, number, number, number];
  if (a.sample_type === 'bilinear') {
    const x = inputs[1] as CudaBlob;
    const w = inputs[2] as CudaBlob;
    const [, C, H, W] = x.shape as [number, number, number, number];
    const { k, s, p } = geometry(a.scale);
    const dx = outs[0] as CudaBlob;
    const dw = outs[1] as CudaBlob;
    const mx = modeOf(req[0], dx);
    if (mx !== 'n')
      launch(
        host,
        op,
        'bi-dx',
        mx,
        og,
        w,
        dx,
        [dx.size, C, H, W, OH, OW],
        [k, s, p],
        blocksFor(dx.size),
        BLOCK,
      );
    const mw = modeOf(req[1], dw);
    if (mw !== 'n') {
      const grid = Math.min(C * k * k, 65535);
      launch(host, op, 'bi-dw', mw, og, x, dw, [N, C, H, W, OH, OW], [k, s, p], Math.max(1, grid), BLOCK);
    }
    return;
  }
  const sum = a.multi_input_mode === 'sum' && a.num_args > 1;
  let cOff = 0;
  outs.forEach((g, i) => {
    const [, C, H, W] = g.shape as [number, number, number, number];
    const base = sum ? 0 : cOff;
    cOff += C;
    const m = modeOf(req[i], g);
    if (m === 'n') return;
    const q = [Math.max(1, OH / Math.max(1, H)), Ctot, base];
    launch(
      host,
      op,
      'near-back',
      m,
      og,
      undefined,
      g,
      [g.size, C, H, W, OH, OW],
      q,
      blocksFor(g.size),
      BLOCK,
    );
  });
}

export function installUpSampling(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('UpSampling')) {
    registry.registerKernel(
      'UpSampling',
      CUDA,
      cudaKernel<UpAttrs>(
        host,
        'UpSampling',
        (a, inputs, [r], [out]) => {
          requireFloat('UpSampling', [...inputs, out as CudaBlob]);
          forward(host, a, inputs, r, out as CudaBlob);
        },
        FLOATS,
      ),
    );
  }
  if (registry.has('_backward_UpSampling')) {
    registry.registerKernel(
      '_backward_UpSampling',
      CUDA,
      cudaKernel<UpAttrs>(
        host,
        '_backward_UpSampling',
        (a, inputs, req, outs) => {
          requireFloat('_backward_UpSampling', [...inputs, ...outs]);
          backward(host, a, inputs, req, outs);
        },
        FLOATS,
      ),
    );
  }
}
