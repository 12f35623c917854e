/**
 * `_np_cumsum` (alias cumsum) on webgpu: an inclusive scan of each (outer, n, inner) lane.
 *
 * Like MXNet (and cpu-wasm) each element is first cast to the output dtype and the running sum is
 * kept in that dtype (integers wrap). Short lanes (n <= 128) are one invocation each, a sequential
 * scan — NumPy's order, bit-exact for floats. Longer lanes take a workgroup each: blocks of 256
 * elements scanned in workgroup memory (Hillis-Steele), each block's total carried into the next.
 * Every element is read before its slot is written by the same invocation, so the in-place option
 * (output 0 on input 0) is safe in both modes.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, main1d, paramsDecl, wgslType } from '../../wgsl.js';
import { castTo, laneGeometry, REDUCE_DTYPES, unsupported } from './geometry.js';

const WG = 256;
const SEQ_MAX = 128;

function source(block: boolean, od: DTypeName, decls: string, names: string[]): string {
  const [X, Y] = names as [string, string];
  const t = wgslType(od).scalar;
  const write = (at: string, v: string) =>
    `if (pu(5u) != 0u) { ${Y}[${at}] = ${Y}[${at}] + ${v}; } else { ${Y}[${at}] = ${v}; }`;
  const head = `${paramsDecl(8)}${decls}`;
  if (!block) {
    return `${head}${main1d(
      64,
      'pu(2u)',
      `  let n = pu(3u); let inner = pu(4u);
  let base = (i / inner) * n * inner + i % inner;
  var acc = ${t}(0);
  for (var j = 0u; j < n; j++) {
    let p = base + j * inner;
    acc = acc + ${castTo(od, `${X}[pu(0u) + p]`)};
    ${write('pu(1u) + p', 'acc')}
  }`,
    )}`;
  }
  return `${head}var<workgroup> sh: array<${t}, ${WG}>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let lane = wid.x + wid.y * nwg.x;
  if (lane >= pu(2u)) { return; }
  let n = pu(3u); let inner = pu(4u);
  let base = (lane / inner) * n * inner + lane % inner;
  var carry = ${t}(0);
  for (var b = 0u; b < n; b += ${WG}u) {
    let j = b + lid;
    let p = base + j * inner;
    var v = ${t}(0);
    if (j < n) { v = ${castTo(od, `${X}[pu(0u) + p]`)}; }
    sh[lid] = v;
    workgroupBarrier();
    for (var s = 1u; s < ${WG}u; s = s << 1u) {
      var u = sh[lid];
      if (lid >= s) { u = u + sh[lid - s]; }
      workgroupBarrier();
      sh[lid] = u;
      workgroupBarrier();
    }
    let r = sh[lid] + carry;
    if (j < n) { ${write('pu(1u) + p', 'r')} }
    carry = carry + sh[${WG - 1}u];
    workgroupBarrier();
  }
}
`;
}

function cumsum(rt: WebGpuRuntime, axis: number | null, x: GpuBlob, y: GpuBlob, req: OpReqType): void {
  for (const d of [x.dtype, y.dtype])
    if (!REDUCE_DTYPES.includes(d)) throw unsupported('_np_cumsum', d, REDUCE_DTYPES);
  if (req === OpReq.null || x.size === 0 || x.ptr === null || y.ptr === null) return;
  const [outer, n, inner] = laneGeometry(x.shape, axis);
  const lanes = outer * inner;
  const block = n > SEQ_MAX;
  const bind = bindBlobs([x, y]);
  const entry = rt.pipeline(
    `cumsum:${block ? 'block' : 'seq'}:${x.dtype}:${y.dtype}:${bind.key}`,
    () => {
      const { decls, names } = declareArrays(bind, [x.dtype, y.dtype]);
      return source(block, y.dtype, decls, names);
    },
    8,
  );
  const words = [elemOffset(x), elemOffset(y), lanes, n, inner, req === OpReq.add ? 1 : 0];
  rt.dispatch(entry, bind.buffers, words, block ? grid1d(lanes * WG, WG) : grid1d(lanes, 64));
}

export function installCumsum(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    '_np_cumsum',
    'webgpu',
    gpuKernel<{ axis: number | null } & Attrs>(
      gpu,
      '_np_cumsum',
      (a, inputs, req, outputs) =>
        cumsum(gpu.rt, a.axis, inputs[0] as GpuBlob, outputs[0] as GpuBlob, req[0] as OpReqType),
      REDUCE_DTYPES,
    ),
  );
}
