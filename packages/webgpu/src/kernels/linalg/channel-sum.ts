/**
 * The bias gradients of FullyConnected and the convolutions: out[f] (+)= Σ_a Σ_b X[a·sA + f·sF +
 * b·sB], i.e. a sum over every axis but one. One workgroup per output element reduces its A×B
 * items (each invocation a strided partial sum, then a tree in workgroup memory), so nothing needs
 * float atomics and each output is written by exactly one invocation (req add reads it back).
 */
import type { GpuBlob } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, paramsDecl } from '../../wgsl.js';

const WG = 256;

function source(decls: string, x: string, out: string, acc: boolean): string {
  return `${paramsDecl(9)}${decls}
var<workgroup> part: array<f32, ${WG}>;

@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let f = wid.x + wid.y * nwg.x;
  let F = pu(0u);
  let A = pu(1u);
  let B = pu(2u);
  let sA = pu(3u);
  let sF = pu(4u);
  let sB = pu(5u);
  let base = pu(6u) + f * sF;
  var s = 0.0;
  if (f < F) {
    let total = A * B;
    for (var i = lid.x; i < total; i += ${WG}u) {
      let a = i / B;
      let b = i - a * B;
      s += ${x}[base + a * sA + b * sB];
    }
  }
  part[lid.x] = s;
  workgroupBarrier();
  for (var w = ${WG / 2}u; w > 0u; w = w >> 1u) {
    if (lid.x < w) { part[lid.x] = part[lid.x] + part[lid.x + w]; }
    workgroupBarrier();
  }
  if (lid.x == 0u && f < F) {
    let o = pu(7u) + f;
    ${out}[o] = ${acc ? `${out}[o] + ` : ''}part[0];
  }
}
`;
}

export interface ChannelSum {
  /** Source (float32) and the sum's layout: F outputs, each over A×B items. */
  readonly x: GpuBlob;
  readonly f: number;
  readonly a: number;
  readonly b: number;
  readonly sA: number;
  readonly sF: number;
  readonly sB: number;
  readonly out: GpuBlob;
  readonly accumulate: boolean;
}

/** Encode out (+)= the sums. With A·B = 0 the sums are 0 (write) or leave out unchanged (add). */
export function channelSum(rt: WebGpuRuntime, s: ChannelSum): void {
  if (s.f === 0 || s.out.ptr === null) return;
  const empty = s.a * s.b === 0 || s.x.ptr === null;
  if (empty && s.accumulate) return;
  const src = empty ? s.out : s.x;
  const bind = bindBlobs([src, s.out]);
  const { decls, names } = declareArrays(bind, ['float32', 'float32']);
  const [x, out] = names as [string, string];
  const entry = rt.pipeline(
    `channel-sum:${s.accumulate ? 'acc' : 'set'}:${bind.key}`,
    () => source(decls, x, out, s.accumulate),
    9,
  );
  const gx = Math.min(s.f, 65535);
  const gy = Math.ceil(s.f / gx);
  rt.dispatch(
    entry,
    bind.buffers,
    [s.f, empty ? 0 : s.a, empty ? 0 : s.b, s.sA, s.sF, s.sB, elemOffset(src), elemOffset(s.out)],
    [gx, gy, 1],
  );
}
