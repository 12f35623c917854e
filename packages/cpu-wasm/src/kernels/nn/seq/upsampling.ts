/**
 * cpu-wasm kernels of UpSampling and _backward_UpSampling (float32, float64), NCHW.
 *
 * Nearest: each input row is widened once (every value repeated `s` times) and the widened row is
 * copied `s - 1` times down with `copyWithin` (write), or the values are added `s` times (add, and
 * the later inputs of multi_input_mode='sum'). The backward sums each s x s block, row by row,
 * into a float64 accumulator row.
 *
 * Bilinear: MXNet's depthwise Deconvolution (kernel 2s - s%2, stride s, pad ceil((s-1)/2)),
 * written as a gather over at most 2 x 2 (input, tap) pairs per output pixel (see
 * bilinearForward); the backward runs, per input row and kernel tap, one stride-s pass over the
 * output-gradient row that feeds both the data gradient row and that tap's weight gradient (float64). Both are loops over views: upsampling is a bandwidth-bound byte mover with a small
 * stencil, not a matrix product.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { BACKEND, type Blob, type FloatArray, storeFloat } from './util.js';

interface UpAttrs {
  readonly scale: number;
  readonly sample_type: 'nearest' | 'bilinear';
  readonly multi_input_mode: 'concat' | 'sum';
  readonly num_args: number;
}

const FLOATS: readonly DTypeName[] = ['float32', 'float64'];

function geometry(scale: number) {
  return { k: 2 * scale - (scale % 2), s: scale, p: Math.ceil((scale - 1) / 2) };
}

/**
 * For each output index o < O, the input indices i < I and kernel taps kk < k with
 * i*s - p + kk = o, flattened: entries [start[o], start[o+1]) of `i` and `k`.
 */
function taps(O: number, I: number, k: number, s: number, p: number) {
  const start = new Int32Array(O + 1);
  const iv: number[] = [];
  const kv: number[] = [];
  for (let o = 0; o < O; o++) {
    start[o] = iv.length;
    const first = Math.max(0, Math.ceil((o + p - k + 1) / s));
    const last = Math.min(I - 1, Math.floor((o + p) / s));
    for (let i = first; i <= last; i++) {
      iv.push(i);
      kv.push(o + p - i * s);
    }
  }
  start[O] = iv.length;
  return { start, i: Int32Array.from(iv), k: Int32Array.from(kv) };
}

/** Nearest-upsample one (H, W) plane of `src` at `si` into `dst` at `di` (H*s, W*s). */
function upPlane(
  src: FloatArray,
  si: number,
  H: number,
  W: number,
  dst: FloatArray,
  di: number,
  s: number,
  add: boolean,
) {
  const OW = W * s;
  for (let y = 0; y < H; y++) {
    const rs = di + y * s * OW;
    const sr = si + y * W;
    if (add) {
      for (let dy = 0; dy < s; dy++) {
        const r = rs + dy * OW;
        for (let x = 0; x < W; x++) {
          const v = src[sr + x] as number;
          const b = r + x * s;
          for (let k = 0; k < s; k++) dst[b + k] = (dst[b + k] as number) + v;
        }
      }
    } else {
      for (let x = 0; x < W; x++) {
        const v = src[sr + x] as number;
        const b = rs + x * s;
        for (let k = 0; k < s; k++) dst[b + k] = v;
      }
      for (let dy = 1; dy < s; dy++) dst.copyWithin(rs + dy * OW, rs, rs + OW);
    }
  }
}

/** Sum the s x s blocks of one (H*s, W*s) plane of `og` at `gi` into `dst` at `di` (H, W) under req. */
function downPlane(
  og: FloatArray,
  gi: number,
  H: number,
  W: number,
  dst: FloatArray,
  di: number,
  s: number,
  req: OpReqType,
) {
  const OW = W * s;
  const acc = new Float64Array(W);
  for (let y = 0; y < H; y++) {
    acc.fill(0);
    for (let dy = 0; dy < s; dy++) {
      const r = gi + (y * s + dy) * OW;
      for (let x = 0; x < W; x++) {
        const b = r + x * s;
        let t = 0;
        for (let k = 0; k < s; k++) t += og[b + k] as number;
        acc[x] = (acc[x] as number) + t;
      }
    }
    storeFloat(dst, di + y * W, acc, req);
  }
}

