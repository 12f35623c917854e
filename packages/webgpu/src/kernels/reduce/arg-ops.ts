/**
 * argmax / argmin on webgpu: the reduce engine's layout (reduce-into.ts: groups of S threads per
 * output, strided sequential folds, then a tree in workgroup memory) over (outer, n, inner) lanes of
 * the one axis (the flattened array when axis is None), carrying (value, index) pairs.
 *
 * The pair order is total, so the tree's combination order cannot change the answer: a NaN beats
 * every number (NumPy returns the first NaN; cpu-wasm too), then the larger (smaller) value, then
 * the smaller index — ties give the first occurrence, as MXNet documents. The result has the input's
 * dtype (MXNet's ElemwiseType) and honours req.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { grid1d } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, paramsDecl } from '../../wgsl.js';
import {
  accType,
  castTo,
  ISNAN_WGSL,
  laneGeometry,
  nextPow2,
  REDUCE_DTYPES,
  unsupported,
} from './geometry.js';

interface ReduceAxisAttrs extends Attrs {
  readonly axis: number | null;
  readonly keepdims: boolean;
}

const WG = 256;

function source(
  max: boolean,
  inDtype: DTypeName,
  outDtype: DTypeName,
  decls: string,
  names: string[],
): string {
  const acc = accType(inDtype);
  const [x, y] = names as [string, string];
  const nan =
    acc === 'f32'
      ? `let an = isnan32(av); let bn = isnan32(bv);
  if (an != bn) { return bn; }
  if (an) { return bi < ai; }`
      : '';
  return `${paramsDecl(8)}${decls}${ISNAN_WGSL}
const NONE = 0xffffffffu;
fn better(av: ${acc}, ai: u32, bv: ${acc}, bi: u32) -> bool {
  if (bi == NONE) { return false; }
  if (ai == NONE) { return true; }
  ${nan}
  if (bv == av) { return bi < ai; }
  return bv ${max ? '>' : '<'} av;
}
var<workgroup> sv: array<${acc}, ${WG}>;
var<workgroup> si: array<u32, ${WG}>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let S = pu(5u);
  let g = lid / S;
  let t = lid - g * S;
  let v = (wid.x + wid.y * nwg.x) * pu(6u) + g;
  let valid = v < pu(2u);
  var bv: ${acc} = ${acc}(0);
  var bi = NONE;
  if (valid) {
    let n = pu(3u); let inner = pu(4u);
    let base = pu(1u) + (v / inner) * n * inner + v % inner;
    for (var j = t; j < n; j += S) {
      let e = ${acc}(${x}[base + j * inner]);
      if (better(bv, bi, e, j)) { bv = e; bi = j; }
    }
  }
  sv[lid] = bv;
  si[lid] = bi;
  workgroupBarrier();
  for (var s = S >> 1u; s > 0u; s = s >> 1u) {
    if (t < s && better(sv[lid], si[lid], sv[lid + s], si[lid + s])) {
      sv[lid] = sv[lid + s];
      si[lid] = si[lid + s];
    }
    workgroupBarrier();
  }
  if (valid && t == 0u) {
    let idx = pu(0u) + v;
    let val = ${castTo(outDtype, 'si[lid]')};
    if (pu(7u) != 0u) { ${y}[idx] = ${y}[idx] + val; } else { ${y}[idx] = val; }
  }
}
`;
}

export function installArgOps(registry: OpRegistry, gpu: GpuHost): void {
  for (const [name, max] of [
    ['argmax', true],
    ['argmin', false],
  ] as const) {
    registry.registerKernel(
      name,
      'webgpu',
      gpuKernel<ReduceAxisAttrs>(
        gpu,
        name,
        (attrs, inputs, req, outputs) => {
          const x = inputs[0] as GpuBlob;
          const y = outputs[0] as GpuBlob;
          for (const d of [x.dtype, y.dtype])
            if (!REDUCE_DTYPES.includes(d)) throw unsupported(name, d, REDUCE_DTYPES);
          if (req[0] === OpReq.null || y.size === 0 || x.size === 0 || y.ptr === null) return;
          const [outer, n, inner] = laneGeometry(x.shape, attrs.axis);
          const lanes = outer * inner;
          const S = Math.min(WG, nextPow2(Math.ceil(n / 32)));
          const G = WG / S;
          const bind = bindBlobs([x, y]);
          const rt = gpu.rt;
          const entry = rt.pipeline(
            `reduce:${name}:${x.dtype}:${y.dtype}:${bind.key}`,
            () => {
              const { decls, names } = declareArrays(bind, [x.dtype, y.dtype]);
              return source(max, x.dtype, y.dtype, decls, names);
            },
            8,
          );
          const words = [elemOffset(y), elemOffset(x), lanes, n, inner, S, G, req[0] === OpReq.add ? 1 : 0];
          rt.dispatch(entry, bind.buffers, words, grid1d(Math.ceil(lanes / G) * WG, WG));
        },
        REDUCE_DTYPES,
      ),
    );
  }
}
