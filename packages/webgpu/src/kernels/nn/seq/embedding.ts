/**
 * Embedding and _backward_Embedding on webgpu.
 *
 * Forward: a 1-D gather, one invocation per output element: row r's index (any index dtype,
 * truncated and clipped into [0, input_dim-1] as MXNet's Take<clip>) picks the weight element.
 *
 * Backward: the weight gradient is a scatter-add over possibly repeated indices, and WebGPU has no
 * float atomics. So it is computed output-indexed, without races and deterministically:
 *   1. keys: (clipped index, row) pairs, padded to a power of two with (0xffffffff, row);
 *   2. a bitonic sort of the pairs (one dispatch per merge step; the steps share one pipeline);
 *   3. gather: one invocation per weight-gradient element (j, k) binary-searches the first pair
 *      with index j and adds the output-gradient rows of its run in row order, starting from 0
 *      (write) or the existing value (add) — the order cpu-wasm adds them in, so the sums match.
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import {
  bindBlobs,
  declareArrays,
  elemOffset,
  load,
  main1d,
  needsF16,
  paramsDecl,
  storageDecl,
  store,
} from '../../../wgsl.js';
import { define, indexReader, requireFloat, requireWordDtype } from './util.js';

const WG = 256;

interface EmbeddingAttrs {
  readonly input_dim: number;
  readonly output_dim: number;
}

// Forward uniforms: 0 n, 1 D, 2 K, 3 idxOff, 4 wOff, 5 outOff.
function forwardSource(add: boolean, dtypes: readonly DTypeName[], bind: ReturnType<typeof bindBlobs>) {
  const { decls, names } = declareArrays(bind, dtypes);
  const [idx, w, out] = names as [string, string, string];
  const wd = dtypes[1] as DTypeName;
  const oi = 'pu(5u) + i';
  const body = `  let D = pu(1u);
  let j = u32(clamp(rdidx(pu(3u) + i / D), 0, i32(pu(2u)) - 1));
  let v = ${load(w, wd, 'pu(4u) + j * D + i % D')};
  ${store(out, wd, oi, add ? `${load(out, wd, oi)} + v` : 'v')}`;
  return `${needsF16(dtypes) ? 'enable f16;\n' : ''}${paramsDecl(6)}${decls}${indexReader(
    'rdidx',
    idx,
    dtypes[0] as DTypeName,
  )}${main1d(WG, 'pu(0u)', body)}`;
}

// Keys uniforms: 0 P, 1 N, 2 K, 3 idxOff.
function keysSource(dtype: DTypeName): string {
  return `${needsF16([dtype]) ? 'enable f16;\n' : ''}${paramsDecl(4)}${storageDecl(1, 'ix', dtype)}${storageDecl(2, 'keys', 'uint32')}${indexReader('rdidx', 'ix', dtype)}${main1d(
    WG,
    'pu(0u)',
    `  var key = 0xffffffffu;
  if (i < pu(1u)) { key = u32(clamp(rdidx(pu(3u) + i), 0, i32(pu(2u)) - 1)); }
  keys[2u * i] = key;
  keys[2u * i + 1u] = i;`,
  )}`;
}

// Bitonic step uniforms: 0 P, 1 k (merge size), 2 j (compare distance).
const BITONIC = `${paramsDecl(3)}${storageDecl(1, 'keys', 'uint32')}${main1d(
  WG,
  'pu(0u)',
  `  let l = i ^ pu(2u);
  if (l <= i) { return; }
  let a = vec2<u32>(keys[2u * i], keys[2u * i + 1u]);
  let b = vec2<u32>(keys[2u * l], keys[2u * l + 1u]);
  let greater = a.x > b.x || (a.x == b.x && a.y > b.y);
  let up = (i & pu(1u)) == 0u;
  if (greater == up) {
    keys[2u * i] = b.x; keys[2u * i + 1u] = b.y;
    keys[2u * l] = a.x; keys[2u * l + 1u] = a.y;
  }`,
)}`;

// Gather uniforms: 0 n (= K*D), 1 D, 2 P, 3 ogOff, 4 outOff.
function gatherSource(add: boolean, dtype: DTypeName): string {
  const og = 'og';
  const out = 'o';
  const oi = 'pu(4u) + i';
  const t = dtype === 'float16' ? 'f16' : 'f32';
  return `${needsF16([dtype]) ? 'enable f16;\n' : ''}${paramsDecl(5)}${storageDecl(1, 'keys', 'uint32')}${storageDecl(2, og, dtype)}${storageDecl(3, out, dtype)}${main1d(
    WG,
    'pu(0u)',
    `  let D = pu(1u);
  let j = i / D;
  let k = i % D;
  var lo = 0u; var hi = pu(2u);
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (keys[2u * mid] < j) { lo = mid + 1u; } else { hi = mid; }
  }
  var acc = ${add ? load(out, dtype, oi) : `${t}(0)`};
  for (var p = lo; p < pu(2u) && keys[2u * p] == j; p++) {
    acc += ${load(og, dtype, 'pu(3u) + keys[2u * p + 1u] * D + k')};
  }
  ${store(out, dtype, oi, 'acc')}`,
  )}`;
}

function backward(
  rt: WebGpuRuntime,
  a: EmbeddingAttrs,
  og: GpuBlob,
  data: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
) {
  const N = data.size;
  const D = a.output_dim;
  const K = a.input_dim;
  let P = 1;
  while (P < N) P *= 2;
  const keys = rt.createBuffer(8 * P);
  if (N > 0) {
    const kEntry = rt.pipeline(`emb-keys:${data.dtype}`, () => keysSource(data.dtype), 4);
    rt.dispatch(kEntry, [data.ptr as GPUBuffer, keys], [P, N, K, elemOffset(data)], grid1d(P, WG));
    const bEntry = rt.pipeline('emb-bitonic', () => BITONIC, 3);
    for (let k = 2; k <= P; k *= 2)
      for (let j = k / 2; j >= 1; j /= 2) rt.dispatch(bEntry, [keys], [P, k, j], grid1d(P, WG));
  } else {
    rt.writeBuffer(keys, 0, new Uint32Array([0xffffffff, 0]));
  }
  const add = req === OpReq.add;
  const gEntry = rt.pipeline(`emb-gather:${add ? 1 : 0}:${og.dtype}`, () => gatherSource(add, og.dtype), 5);
  // An empty output gradient (no indices) has no buffer: bind a placeholder it never reads.
  const ogBuf = og.ptr ?? rt.createBuffer(4);
  const params = [K * D, D, P, og.ptr === null ? 0 : elemOffset(og), elemOffset(out)];
  rt.dispatch(gEntry, [keys, ogBuf, out.ptr as GPUBuffer], params, grid1d(K * D, WG));
  rt.release(keys);
  if (og.ptr === null) rt.release(ogBuf);
}

export function installEmbedding(registry: OpRegistry, gpu: GpuHost): void {
  define<EmbeddingAttrs>(registry, gpu, 'Embedding', (a, [data, weight], [r], [y]) => {
    const out = y as GpuBlob;
    if (r === OpReq.null || out.size === 0) return;
    requireWordDtype('Embedding', out, 'weight');
    const blobs = [data as GpuBlob, weight as GpuBlob, out];
    const bind = bindBlobs(blobs);
    const dtypes = blobs.map((b) => b.dtype);
    const add = r === OpReq.add;
    const rt = gpu.rt;
    const entry = rt.pipeline(
      `emb:${add ? 1 : 0}:${dtypes.join(',')}:${bind.key}`,
      () => forwardSource(add, dtypes, bind),
      6,
    );
    const params = [out.size, a.output_dim, a.input_dim, ...blobs.map(elemOffset)];
    rt.dispatch(entry, bind.buffers, params, grid1d(out.size, WG));
  });
  define<EmbeddingAttrs>(registry, gpu, '_backward_Embedding', (a, [ograd, data], [r], [gw]) => {
    const out = gw as GpuBlob;
    if (r === OpReq.null || out.size === 0) return;
    requireFloat('_backward_Embedding', ograd as GpuBlob, 'output gradient', true);
    backward(gpu.rt, a, ograd as GpuBlob, data as GpuBlob, out, r as OpReqType);
  });
}