/**
 * Bilinear upsampling forward (depthwise transposed convolution) as a gather. Output column ox
 * with (ox + p) = q*s + r takes input columns q, q-1 with kernel columns r, r+s (those < k: at
 * most two since k <= 2s), likewise for rows; so each output row splits into s phases of
 * stride-s columns sharing up to 4 weights, hoisted out of the loop. Interior columns use the
 * unrolled 2 x 2 sum; border columns and 1-tap phases check each tap (no phantom taps, so an inf
 * or NaN in the input reaches exactly the outputs it touches).
 */
function bilinearForward(
  src: FloatArray,
  w: FloatArray,
  dst: FloatArray,
  N: number,
  C: number,
  H: number,
  W: number,
  scale: number,
  add: boolean,
): void {
  const { k, s, p } = geometry(scale);
  const OH = H * s;
  const OW = W * s;
  const ty = taps(OH, H, k, s, p);
  const ry = [0, 0];
  const wy = [0, 0];
  for (let n = 0; n < N; n++) {
    for (let c = 0; c < C; c++) {
      const xi = (n * C + c) * H * W;
      const oi = (n * C + c) * OH * OW;
      const wi = c * k * k;
      for (let oy = 0; oy < OH; oy++) {
        const y0 = ty.start[oy] as number;
        const ny = (ty.start[oy + 1] as number) - y0;
        for (let j = 0; j < ny; j++) {
          ry[j] = xi + (ty.i[y0 + j] as number) * W;
          wy[j] = wi + (ty.k[y0 + j] as number) * k;
        }
        const orow = oi + oy * OW;
        for (let r = 0; r < s; r++) {
          const ox0 = (((r - p) % s) + s) % s;
          if (ox0 >= OW) continue;
          const nx = r + s < k ? 2 : 1;
          const q0 = (ox0 + p - r) / s;
          if (ny === 2 && nx === 2) {
            const a0 = ry[0] as number;
            const a1 = ry[1] as number;
            const w00 = w[(wy[0] as number) + r] as number;
            const w01 = w[(wy[0] as number) + r + s] as number;
            const w10 = w[(wy[1] as number) + r] as number;
            const w11 = w[(wy[1] as number) + r + s] as number;
            for (let ox = ox0, q = q0; ox < OW; ox += s, q++) {
              let acc: number;
              if (q >= 1 && q < W) {
                acc =
                  w00 * (src[a0 + q] as number) +
                  w01 * (src[a0 + q - 1] as number) +
                  w10 * (src[a1 + q] as number) +
                  w11 * (src[a1 + q - 1] as number);
              } else {
                acc = 0;
                if (q < W) acc += w00 * (src[a0 + q] as number) + w10 * (src[a1 + q] as number);
                if (q >= 1 && q - 1 < W)
                  acc += w01 * (src[a0 + q - 1] as number) + w11 * (src[a1 + q - 1] as number);
              }
              dst[orow + ox] = add ? (dst[orow + ox] as number) + acc : acc;
            }
          } else {
            for (let ox = ox0, q = q0; ox < OW; ox += s, q++) {
              let acc = 0;
              for (let jy = 0; jy < ny; jy++) {
                const xr = ry[jy] as number;
                const wr = (wy[jy] as number) + r;
                for (let jx = 0; jx < nx; jx++) {
                  const ix = q - jx;
                  if (ix >= 0 && ix < W) acc += (w[wr + jx * s] as number) * (src[xr + ix] as number);
                }
              }
              dst[orow + ox] = add ? (dst[orow + ox] as number) + acc : acc;
            }
          }
        }
      }
    }
  }
}

