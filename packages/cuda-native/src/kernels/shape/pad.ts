/**
 * Pad and its gradient. Pad is one output-indexed kernel: each output coordinate maps back to the
 * input per axis (constant: outside the interior → the fill value; edge: clamped; reflect:
 * mirrored about the edge rows), so it is a single pass in any dtype with req add for free. Axes
 * with no padding that are contiguous in the input merge before the launch.
 *
 * `_backward_Pad` (cpu-wasm's order, so sums round the same): constant mode is the interior of
 * ograd; edge/reflect first fold the padding back one padded axis at a time, last axis first, each
 * fold output-indexed (row t of the interior adds the rows the forward copied from it: edge adds
 * the whole border run into the edge row, reflect up to two mirrored rows), into per-op scratch,
 * the last fold writing the output with req.
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import {
  BLOCK,
  blocksFor,
  type CudaSource,
  cachedSource,
  ctype,
  type KernelArg,
  KIND_C,
  loadC,
  MAXD,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { denseStrides, indexType, itemBytes, kernelError, reg, scalarParam, skip } from './common.js';
import { copyStrided, decompose } from './strided.js';

type PadMode = 'constant' | 'edge' | 'reflect';

/** One planned Pad axis: output extent, input stride, leading pad, input extent. */
export interface PadDim {
  n: number;
  stride: number;
  lo: number;
  cnt: number;
}

/** Drop unpadded size-1 axes; merge unpadded neighbours contiguous in the input. */
export function planPad(dims: readonly PadDim[]): PadDim[] {
  const out: PadDim[] = [];
  for (let i = dims.length - 1; i >= 0; i--) {
    const x = dims[i] as PadDim;
    const plain = x.lo === 0 && x.cnt === x.n;
    if (plain && x.n === 1) continue;
    const inner = out[0];
    if (
      plain &&
      inner !== undefined &&
      inner.lo === 0 &&
      inner.cnt === inner.n &&
      x.stride === inner.stride * inner.n
    ) {
      inner.n *= x.n;
      inner.cnt = inner.n;
    } else out.unshift({ ...x });
  }
  return out;
}

function padSource(
  dtype: DTypeName,
  mode: PadMode,
  add: boolean,
  nd: number,
  I: string,
  fc: string,
): CudaSource {
  const key = `pad:${dtype}:${mode}:${add ? 'add' : 'w'}:${nd}:${I}`;
  return cachedSource(`shape_pad`, key, (entry) => {
    const S = ctype(dtype).storage;
    const K = KIND_C[ctype(dtype).kind];
    const axis = (d: number) => {
      const t = `t${d}`;
      const L = `cnt.v[${d}]`;
      let map: string;
      if (mode === 'constant') map = `if (${t} < 0 || ${t} >= ${L}) ok = false;`;
      else if (mode === 'edge') map = `${t} = ${t} < 0 ? 0 : (${t} >= ${L} ? ${L} - 1 : ${t});`;
      else
        map = `if (${t} < 0) ${t} = -${t};
    if (${t} >= ${L}) ${t} = 2 * (${L} - 1) - ${t};
    ${t} = ${t} < 0 ? 0 : (${t} >= ${L} ? ${L} - 1 : ${t});`;
      return `    long long ${t} = (long long)c${d} - lo.v[${d}];
    ${map}
    so += ${t} * sst.v[${d}];`;
    };
    const read =
      mode === 'constant' ? `(ok ? ${loadC('src', dtype, 'so')} : (${K})fv)` : loadC('src', dtype, 'so');
    const store = add
      ? `out[i] = ${toStorage(dtype, `${loadC('out', dtype, 'i')} + ${read}`)};`
      : mode === 'constant'
        ? `out[i] = ok ? src[so] : ${toStorage(dtype, 'fv')};`
        : 'out[i] = src[so];';
    const code = `extern "C" __global__ void ${entry}(${S}* out, const ${S}* src, long long n, MxDims shape, MxDims sst, MxDims lo, MxDims cnt, ${fc} fv) {
  MX_GRID_LOOP(i, n) {
${decompose(nd, I)}
    long long so = 0;
    bool ok = true;
${Array.from({ length: nd }, (_, d) => axis(d)).join('\n')}
    ${store}
  }
}
`;
    return code;
  });
}

function pad(
  rt: CudaRuntime,
  src: CudaBlob,
  out: CudaBlob,
  req: OpReqType,
  mode: PadMode,
  pw: readonly number[],
  value: number,
): void {
  if (src.size === 0 && mode !== 'constant') {
    throw kernelError('Pad', `mode '${mode}' needs a non-empty input`, {
      shapes: [[...src.shape]],
      hint: "use mode='constant' for empty inputs",
    });
  }
  const st = denseStrides(src.shape);
  const dims = planPad(
    out.shape.map((n, i) => ({
      n,
      stride: src.size === 0 ? 0 : (st[i] as number),
      lo: src.size === 0 ? n : (pw[2 * i] ?? 0),
      cnt: src.size === 0 ? 0 : (src.shape[i] as number),
    })),
  );
  if (dims.length > MAXD) {
    throw kernelError('Pad', `${dims.length} padded axes exceed the cuda kernel's limit of ${MAXD}`, {
      shapes: [[...src.shape], [...out.shape]],
      hint: 'pad fewer axes at a time',
    });
  }
  const fv = scalarParam(out.dtype, value, 'Pad');
  const n = out.size;
  const args: KernelArg[] = [
    { t: 'ptr', v: addr(out, 'Pad') },
    { t: 'ptr', v: src.size === 0 ? addr(out, 'Pad') : addr(src, 'Pad') },
    { t: 'i64', v: n },
    { t: 'dims', v: dims.map((d) => d.n) },
    { t: 'dims', v: dims.map((d) => d.stride) },
    { t: 'dims', v: dims.map((d) => d.lo) },
    { t: 'dims', v: dims.map((d) => d.cnt) },
    fv.arg,
  ];
  const source = padSource(out.dtype, mode, req === OpReq.add, dims.length, indexType(n), fv.c);
  rt.launch(source, [blocksFor(n)], [BLOCK], args);
}

