/**
 * The workhorse of the cuda-native shape family: copy (or add) an N-d strided window of device
 * memory into another, like cpu-wasm's strided-copy.ts. Both windows are a byte address of element
 * [0, ..., 0] plus per-axis strides in elements (any sign, 0 for broadcasts). Planning on the host
 * drops size-1 axes and merges axes contiguous in both windows, so most views become 1-3 dims; the
 * kernel is specialised on that count (unrolled, shapes/strides in MxDims registers) and on what it
 * moves: raw 1/2/4/8-byte words for write (every dtype, no value is interpreted) or the dtype's
 * arithmetic for req add (bool as or, 16-bit floats through float). A single contiguous run with
 * write is a device memcpy. Views of more than MAXD merged axes loop over the leading ones on the
 * host. A source that overlaps the destination (other than the same elements in place) is first
 * copied to the op's scratch, so no thread reads what another writes.
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import { BLOCK, blocksFor, type CudaSource, ctype, hashText, loadC, MAXD, toStorage } from '../../cuda-c.js';
import { addr, type CudaBlob } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { byteSpan, indexType, itemBytes, rawType } from './common.js';

/** An N-d window: device byte address of element [0, ..., 0] and strides in elements. */
export interface Window {
  readonly ptr: number;
  readonly strides: readonly number[];
}

/** One planned axis: extent, source and destination strides (elements). */
export interface CopyDim {
  n: number;
  s: number;
  d: number;
}

/** Drop size-1 axes and merge neighbours contiguous in both windows (outer-to-inner order kept). */
export function planCopy(
  shape: readonly number[],
  src: readonly number[],
  dst: readonly number[],
): CopyDim[] | null {
  if (shape.some((n) => n === 0)) return null;
  const out: CopyDim[] = [];
  for (let i = shape.length - 1; i >= 0; i--) {
    const n = shape[i] as number;
    if (n === 1) continue;
    const s = src[i] as number;
    const d = dst[i] as number;
    const inner = out[0];
    if (inner !== undefined && s === inner.s * inner.n && d === inner.d * inner.n) inner.n *= n;
    else out.unshift({ n, s, d });
  }
  return out;
}

const cache = new Map<string, CudaSource>();

/** Index decomposition of `i` over `nd` dims held in MxDims `shape` into coordinates c0..c{nd-1}. */
export function decompose(nd: number, I: string, shape = 'shape', from = 'i'): string {
  if (nd === 0) return '';
  const lines = [`    ${I} r = (${I})${from};`];
  for (let d = nd - 1; d >= 1; d--) {
    lines.push(`    ${I} c${d} = r % (${I})${shape}.v[${d}]; r /= (${I})${shape}.v[${d}];`);
  }
  lines.push(`    ${I} c0 = r;`);
  return lines.join('\n');
}

/** `Σ_d c_d * strides.v[d]` as a long long expression. */
export function offsetExpr(nd: number, strides: string): string {
  if (nd === 0) return '0LL';
  return Array.from({ length: nd }, (_, d) => `(long long)c${d} * ${strides}.v[${d}]`).join(' + ');
}

