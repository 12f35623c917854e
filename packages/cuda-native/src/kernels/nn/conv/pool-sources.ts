/**
 * The CUDA C of Pooling and _backward_Pooling (ported from webgpu's pool-wgsl.ts, semantics of
 * cpu-wasm's pool-run.ts): a forward thread per output looping over its window; a max backward pass
 * recording per output the first window element (row-major) equal to the output; a backward gather
 * thread per input element summing the gradients of the outputs whose windows cover it, so every
 * dX element has one writer and req add is a plain read-modify-write.
 *
 * Windows: start = o·stride - pad clipped to [0, extent); `full` is the window clipped to the padded
 * extent (the count_include_pad divisor; otherwise the real element count divides). Max keeps
 * `if (x > s) s = x` from the lowest finite value (NaN never wins). Geometry is 3-D (1-D/2-D get
 * unit leading axes) with element strides per axis for channel-first and channel-last layouts:
 * MxDims win = [in0..2, out0..2, CH, count_include_pad], kst = [kernel0..2, stride0..2],
 * pd = [pad0..2], is/os = input/output strides [n, c, d, h, w].
 */
import type { DTypeName } from '@mx/base';
import { ctype, loadC } from '../../../cuda-c.js';
import type { IndexC } from './conv-sources.js';
import { computeC, type Mode, put, source } from './cuda-util.js';

export type PoolKind = 'max' | 'avg' | 'sum' | 'lp2' | 'lp3';

const PARAMS = 'MxDims win, MxDims kst, MxDims pd, MxDims is, MxDims os, long long total';

const GEOM = `  const long long in0 = win.v[0], in1 = win.v[1], in2 = win.v[2], out0 = win.v[3], out1 = win.v[4], out2 = win.v[5], CH = win.v[6];
  const bool includePad = win.v[7] != 0;
`;

/** Decompose e (logical order n, c, a0, a1, a2 over extents e0..e2) into n, c, <p>0..2. */
function decompose(T: IndexC, p: string, e: readonly [string, string, string]): string {
  return `    ${T} t = (${T})e;
    const long long ${p}2 = t % (${T})${e[2]}; t /= (${T})${e[2]};
    const long long ${p}1 = t % (${T})${e[1]}; t /= (${T})${e[1]};
    const long long ${p}0 = t % (${T})${e[0]}; t /= (${T})${e[0]};
    const long long c = t % (${T})CH; const long long n = t / (${T})CH;
`;
}

/** The window of output o<a> on axis a: raw start, clipped start/end, size clipped to the padded extent. */
function windowOf(o: string, a: number, v: string): string {
  return `    const long long raw${v} = ${o} * kst.v[${3 + a}] - pd.v[${a}];
    const long long end${v} = min(raw${v} + kst.v[${a}], in${a});
    const long long full${v} = min(raw${v} + kst.v[${a}], in${a} + pd.v[${a}]) - raw${v};
    const long long st${v} = max(raw${v}, 0LL);
`;
}

const windows = (p: string): string => [0, 1, 2].map((a) => windowOf(`${p}${a}`, a, `${a}`)).join('');

const divisor = `(includePad ? full0 * full1 * full2 : (end0 - st0) * (end1 - st1) * (end2 - st2))`;

const lowest = (dt: DTypeName): string =>
  ctype(dt).kind === 'f64' ? '(-1.7976931348623157e308)' : '(-3.4028234663852886e38f)';

export function poolForwardSource(dt: DTypeName, T: IndexC, kind: PoolKind, mode: Mode) {
  return source('pool_fwd', `${dt}:${T}:${kind}:${mode}`, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    const combine =
      kind === 'max'
        ? 'if (v > s) s = v;'
        : kind === 'lp2'
          ? 's += v * v;'
          : kind === 'lp3'
            ? 's += v * v * v;'
            : 's += v;';
    const fin =
      kind === 'avg'
        ? `s = s / (${A})${divisor};`
        : kind === 'lp2'
          ? 's = sqrt(s);'
          : kind === 'lp3'
            ? 's = cbrt(s);'
            : '';
    return `extern "C" __global__ void ${entry}(const ${S}* x, ${S}* y, ${PARAMS}) {
${GEOM}  MX_GRID_LOOP(e, total) {
${decompose(T, 'o', ['out0', 'out1', 'out2'])}${windows('o')}    const long long xb = n * is.v[0] + c * is.v[1];
    ${A} s = ${kind === 'max' ? lowest(dt) : `(${A})0`};
    for (long long d = st0; d < end0; d++)
      for (long long h = st1; h < end1; h++)
        for (long long w = st2; w < end2; w++) {
          const ${A} v = ${loadC('x', dt, 'xb + d * is.v[2] + h * is.v[3] + w * is.v[4]')};
          ${combine}
        }
    ${fin}
    const long long yi = n * os.v[0] + c * os.v[1] + o0 * os.v[2] + o1 * os.v[3] + o2 * os.v[4];
    ${put('y', dt, 'yi', 's', mode)}
  }
}
`;
  });
}