/** `acc + x` in `dtype`'s arithmetic, rounded to the storage type each step (as cpu-wasm stores). */
function stepAdd(dtype: DTypeName, x: string): string {
  if (dtype === 'float16') return `acc = mx_h2f(mx_f2h(acc + ${x}));`;
  if (dtype === 'bfloat16') return `acc = mx_bf2f(mx_f2bf(acc + ${x}));`;
  return `acc = acc + ${x};`;
}

function foldSource(dtype: DTypeName, mode: 'edge' | 'reflect', add: boolean, I: string): CudaSource {
  const key = `padfold:${dtype}:${mode}:${add ? 'add' : 'w'}:${I}`;
  return cachedSource(`shape_padfold`, key, (entry) => {
    const S = ctype(dtype).storage;
    const K = KIND_C[ctype(dtype).kind];
    const ld = (row: string) => loadC('src', dtype, `base + (long long)(${row}) * (long long)B`);
    const body =
      mode === 'edge'
        ? `    if (t == 0) { for (${I} c = 0; c < lo; c++) { ${stepAdd(dtype, ld('c'))} } }
    if (t + 1 == L) { for (${I} c = lo + L; c < lo + L + hi; c++) { ${stepAdd(dtype, ld('c'))} } }`
        : `    if (t >= 1 && t <= lo) { ${stepAdd(dtype, ld('lo - t'))} }
    if (t + 1 + hi >= L && t + 2 <= L) { ${stepAdd(dtype, ld('lo + 2 * L - 2 - t'))} }`;
    const store = add ? toStorage(dtype, `${loadC('dst', dtype, 'i')} + acc`) : toStorage(dtype, 'acc');
    const code = `extern "C" __global__ void ${entry}(${S}* dst, const ${S}* src, long long n, long long Bl, long long Ll, long long Pl, long long lol, long long hil) {
  ${I} B = (${I})Bl, L = (${I})Ll, P = (${I})Pl, lo = (${I})lol, hi = (${I})hil;
  MX_GRID_LOOP(i, n) {
    ${I} e = (${I})i;
    ${I} bb = e % B;
    ${I} r = e / B;
    ${I} t = r % L;
    long long base = (long long)(r / L) * P * B + bb;
    ${K} acc = ${ld('t + lo')};
${body}
    dst[i] = ${store};
  }
}
`;
    return code;
  });
}

function padBackward(
  rt: CudaRuntime,
  og: CudaBlob,
  out: CudaBlob,
  req: OpReqType,
  mode: string,
  pw: readonly number[],
): void {
  const op = '_backward_Pad';
  const n = out.shape.length;
  const bytes = itemBytes(out.dtype, op);
  const padded = Array.from({ length: n }, (_, i) => i).filter(
    (i) => (pw[2 * i] as number) + (pw[2 * i + 1] as number) > 0,
  );
  if (mode === 'constant' || padded.length === 0 || og.size === 0) {
    const ost = denseStrides(og.shape);
    const offset = Array.from({ length: n }, (_, i) => (pw[2 * i] as number) * (ost[i] as number)).reduce(
      (a, b) => a + b,
      0,
    );
    copyStrided(
      rt,
      out.dtype,
      out.shape,
      { ptr: addr(og, op) + offset * bytes, strides: ost },
      { ptr: addr(out, op), strides: denseStrides(out.shape) },
      req,
      op,
    );
    return;
  }
  let curPtr = addr(og, op);
  const shape = [...og.shape];
  const order = [...padded].reverse();
  order.forEach((k, j) => {
    const L = out.shape[k] as number;
    const P = shape[k] as number;
    shape[k] = L;
    const size = shape.reduce((a, b) => a * b, 1);
    const last = j === order.length - 1;
    const dst = last ? addr(out, op) : rt.temp(size * bytes);
    const B = shape.slice(k + 1).reduce((a, b) => a * b, 1);
    const a = last && req === OpReq.add;
    const I = indexType((size / L) * P + P * B);
    const source = foldSource(out.dtype, mode === 'edge' ? 'edge' : 'reflect', a, I);
    rt.launch(
      source,
      [blocksFor(size)],
      [BLOCK],
      [
        { t: 'ptr', v: dst },
        { t: 'ptr', v: curPtr },
        { t: 'i64', v: size },
        { t: 'i64', v: B },
        { t: 'i64', v: L },
        { t: 'i64', v: P },
        { t: 'i64', v: pw[2 * k] as number },
        { t: 'i64', v: pw[2 * k + 1] as number },
      ],
    );
    curPtr = dst;
  });
}

export function installPad(registry: OpRegistry, host: CudaHost): void {
  reg<{ mode: string; pad_width: readonly number[]; constant_value: number }>(
    registry,
    host,
    'Pad',
    (a, [x], [r], [y]) => {
      if (skip(r, y)) return;
      const mode: PadMode = a.mode === 'edge' ? 'edge' : a.mode === 'reflect' ? 'reflect' : 'constant';
      pad(host.rt, x as CudaBlob, y as CudaBlob, r as OpReqType, mode, a.pad_width, a.constant_value);
    },
  );

  reg<{ mode: string; pad_width: readonly number[] }>(registry, host, '_backward_Pad', (a, [g], [r], [y]) => {
    if (skip(r, y)) return;
    padBackward(host.rt, g as CudaBlob, y as CudaBlob, r as OpReqType, a.mode, a.pad_width);
  });
}
