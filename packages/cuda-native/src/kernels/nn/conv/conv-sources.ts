/**
 * The CUDA C of the convolution's data-movement kernels (the GEMMs are cuBLAS): im2col, col2im (a
 * gather per input element, so no atomics and req add is a plain read-modify-write), the bias add,
 * the output-gradient transpose of the weight gradient and the bias gradient (a per-channel
 * reduction). Geometry travels as MxDims ([in, out, C], [kernel, dilate], [stride, pad]; see
 * conv-geom.ts) so a source is specialised only by dtype, index width and store mode.
 *
 * The column matrix of `B` images holds row r = (channel, kernel tap) and column (image b, output
 * position p) at r·rowStride + b·imgStride + p: per-image blocks (rowStride = NS, imgStride =
 * C·KS·NS) for the forward and data-gradient GEMMs, or images side by side (rowStride = B·NS,
 * imgStride = NS) for the weight gradient's single GEMM over the whole chunk.
 */
import type { DTypeName } from '@mx/base';
import { ctype, loadC } from '../../../cuda-c.js';
import { CHAN_PROLOGUE, type ChanMode, chanLoop } from './channels.js';
import { BLOCK_SUM, computeC, type Mode, put, source } from './cuda-util.js';

/** Index type of in-chunk decompositions: 32-bit when every index fits. */
export type IndexC = 'int' | 'long long';

export const indexC = (total: number): IndexC => (total < 2 ** 31 ? 'int' : 'long long');

/** Decompose linear p over extents (e0, e1, e2) into p0, p1, p2 (type T). */
const split3 = (T: string, v: string, p: string, e: readonly [string, string, string]): string =>
  `const ${T} ${v}2 = ${p} % ${e[2]}; const ${T} ${v}_r = ${p} / ${e[2]}; const ${T} ${v}1 = ${v}_r % ${e[1]}; const ${T} ${v}0 = ${v}_r / ${e[1]};`;

const GEOM = `  const long long in0 = ext.v[0], in1 = ext.v[1], in2 = ext.v[2], out0 = ext.v[3], out1 = ext.v[4], out2 = ext.v[5], C = ext.v[6];
  const long long k0 = kd.v[0], k1 = kd.v[1], k2 = kd.v[2], d0 = kd.v[3], d1 = kd.v[4], d2 = kd.v[5];
  const long long s0 = sp.v[0], s1 = sp.v[1], s2 = sp.v[2], p0 = sp.v[3], p1 = sp.v[4], p2 = sp.v[5];
  const long long IS = in0 * in1 * in2, NS = out0 * out1 * out2, KS = k0 * k1 * k2;
`;

/**
 * col[r·rowStride + b·imgStride + p] = X[b, c, window position of (p, tap q)] or 0 in the padding,
 * r = c·KS + q, for total = B·C·KS·NS elements; X's images are xImg elements apart.
 */
export function im2colSource(dt: DTypeName, T: IndexC) {
  return source('im2col', `${dt}:${T}`, (entry) => {
    const S = ctype(dt).storage;
    return `extern "C" __global__ void ${entry}(const ${S}* x, ${S}* col, MxDims ext, MxDims kd, MxDims sp, long long total, long long rowStride, long long imgStride, long long xImg) {
${GEOM}  const ${T} ns = (${T})NS, ks = (${T})KS, ck = (${T})(C * KS);
  const ${T} ok1 = (${T})out1, ok2 = (${T})out2, kk1 = (${T})k1, kk2 = (${T})k2;
  MX_GRID_LOOP(e, total) {
    const ${T} ei = (${T})e;
    const ${T} p = ei % ns; const ${T} t = ei / ns;
    const ${T} r = t % ck; const ${T} b = t / ck;
    const ${T} q = r % ks; const ${T} ch = r / ks;
    ${split3(T, 'o', 'p', ['out0', 'ok1', 'ok2'])}
    ${split3(T, 'q', 'q', ['k0', 'kk1', 'kk2'])}
    const long long i0 = (long long)o0 * s0 - p0 + (long long)q0 * d0;
    const long long i1 = (long long)o1 * s1 - p1 + (long long)q1 * d1;
    const long long i2 = (long long)o2 * s2 - p2 + (long long)q2 * d2;
    ${S} v = (${S})0;
    if (i0 >= 0 && i0 < in0 && i1 >= 0 && i1 < in1 && i2 >= 0 && i2 < in2)
      v = x[(long long)b * xImg + (long long)ch * IS + (i0 * in1 + i1) * in2 + i2];
    col[(long long)r * rowStride + (long long)b * imgStride + p] = v;
  }
}
`;
  });
}

