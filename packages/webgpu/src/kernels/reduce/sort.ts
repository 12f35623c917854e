/**
 * sort, argsort and topk on webgpu: a bitonic sort of (key, index) pairs per lane.
 *
 * Each element becomes a u32 key whose unsigned order is the wanted order (floats: sign-flipped
 * bits, -0 folded onto +0, every NaN one key above +inf as NumPy sorts NaN last; int32: bias; for
 * descending order the key is complemented, so NaN comes first, as cpu-wasm's reverse ranking),
 * paired with its position in the lane. Comparing (key, index) makes every pair distinct, so the
 * unstable bitonic network yields the stable order the golden cases check: ties keep input order
 * in both directions. Lanes are padded to P = 2^ceil(log2 n) with (max, max) pairs that sort last.
 *
 * Passes over a scratch buffer (keys, then indices):
 * - prepare: gather each lane (axis stride `inner`) into its padded row;
 * - local: a workgroup sorts/merges T consecutive elements in workgroup memory (T = 2048 where
 *   16 KiB allows), running every stage it can; rows shorter than T share a workgroup;
 * - global: for rows longer than T, the stages with partner distance >= T are single dispatches,
 *   each followed by a local pass finishing that merge's short distances;
 * - finish: the first k of each row gather values, write indices and/or set the mask, with req.
 * Sizes, k and directions are uniforms; pipelines depend on dtypes and which outputs exist.
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, paramsDecl } from '../../wgsl.js';
import { copyBytes } from '../copy/bytes.js';
import { fillBlob } from '../init/fill.js';
import { laneGeometry, nextPow2, REDUCE_DTYPES, unsupported } from './geometry.js';

const WG = 256;

function keyExpr(dtype: DTypeName, x: string): string {
  if (dtype === 'int32') return `(bitcast<u32>(${x}) ^ 0x80000000u)`;
  if (dtype === 'uint32') return x;
  return `fkey(${x})`;
}

const FKEY = `fn fkey(x: f32) -> u32 {
  var b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return 0xfffffffeu; }
  if ((b & 0x7fffffffu) == 0u) { b = 0u; }
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}
`;

function prepareSource(dtype: DTypeName): string {
  const st = dtype === 'int32' ? 'i32' : dtype === 'uint32' ? 'u32' : 'f32';
  return `${paramsDecl(8)}@group(0) @binding(1) var<storage, read_write> K: array<u32>;
@group(0) @binding(2) var<storage, read_write> X: array<${st}>;
${FKEY}
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let e = gid.x + gid.y * nwg.x * ${WG}u;
  let total = pu(5u);
  if (e >= total) { return; }
  let P = pu(4u); let n = pu(2u); let inner = pu(3u);
  let row = e / P; let j = e & (P - 1u);
  var key = 0xffffffffu; var id = 0xffffffffu;
  if (row < pu(1u) && j < n) {
    key = ${keyExpr(dtype, `X[pu(0u) + (row / inner) * n * inner + row % inner + j * inner]`)};
    if (pu(6u) != 0u) { key = ~key; }
    id = j;
  }
  K[e] = key;
  K[total + e] = id;
}
`;
}

/** (a > b) for pairs stored at i and l of arrays k/x. */
const GT = (k: string, x: string, i: string, l: string) =>
  `(${k}[${i}] > ${k}[${l}] || (${k}[${i}] == ${k}[${l}] && ${x}[${i}] > ${x}[${l}]))`;