export function installUpSampling(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const view = (b: Blob) => rt.view(b) as FloatArray;

  registry.registerKernel<Attrs>('UpSampling', BACKEND, {
    dtypes: FLOATS,
    compute: (attrs, _ctx, inputs, req, outputs) => {
      const a = attrs as unknown as UpAttrs;
      const r = req[0] as OpReqType;
      const out = outputs[0] as Blob;
      if (r === OpReq.null || out.size === 0) return;
      const [N, Ctot, OH, OW] = out.shape as [number, number, number, number];
      const dst = view(out);
      if (a.sample_type === 'bilinear') {
        const x = inputs[0] as Blob;
        const [, C, H, W] = x.shape as [number, number, number, number];
        bilinearForward(view(x), view(inputs[1] as Blob), dst, N, C, H, W, a.scale, r === OpReq.add);
        return;
      }
      let cOff = 0;
      inputs.forEach((xb, i) => {
        const x = xb as Blob;
        const [, C, H, W] = x.shape as [number, number, number, number];
        const s = OH / H;
        const src = view(x);
        const sum = a.multi_input_mode === 'sum' && a.num_args > 1;
        const add = r === OpReq.add || (sum && i > 0);
        const base = sum ? 0 : cOff;
        for (let n = 0; n < N; n++)
          for (let c = 0; c < C; c++)
            upPlane(src, (n * C + c) * H * W, H, W, dst, (n * Ctot + base + c) * OH * OW, s, add);
        cOff += C;
      });
    },
  });

  registry.registerKernel<Attrs>('_backward_UpSampling', BACKEND, {
    dtypes: FLOATS,
    compute: (attrs, _ctx, inputs, req, outputs) => {
      const a = attrs as unknown as UpAttrs;
      const ogb = inputs[0] as Blob;
      const [N, Ctot, OH, OW] = ogb.shape as [number, number, number, number];
      const og = view(ogb);
      if (a.sample_type === 'bilinear') {
        const x = inputs[1] as Blob;
        const [, C, H, W] = x.shape as [number, number, number, number];
        const { k, s, p } = geometry(a.scale);
        const src = view(x);
        const w = view(inputs[2] as Blob);
        const dxReq = req[0] as OpReqType;
        const dwReq = req[1] as OpReqType;
        const dx = view(outputs[0] as Blob);
        const dw = new Float64Array(C * k * k);
        // For kernel column kx, the input columns [lo, hi) whose output column ix*s - p + kx is inside.
        const ixLo = new Int32Array(k);
        const ixHi = new Int32Array(k);
        for (let kx = 0; kx < k; kx++) {
          ixLo[kx] = Math.max(0, Math.ceil((p - kx) / s));
          ixHi[kx] = Math.min(W, Math.floor((OW - 1 + p - kx) / s) + 1);
        }
        const row = new Float64Array(W);
        for (let n = 0; n < N; n++) {
          for (let c = 0; c < C; c++) {
            const xi = (n * C + c) * H * W;
            const gi = (n * C + c) * OH * OW;
            const wi = c * k * k;
            for (let iy = 0; iy < H; iy++) {
              row.fill(0);
              const xr = xi + iy * W;
              const ky0 = Math.max(0, p - iy * s);
              const ky1 = Math.min(k, OH + p - iy * s);
              for (let ky = ky0; ky < ky1; ky++) {
                const gr = gi + (iy * s - p + ky) * OW - p;
                for (let kx = 0; kx < k; kx++) {
                  const wv = w[wi + ky * k + kx] as number;
                  const lo = ixLo[kx] as number;
                  const hi = ixHi[kx] as number;
                  let dwa = 0;
                  for (let ix = lo, g0 = gr + kx + lo * s; ix < hi; ix++, g0 += s) {
                    const g = og[g0] as number;
                    row[ix] = (row[ix] as number) + wv * g;
                    dwa += (src[xr + ix] as number) * g;
                  }
                  dw[wi + ky * k + kx] = (dw[wi + ky * k + kx] as number) + dwa;
                }
              }
              if (dxReq !== OpReq.null) storeFloat(dx, xr, row, dxReq);
            }
          }
        }
        if (dwReq !== OpReq.null) storeFloat(view(outputs[1] as Blob), 0, dw, dwReq);
        return;
      }
      let cOff = 0;
      outputs.forEach((gb, i) => {
        const g = gb as Blob;
        const [, C, H, W] = g.shape as [number, number, number, number];
        const ri = req[i] as OpReqType;
        const base = a.multi_input_mode === 'sum' && a.num_args > 1 ? 0 : cOff;
        cOff += C;
        if (ri === OpReq.null || g.size === 0) return;
        const s = OH / H;
        const dst = view(g);
        for (let n = 0; n < N; n++)
          for (let c = 0; c < C; c++)
            downPlane(og, (n * Ctot + base + c) * OH * OW, H, W, dst, (n * C + c) * H * W, s, ri);
      });
    },
  });
}
