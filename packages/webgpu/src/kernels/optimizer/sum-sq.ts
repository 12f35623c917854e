/**
 * multi_sum_sq on webgpu: the sum of squares of each input, as float32 (MXNet contrib/multi_sum_sq).
 * Two passes, so no float atomics are needed and the result does not depend on scheduling:
 *
 *   partial: per array, PARTS workgroups of WG threads; each thread sums its strided elements with
 *            Kahan compensation, then a workgroup tree reduction writes one partial per workgroup
 *            into the array's row of a scratch buffer;
 *   final:   one workgroup per array tree-reduces its PARTS partials into out[i] (under req).
 *
 * The partial pass binds one input at a time (devices bind few storage buffers per dispatch).
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { elemOffset, load, needsF16, paramsDecl, storageDecl } from '../../wgsl.js';

const WG = 256;
const PARTS = 128;

const TREE = `  sh[lid] = acc;
  workgroupBarrier();
  for (var s = ${WG / 2}u; s > 0u; s >>= 1u) {
    if (lid < s) { sh[lid] = sh[lid] + sh[lid + s]; }
    workgroupBarrier();
  }`;

function partialSource(dtype: DTypeName): string {
  return `${needsF16([dtype]) ? 'enable f16;\n' : ''}${paramsDecl(3)}${storageDecl(1, 'x', dtype)}${storageDecl(2, 'part', 'float32')}
var<workgroup> sh: array<f32, ${WG}>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) g: vec3<u32>) {
  let lid = l.x;
  let n = pu(0u); let off = pu(1u);
  var acc = 0.0; var c = 0.0;
  for (var k = g.x * ${WG}u + lid; k < n; k += ${WG * PARTS}u) {
    let v = f32(${load('x', dtype, 'off + k')});
    let y = v * v - c;
    let t = acc + y;
    c = (t - acc) - y;
    acc = t;
  }
${TREE}
  if (lid == 0u) { part[pu(2u) + g.x] = sh[0]; }
}
`;
}

function finalSource(add: boolean): string {
  return `${paramsDecl(2)}${storageDecl(1, 'part', 'float32')}${storageDecl(2, 'o', 'float32')}
var<workgroup> sh: array<f32, ${WG}>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) g: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let lid = l.x;
  let a = g.x + g.y * nwg.x;
  if (a >= pu(1u)) { return; }
  var acc = 0.0;
  for (var k = lid; k < ${PARTS}u; k += ${WG}u) { acc += part[a * ${PARTS}u + k]; }
${TREE}
  if (lid == 0u) { o[pu(0u) + a] = ${add ? 'o[pu(0u) + a] + ' : ''}sh[0]; }
}
`;
}

function sumSq(rt: WebGpuRuntime, inputs: readonly GpuBlob[], out: GpuBlob, req: OpReqType): void {
  const count = inputs.length;
  if (count === 0) return;
  const part = rt.createBuffer(count * PARTS * 4);
  // A zero-size array has no buffer: its partials are zeros summed from an empty range.
  const dummy = inputs.some((x) => x.ptr === null) ? rt.createBuffer(4) : undefined;
  inputs.forEach((x, i) => {
    const entry = rt.pipeline(`opt:sumsq-part:${x.dtype}`, () => partialSource(x.dtype), 3);
    const src = (x.ptr ?? dummy) as GPUBuffer;
    rt.dispatch(entry, [src, part], [x.size, x.ptr === null ? 0 : elemOffset(x), i * PARTS], [PARTS]);
  });
  if (dummy !== undefined) rt.release(dummy);
  const add = req === OpReq.add;
  const fin = rt.pipeline(`opt:sumsq-final:${add ? 1 : 0}`, () => finalSource(add), 2);
  rt.dispatch(fin, [part, out.ptr as GPUBuffer], [elemOffset(out), count], grid1d(count, 1));
  rt.release(part);
}

export function installSumSq(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'multi_sum_sq',
    'webgpu',
    gpuKernel(
      gpu,
      'multi_sum_sq',
      (_attrs, inputs, req, outputs) => {
        const out = outputs[0] as GpuBlob;
        const r = req[0] as OpReqType;
        if (r === OpReq.null || out.size === 0) return;
        sumSq(gpu.rt, inputs, out, r);
      },
      ['float32', 'float16'],
    ),
  );
}