function localSource(tmax: number): string {
  return `${paramsDecl(8)}@group(0) @binding(1) var<storage, read_write> K: array<u32>;
var<workgroup> sk: array<u32, ${tmax}>;
var<workgroup> sx: array<u32, ${tmax}>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let P = pu(0u); let T = pu(1u); let kEnd = pu(3u); let total = pu(5u);
  let base = (wid.x + wid.y * nwg.x) * T;
  for (var q = lid; q < T; q += ${WG}u) { sk[q] = K[base + q]; sx[q] = K[total + base + q]; }
  workgroupBarrier();
  var k = pu(2u);
  var j = pu(4u);
  loop {
    if (k > kEnd) { break; }
    for (var p = lid; p < T / 2u; p += ${WG}u) {
      let i = (p / j) * 2u * j + (p % j);
      let l = i + j;
      let asc = (((base + i) & (P - 1u)) & k) == 0u;
      if (${GT('sk', 'sx', 'i', 'l')} == asc) {
        let tk = sk[i]; sk[i] = sk[l]; sk[l] = tk;
        let tx = sx[i]; sx[i] = sx[l]; sx[l] = tx;
      }
    }
    workgroupBarrier();
    if (j <= 1u) { k = k * 2u; j = k / 2u; } else { j = j / 2u; }
  }
  for (var q = lid; q < T; q += ${WG}u) { K[base + q] = sk[q]; K[total + base + q] = sx[q]; }
}
`;
}

function globalSource(): string {
  return `${paramsDecl(4)}@group(0) @binding(1) var<storage, read_write> K: array<u32>;
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let p = gid.x + gid.y * nwg.x * ${WG}u;
  let P = pu(0u); let k = pu(1u); let j = pu(2u); let total = pu(3u);
  if (p >= total / 2u) { return; }
  let i = (p / j) * 2u * j + (p % j);
  let l = i + j;
  let asc = ((i & (P - 1u)) & k) == 0u;
  let a = K[i]; let b = K[l]; let ai = K[total + i]; let bi = K[total + l];
  if ((a > b || (a == b && ai > bi)) == asc) {
    K[i] = b; K[l] = a; K[total + i] = bi; K[total + l] = ai;
  }
}
`;
}

/** Which outputs a call writes and their blobs. */
export interface SortOutputs {
  readonly values?: { blob: GpuBlob; req: OpReqType };
  readonly indices?: { blob: GpuBlob; req: OpReqType };
  readonly mask?: { blob: GpuBlob; req: OpReqType };
}

function finishSource(x: DTypeName, o: SortOutputs, decls: string, names: string[]): string {
  const [, X, V, I, M] = names;
  const put = (arr: string, at: string, v: string, addWord: number) =>
    `if (pu(${addWord}u) != 0u) { ${arr}[${at}] = ${arr}[${at}] + ${v}; } else { ${arr}[${at}] = ${v}; }`;
  const st = (d: DTypeName) => (d === 'int32' ? 'i32' : d === 'uint32' ? 'u32' : 'f32');
  return `${paramsDecl(16)}${decls}
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let e = gid.x + gid.y * nwg.x * ${WG}u;
  let k = pu(1u);
  if (e >= pu(0u) * k) { return; }
  let n = pu(2u); let inner = pu(3u); let P = pu(4u); let total = pu(5u);
  let row = e / k; let j = e % k;
  let src = ${names[0]}[total + row * P + j];
  let o = row / inner; let kk = row % inner;
  let inPos = o * n * inner + kk + src * inner;
  let outPos = o * k * inner + kk + j * inner;
  ${o.values ? `let v = ${X}[pu(6u) + inPos]; ${put(V as string, 'pu(7u) + outPos', 'v', 10)}` : ''}
  ${o.indices ? `let ix = ${st(o.indices.blob.dtype)}(src); ${put(I as string, 'pu(8u) + outPos', 'ix', 11)}` : ''}
  ${o.mask ? put(M as string, 'pu(9u) + inPos', `${st(x)}(1)`, 12) : ''}
}
`;
}