function copySource(nd: number, dtype: DTypeName | null, bytes: number, I: string): CudaSource {
  const key = `copy:${nd}:${dtype ?? `w${bytes}`}:${I}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const S = dtype === null ? rawType(bytes) : ctype(dtype).storage;
  const entry = `mx_shape_copy_${hashText(key)}`;
  const store =
    dtype === null
      ? 'out[dof] = src[so];'
      : `out[dof] = ${toStorage(dtype, `${loadC('out', dtype, 'dof')} + ${loadC('src', dtype, 'so')}`)};`;
  const code = `extern "C" __global__ void ${entry}(${S}* out, const ${S}* src, long long n, MxDims shape, MxDims sst, MxDims dst) {
  MX_GRID_LOOP(i, n) {
${decompose(nd, I)}
    long long so = ${offsetExpr(nd, 'sst')};
    long long dof = ${offsetExpr(nd, 'dst')};
    ${store}
  }
}
`;
  const src = { entry, code };
  cache.set(key, src);
  return src;
}

function launchCopy(
  rt: CudaRuntime,
  dtype: DTypeName,
  add: boolean,
  dims: readonly CopyDim[],
  src: number,
  dst: number,
): void {
  const bytes = ctype(dtype).bytes;
  const n = dims.reduce((a, d) => a * d.n, 1);
  if (!add && (dims.length === 0 || (dims.length === 1 && dims[0]?.s === 1 && dims[0]?.d === 1))) {
    rt.copy(dst, src, n * bytes);
    return;
  }
  const source = copySource(dims.length, add ? dtype : null, bytes, indexType(n));
  rt.launch(
    source,
    [blocksFor(n)],
    [BLOCK],
    [
      { t: 'ptr', v: dst },
      { t: 'ptr', v: src },
      { t: 'i64', v: n },
      { t: 'dims', v: dims.map((d) => d.n) },
      { t: 'dims', v: dims.map((d) => d.s) },
      { t: 'dims', v: dims.map((d) => d.d) },
    ],
  );
}

/**
 * Copy (req write/inplace) or add (req add) the window `src` of shape `shape` into the window
 * `dst` (same shape), both of dtype `dtype`. Nothing for req null, an empty shape, or the same
 * elements copied onto themselves.
 */
export function copyStrided(
  rt: CudaRuntime,
  dtype: DTypeName,
  shape: readonly number[],
  src: Window,
  dst: Window,
  req: OpReqType,
  op: string,
): void {
  if (req === OpReq.null) return;
  const add = req === OpReq.add;
  const bytes = itemBytes(dtype, op);
  const dims = planCopy(shape, src.strides, dst.strides);
  if (dims === null) return;
  const same = src.ptr === dst.ptr && dims.every((d) => d.s === d.d);
  if (same && !add) return;
  let sp = src.ptr;
  if (!same) {
    const ns = dims.map((d) => d.n);
    const [a0, a1] = byteSpan(
      src.ptr,
      ns,
      dims.map((d) => d.s),
      bytes,
    );
    const [b0, b1] = byteSpan(
      dst.ptr,
      ns,
      dims.map((d) => d.d),
      bytes,
    );
    if (a0 < b1 && b0 < a1) {
      const tmp = rt.temp(a1 - a0);
      rt.copy(tmp, a0, a1 - a0);
      sp = tmp + (src.ptr - a0);
    }
  }
  if (dims.length <= MAXD) {
    launchCopy(rt, dtype, add, dims, sp, dst.ptr);
    return;
  }
  // More axes than a kernel walks: loop over the leading ones here.
  const lead = dims.slice(0, dims.length - MAXD);
  const rest = dims.slice(dims.length - MAXD);
  const count = lead.reduce((a, d) => a * d.n, 1);
  for (let k = 0; k < count; k++) {
    let r = k;
    let so = 0;
    let dof = 0;
    for (let j = lead.length - 1; j >= 0; j--) {
      const d = lead[j] as CopyDim;
      const c = r % d.n;
      r = Math.floor(r / d.n);
      so += c * d.s;
      dof += c * d.d;
    }
    launchCopy(rt, dtype, add, rest, sp + so * bytes, dst.ptr + dof * bytes);
  }
}

/** The dense window of a blob. */
export function denseWindow(b: CudaBlob, op: string, strides: readonly number[]): Window {
  return { ptr: addr(b, op), strides };
}

/** Dense copy of `src` into `out` (same element count) honouring req; nothing when in place. */
export function copyDense(rt: CudaRuntime, op: string, src: CudaBlob, out: CudaBlob, req: OpReqType): void {
  if (req === OpReq.null || out.size === 0) return;
  copyStrided(rt, out.dtype, [out.size], denseWindow(src, op, [1]), denseWindow(out, op, [1]), req, op);
}

/** Zero a whole blob (write) — the "fill 0" of the gradients that scatter into a window. */
export function zeroBlob(rt: CudaRuntime, out: CudaBlob, op: string): void {
  if (out.size === 0) return;
  rt.memset(addr(out, op), 0, out.size * itemBytes(out.dtype, op));
}