/** Max backward pass 1: idx[e] = the plane index of the first window element equal to output e, or -1. */
export function poolArgmaxSource(dt: DTypeName, T: IndexC) {
  return source('pool_argmax', `${dt}:${T}`, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    return `extern "C" __global__ void ${entry}(const ${S}* x, const ${S}* y, int* idx, ${PARAMS}) {
${GEOM}  MX_GRID_LOOP(e, total) {
${decompose(T, 'o', ['out0', 'out1', 'out2'])}${windows('o')}    const long long xb = n * is.v[0] + c * is.v[1];
    const ${A} yv = ${loadC('y', dt, 'n * os.v[0] + c * os.v[1] + o0 * os.v[2] + o1 * os.v[3] + o2 * os.v[4]')};
    int found = -1;
    for (long long d = st0; d < end0 && found < 0; d++)
      for (long long h = st1; h < end1 && found < 0; h++)
        for (long long w = st2; w < end2; w++) {
          if (${loadC('x', dt, 'xb + d * is.v[2] + h * is.v[3] + w * is.v[4]')} == yv) {
            found = (int)((d * in1 + h) * in2 + w);
            break;
          }
        }
    idx[e] = found;
  }
}
`;
  });
}

/** Backward gather: dx[i] (=|+=) Σ over the outputs whose window covers i of their gradient share. */
export function poolGatherSource(dt: DTypeName, T: IndexC, kind: PoolKind, mode: Mode) {
  return source('pool_bwd', `${dt}:${T}:${kind}:${mode}`, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    const lp = kind === 'lp2' || kind === 'lp3';
    const args = [`const ${S}* dy`, `${S}* dx`];
    if (lp) args.push(`const ${S}* x`, `const ${S}* y`);
    if (kind === 'max') args.push('const int* idx');
    const range = (a: number): string => `    const long long num${a} = i${a} + pd.v[${a}] - kst.v[${a}] + 1;
    const long long lo${a} = num${a} > 0 ? (num${a} + kst.v[${3 + a}] - 1) / kst.v[${3 + a}] : 0;
    const long long hi${a} = min((i${a} + pd.v[${a}]) / kst.v[${3 + a}] + 1, out${a});
`;
    let term = 'g';
    if (kind === 'max')
      term = `(idx[((n * CH + c) * out0 + o0) * out1 * out2 + o1 * out2 + o2] == me ? g : (${A})0)`;
    else if (kind === 'avg') term = `g / (${A})${divisor}`;
    else if (kind === 'lp2') term = `(yv == (${A})0 ? (${A})0 : g * (xv / yv))`;
    else if (kind === 'lp3') term = `(yv == (${A})0 ? (${A})0 : g * ((xv / yv) * (xv / yv)))`;
    return `extern "C" __global__ void ${entry}(${args.join(', ')}, ${PARAMS}) {
${GEOM}  MX_GRID_LOOP(e, total) {
${decompose(T, 'i', ['in0', 'in1', 'in2'])}${[0, 1, 2].map(range).join('')}    const long long me = (i0 * in1 + i1) * in2 + i2;
    const long long ob = n * os.v[0] + c * os.v[1];
    const long long xi = n * is.v[0] + c * is.v[1] + i0 * is.v[2] + i1 * is.v[3] + i2 * is.v[4];
    ${lp ? `const ${A} xv = ${loadC('x', dt, 'xi')};` : ''}
    ${A} s = (${A})0;
    for (long long o0 = lo0; o0 < hi0; o0++)
      for (long long o1 = lo1; o1 < hi1; o1++)
        for (long long o2 = lo2; o2 < hi2; o2++) {
${kind === 'avg' ? windows('o') : ''}          const long long oi = ob + o0 * os.v[2] + o1 * os.v[3] + o2 * os.v[4];
          const ${A} g = ${loadC('dy', dt, 'oi')};
          ${lp ? `const ${A} yv = ${loadC('y', dt, 'oi')};` : ''}
          s += ${term};
        }
    ${put('dx', dt, 'xi', 's', mode)}
  }
}
`;
  });
}