/** Sort each lane of `x` along `axis` and write the first k (k < 1: all) to the requested outputs. */
export function sortLanes(
  rt: WebGpuRuntime,
  name: string,
  input: GpuBlob,
  axis: number | null,
  kParam: number,
  ascend: boolean,
  outs: SortOutputs,
): void {
  let x = input;
  for (const b of [x, outs.values?.blob, outs.indices?.blob, outs.mask?.blob]) {
    if (b !== undefined && !REDUCE_DTYPES.includes(b.dtype)) throw unsupported(name, b.dtype, REDUCE_DTYPES);
  }
  const live = (o: { blob: GpuBlob; req: OpReqType } | undefined) =>
    o !== undefined && o.req !== OpReq.null && o.blob.ptr !== null && o.blob.size > 0 ? o : undefined;
  const o: SortOutputs = { values: live(outs.values), indices: live(outs.indices), mask: live(outs.mask) };
  if (x.size === 0 || x.ptr === null || (!o.values && !o.indices && !o.mask)) return;
  const temps: GPUBuffer[] = [];
  if (o.values?.blob.ptr === x.ptr || o.mask?.blob.ptr === x.ptr) {
    // Output on the input's buffer (in place): gather values from a copy.
    const bytes = x.size * 4;
    const copy = rt.createBuffer(bytes);
    copyBytes(rt, copy, 0, x.ptr, x.byteOffset, bytes);
    temps.push(copy);
    x = { ...x, ptr: copy, byteOffset: 0 };
  }
  const [outer, n, inner] = laneGeometry(x.shape, axis);
  const rows = outer * inner;
  const k = kParam > 0 ? Math.min(kParam, n) : n;
  const P = nextPow2(n);
  const shared = rt.limits.maxComputeWorkgroupStorageSize;
  const tmax = Math.min(2048, 2 ** Math.floor(Math.log2(shared / 8)));
  const T = Math.min(tmax, nextPow2(rows * P));
  const total = Math.ceil((rows * P) / T) * T;
  const scratch = rt.createBuffer(total * 8);
  const prep = rt.pipeline(`sort:prepare:${x.dtype}`, () => prepareSource(x.dtype), 8);
  const desc = ascend ? 0 : 1;
  rt.dispatch(
    prep,
    [scratch, x.ptr as GPUBuffer],
    [elemOffset(x), rows, n, inner, P, total, desc],
    grid1d(total, WG),
  );
  if (P > 1) {
    const local = rt.pipeline(`sort:local:${tmax}`, () => localSource(tmax), 8);
    const glob = rt.pipeline('sort:global', globalSource, 4);
    const localPass = (k0: number, kEnd: number, j0: number) =>
      rt.dispatch(local, [scratch], [P, T, k0, kEnd, j0, total], grid1d((total / T) * WG, WG));
    localPass(2, Math.min(P, T), 1);
    for (let kk = 2 * T; kk <= P; kk *= 2) {
      for (let j = kk / 2; j >= T; j /= 2)
        rt.dispatch(glob, [scratch], [P, kk, j, total], grid1d(total / 2, WG));
      localPass(kk, kk, T / 2);
    }
  }
  if (o.mask && o.mask.req !== OpReq.add) fillBlob(rt, name, o.mask.blob, OpReq.write, 0);
  const scratchBlob = { ptr: scratch, dtype: 'uint32' } as GpuBlob;
  const blobs = [scratchBlob, o.values ? x : undefined, o.values?.blob, o.indices?.blob, o.mask?.blob];
  const present = blobs.map((b) => b ?? ({ ptr: null, dtype: 'uint32' } as unknown as GpuBlob));
  const bind = bindBlobs(present);
  const key = `sort:finish:${x.dtype}:${o.values ? 'v' : ''}${o.indices ? `i${o.indices.blob.dtype}` : ''}${o.mask ? 'm' : ''}:${bind.key}`;
  const fin = rt.pipeline(
    key,
    () => {
      const { decls, names } = declareArrays(
        bind,
        present.map((b) => b.dtype),
      );
      return finishSource(x.dtype, o, decls, names);
    },
    16,
  );
  const off = (b: { blob: GpuBlob } | undefined) => (b ? elemOffset(b.blob) : 0);
  const add = (b: { req: OpReqType } | undefined) => (b?.req === OpReq.add ? 1 : 0);
  const words = [
    rows,
    k,
    n,
    inner,
    P,
    total,
    elemOffset(x),
    off(o.values),
    off(o.indices),
    off(o.mask),
    add(o.values),
    add(o.indices),
    add(o.mask),
  ];
  rt.dispatch(fin, bind.buffers, words, grid1d(rows * k, WG));
  rt.release(scratch);
  for (const t of temps) rt.release(t);
}