/**
 * dX[b, c, i] (=|+=) Σ over taps q whose window puts output position o on i of
 * col[(c·KS + q)·rowStride + b·imgStride + o] (+ bias[c]: Deconvolution), total = B·C·IS.
 */
export function col2imSource(dt: DTypeName, T: IndexC, mode: Mode, bias: boolean) {
  return source('col2im', `${dt}:${T}:${mode}:${bias ? 'b' : ''}`, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    return `extern "C" __global__ void ${entry}(const ${S}* col, ${S}* dx, ${bias ? `const ${S}* bias, ` : ''}MxDims ext, MxDims kd, MxDims sp, long long total, long long rowStride, long long imgStride) {
${GEOM}  const ${T} is = (${T})IS, cc = (${T})C, ik1 = (${T})in1, ik2 = (${T})in2;
  MX_GRID_LOOP(e, total) {
    const ${T} ei = (${T})e;
    const ${T} i = ei % is; const ${T} t = ei / is;
    const ${T} ch = t % cc; const ${T} b = t / cc;
    ${split3(T, 'i', 'i', ['in0', 'ik1', 'ik2'])}
    const long long cb = (long long)b * imgStride;
    ${A} s = (${A})0;
    for (long long q0 = 0; q0 < k0; q0++) {
      const long long t0 = i0 + p0 - q0 * d0;
      if (t0 < 0) break;
      if (t0 % s0 != 0 || t0 / s0 >= out0) continue;
      for (long long q1 = 0; q1 < k1; q1++) {
        const long long t1 = i1 + p1 - q1 * d1;
        if (t1 < 0) break;
        if (t1 % s1 != 0 || t1 / s1 >= out1) continue;
        for (long long q2 = 0; q2 < k2; q2++) {
          const long long t2 = i2 + p2 - q2 * d2;
          if (t2 < 0) break;
          if (t2 % s2 != 0 || t2 / s2 >= out2) continue;
          const long long r = (long long)ch * KS + (q0 * k1 + q1) * k2 + q2;
          const long long o = ((t0 / s0) * out1 + t1 / s1) * out2 + t2 / s2;
          s += ${loadC('col', dt, 'r * rowStride + cb + o')};
        }
      }
    }
    const long long di = (long long)t * IS + i;
    ${put('dx', dt, 'di', bias ? `s + ${loadC('bias', dt, 'ch')}` : 's', mode)}
  }
}
`;
  });
}

/** y[n, f, p] += bias[f] over total = N·F·NS elements. */
export function biasAddSource(dt: DTypeName) {
  return source('conv_bias', dt, (entry) => {
    const S = ctype(dt).storage;
    return `extern "C" __global__ void ${entry}(${S}* y, const ${S}* bias, long long total, long long F, long long NS) {
  MX_GRID_LOOP(e, total) {
    ${put('y', dt, 'e', loadC('bias', dt, '(e / NS) % F'), 'a')}
  }
}
`;
  });
}

/** dyT[f, b, p] = dy[b, f, p] for B images, F channels, NS positions (total = B·F·NS). */
export function transposeSource(dt: DTypeName, T: IndexC) {
  return source('conv_dyt', `${dt}:${T}`, (entry) => {
    const S = ctype(dt).storage;
    return `extern "C" __global__ void ${entry}(const ${S}* dy, ${S}* dyT, long long total, long long F, long long B, long long NS) {
  const ${T} ns = (${T})NS, bb = (${T})B;
  MX_GRID_LOOP(e, total) {
    const ${T} ei = (${T})e;
    const ${T} p = ei % ns; const ${T} t = ei / ns;
    const ${T} b = t % bb; const ${T} f = t / bb;
    dyT[e] = dy[((long long)b * F + f) * NS + p];
  }
}
`;
  });
}

/** db[f] (=|+=) Σ over images and positions of dy (outer = N, C = F, inner = NS). */
export function biasGradSource(dt: DTypeName, mode: Mode, chan: ChanMode) {
  return source('conv_dbias', `${dt}:${mode}:${chan}`, (entry) => {
    const S = ctype(dt).storage;
    return `${BLOCK_SUM}extern "C" __global__ void ${entry}(const ${S}* dy, ${S}* db, long long outer, long long C, long long inner) {
  __shared__ double sh[256];
${CHAN_PROLOGUE}  double acc = 0.0;
  ${chanLoop(chan, `acc += (double)${loadC('dy', dt, 'i')};`)}
  const double s = mx_bsum(acc, sh);
  if (live && ty == 0) { ${put('db', dt, 'c', `(${computeC(dt)})s`, mode)} }
}
`;
  });
}
