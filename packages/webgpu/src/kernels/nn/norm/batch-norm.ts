/**
 * BatchNorm and _backward_BatchNorm on webgpu. The data is (outer, C, inner) around the channel
 * axis (any axis: NCHW, NHWC, 2-D); each channel is one workgroup that reduces its outer·inner
 * elements (strided per-thread partials + shared-memory tree) and then writes its own elements, so
 * each op is one dispatch.
 *
 * Forward in training (and not use_global_stats): two-pass statistics (mean, then Σ (x - mean)²,
 * as cpu-wasm), hidden outputs mean and 1/sqrt(var + eps), and the moving statistics updated in
 * place (inputs 3 and 4, the op's mutateInputs) with the biased variance. Otherwise the moving
 * statistics normalise and are left alone. fix_gamma uses gamma = 1 and a zero gamma gradient.
 * Backward differentiates through the batch statistics (given as its mean/var inputs) in training,
 * else through the moving ones; each of the three gradients honours its own req.
 */
import type { Attrs, OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { paramsDecl } from '../../../wgsl.js';
import {
  around,
  bind,
  f32bits,
  modeOf,
  put,
  rowCombine,
  rowEntry,
  rowGrid,
  rowLoop,
  rowPlan,
  touch,
} from '../layers/gpu-util.js';

export interface BatchNormAttrs extends Attrs {
  readonly eps: number;
  readonly momentum: number;
  readonly fix_gamma: boolean;
  readonly use_global_stats: boolean;
  readonly axis: number;
}

// Words: 0..7 offsets, 8 outer, 9 C, 10 inner, 11 eps, 12 momentum.
const WORDS = 13;

const ELEM = `    let i = (e / inner) * C * inner + c * inner + e % inner;\n`;
const PROLOGUE = `  let c = row; let C = pu(9u); let inner = pu(10u); let eps = pf(11u);
  let n = pu(8u) * inner;
`;

export function batchNormForward(
  gpu: GpuHost,
  a: BatchNormAttrs,
  train: boolean,
  ins: readonly GpuBlob[],
  req: readonly OpReqType[],
  outs: readonly GpuBlob[],
): void {
  const [x, gamma, beta, mm, mv] = ins as [GpuBlob, GpuBlob, GpuBlob, GpuBlob, GpuBlob];
  const [y, mean, vr] = outs as [GpuBlob, GpuBlob, GpuBlob];
  const { outer, C, inner } = around(x.shape, a.axis);
  if (C === 0) return;
  const modes = [modeOf(req[0], y), modeOf(req[1], mean), modeOf(req[2], vr)] as const;
  const b = bind([x, gamma, beta, mm, mv, y, mean, vr]);
  const [X, G, B, MM, MV, Y, MN, VR] = b.names as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const flags = `${train ? 't' : 'g'}${a.fix_gamma ? 'f' : ''}`;
  const p = rowPlan(outer * inner);
  const stats = train
    ? `  var acc = 0.0;
  ${rowLoop(p, 'e', 'n')} {
${ELEM}    acc += ${X}[pu(0u) + i];
  }
${rowCombine(p, [['acc', 'total']], '+')}  let mean = total / f32(n);
  acc = 0.0;
  ${rowLoop(p, 'e', 'n')} {
${ELEM}    let d = ${X}[pu(0u) + i] - mean;
    acc += d * d;
  }
${rowCombine(p, [['acc', 'sq']], '+')}
  let variance = sq / f32(n);
  let invstd = select(1.0 / sqrt(variance + eps), 0.0, sq == 0.0 && eps == 0.0);
  if (lid == 0u) {
    let mom = pf(12u);
    ${MM}[pu(3u) + c] = ${MM}[pu(3u) + c] * mom + mean * (1.0 - mom);
    ${MV}[pu(4u) + c] = ${MV}[pu(4u) + c] * mom + variance * (1.0 - mom);
  }
`
    : `  let mean = ${MM}[pu(3u) + c];
  let invstd = 1.0 / sqrt(${MV}[pu(4u) + c] + eps);
`;
  const scale = a.fix_gamma ? 'invstd' : `invstd * ${G}[pu(1u) + c]`;
  const key = `norm-bn-fwd:${flags}:${modes.join('')}:${p.key}:${b.key}`;
  const entry = gpu.rt.pipeline(
    key,
    () => `${paramsDecl(WORDS)}${b.decls}${rowEntry(p, 'pu(9u)', 1)}${touch(b.names)}${PROLOGUE}${stats}  if (lid == 0u) {
    ${put(MN, 'pu(6u) + c', 'mean', modes[1])}
    ${put(VR, 'pu(7u) + c', 'invstd', modes[2])}
  }
  let scale = ${scale};
  let shift = ${B}[pu(2u) + c];
  ${rowLoop(p, 'e', 'n')} {
${ELEM}    ${put(Y, 'pu(5u) + i', `(${X}[pu(0u) + i] - mean) * scale + shift`, modes[0])}
  }
}
`,
    WORDS,
  );
  const w = [...b.offsets, outer, C, inner, f32bits(a.eps), f32bits(a.momentum)];
  gpu.rt.dispatch(entry, b.buffers, w, rowGrid(p, C));
}

export function batchNormBackward(
  gpu: GpuHost,
  a: BatchNormAttrs,
  train: boolean,
  ins: readonly GpuBlob[],
  req: readonly OpReqType[],
  outs: readonly GpuBlob[],
): void {
  const [og, savedMean, savedInvstd, x, gamma, , mm, mv] = ins as GpuBlob[] as [
    GpuBlob,
    GpuBlob,
    GpuBlob,
    GpuBlob,
    GpuBlob,
    GpuBlob,
    GpuBlob,
    GpuBlob,
  ];
  const [dx, dg, db] = outs as [GpuBlob, GpuBlob, GpuBlob];
  const { outer, C, inner } = around(x.shape, a.axis);
  const modes = [modeOf(req[0], dx), modeOf(req[1], dg), modeOf(req[2], db)] as const;
  if (C === 0 || modes.every((m) => m === 'n')) return;
  const meanSrc = train ? savedMean : mm;
  const varSrc = train ? savedInvstd : mv;
  const b = bind([og, meanSrc, varSrc, x, gamma, dx, dg, db]);
  const [Gr, MN, VS, X, G, D, DG, DB] = b.names as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const invstd = train ? `${VS}[pu(2u) + c]` : `1.0 / sqrt(${VS}[pu(2u) + c] + eps)`;
  const w = a.fix_gamma ? '1.0' : `${G}[pu(4u) + c]`;
  const dxExpr = train
    ? `(${Gr}[pu(0u) + i] * iw + dd) - (${X}[pu(3u) + i] - mean) * kk`
    : `${Gr}[pu(0u) + i] * iw`;
  const p = rowPlan(outer * inner);
  const key = `norm-bn-bwd:${train ? 't' : 'g'}${a.fix_gamma ? 'f' : ''}:${modes.join('')}:${p.key}:${b.key}`;
  const entry = gpu.rt.pipeline(
    key,
    () => `${paramsDecl(WORDS)}${b.decls}${rowEntry(p, 'pu(9u)', 2)}${touch(b.names)}${PROLOGUE}  let mean = ${MN}[pu(1u) + c];
  let invstd = ${invstd};
  var a1 = 0.0;
  var a2 = 0.0;
  ${rowLoop(p, 'e', 'n')} {
${ELEM}    let g = ${Gr}[pu(0u) + i];
    a1 += g;
    a2 += g * (${X}[pu(3u) + i] - mean);
  }
${rowCombine(
  p,
  [
    ['a1', 'sg'],
    ['a2', 'sgx'],
  ],
  '+',
)}
  if (lid == 0u) {
    ${put(DG, 'pu(6u) + c', a.fix_gamma ? '0.0' : 'sgx * invstd', modes[1])}
    ${put(DB, 'pu(7u) + c', 'sg', modes[2])}
  }
  let iw = invstd * ${w};
  let dd = (-sg / f32(n)) * iw;
  let kk = ((sgx * invstd * invstd) / f32(n)) * iw;
  ${rowLoop(p, 'e', 'n')} {
${ELEM}    ${put(D, 'pu(5u) + i', dxExpr, modes[0])}
  }
}
`,
    WORDS,
  );
  const words = [...b.offsets, outer, C, inner, f32bits(a.eps), 0];
  gpu.rt.dispatch(entry, b.buffers, words, rowGrid(p, C));
}
