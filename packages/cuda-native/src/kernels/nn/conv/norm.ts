/**
 * BatchNorm, LayerNorm, GroupNorm, InstanceNorm and their backward ops on cuda-native: this file maps
 * each op's inputs, outputs, params and req onto the kernels of norm-sources.ts (layouts from
 * channels.ts), as cpu-wasm's norm kernels define them. BatchNorm's training mode is
 * `ctx.isTrain && !use_global_stats`; in it the forward updates the moving statistics (inputs 3 and
 * 4, the op's mutateInputs) in place with the biased variance.
 */
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import type { KernelArg } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../../kernel.js';
import type { CudaRuntime } from '../../../runtime.js';
import { chanPlan } from './channels.js';
import { commonDtype, FLOATS, type Mode, modeOf, pow2AtLeast, RED_THREADS } from './cuda-util.js';
import {
  bnBackwardSource,
  bnForwardSource,
  type RowKind,
  rowBackwardSource,
  rowColumnsSource,
  rowForwardSource,
} from './norm-sources.js';

interface BatchNormAttrs extends Attrs {
  readonly eps: number;
  readonly momentum: number;
  readonly fix_gamma: boolean;
  readonly use_global_stats: boolean;
  readonly axis: number;
}

interface NormAttrs extends Attrs {
  readonly eps: number;
  readonly axis?: number;
  readonly num_groups?: number;
}

const ptr = (b: CudaBlob, op: string): KernelArg => ({ t: 'ptr', v: addr(b, op) });
const i64 = (v: number): KernelArg => ({ t: 'i64', v });
const f64 = (v: number): KernelArg => ({ t: 'f64', v });

/** (outer, C, inner) around axis `axis` of `shape`. */
export function around(shape: readonly number[], axis: number): { outer: number; C: number; inner: number } {
  const a = axis < 0 ? axis + shape.length : axis;
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < a; i++) outer *= shape[i] as number;
  for (let i = a + 1; i < shape.length; i++) inner *= shape[i] as number;
  return { outer, C: shape[a] as number, inner };
}

function batchNormForward(
  rt: CudaRuntime,
  a: BatchNormAttrs,
  train: boolean,
  ins: readonly CudaBlob[],
  req: readonly OpReqType[],
  outs: readonly CudaBlob[],
): void {
  const op = 'BatchNorm';
  const [x, gamma, beta, mm, mv] = ins as [CudaBlob, CudaBlob, CudaBlob, CudaBlob, CudaBlob];
  const [y, mean, invstd] = outs as [CudaBlob, CudaBlob, CudaBlob];
  const dt = commonDtype(op, [...ins, ...outs], FLOATS);
  const { outer, C, inner } = around(x.shape, a.axis);
  if (C === 0 || x.size === 0) return;
  const modes: [Mode, Mode, Mode] = [modeOf(req[0], y), modeOf(req[1], mean), modeOf(req[2], invstd)];
  const plan = chanPlan(outer, C, inner);
  rt.launch(
    bnForwardSource(dt, plan.mode, train, a.fix_gamma, modes),
    [plan.grid],
    [plan.block[0], plan.block[1]],
    [
      ...[x, gamma, beta, mm, mv, y, mean, invstd].map((b) => ptr(b, op)),
      i64(outer),
      i64(C),
      i64(inner),
      f64(a.eps),
      f64(a.momentum),
    ],
  );
}

function batchNormBackward(
  rt: CudaRuntime,
  a: BatchNormAttrs,
  train: boolean,
  ins: readonly CudaBlob[],
  req: readonly OpReqType[],
  outs: readonly CudaBlob[],
): void {
  const op = '_backward_BatchNorm';
  const [og, savedMean, savedInvstd, x, gamma, , mm, mv] = ins as [
    CudaBlob,
    CudaBlob,
    CudaBlob,
    CudaBlob,
    CudaBlob,
    CudaBlob,
    CudaBlob,
    CudaBlob,
  ];
  const [dx, dg, db] = outs as [CudaBlob, CudaBlob, CudaBlob];
  const dt = commonDtype(op, [og, x, gamma, mm, mv, ...outs], FLOATS);
  const { outer, C, inner } = around(x.shape, a.axis);
  const modes: [Mode, Mode, Mode] = [modeOf(req[0], dx), modeOf(req[1], dg), modeOf(req[2], db)];
  if (C === 0 || x.size === 0 || modes.every((m) => m === 'n')) return;
  const plan = chanPlan(outer, C, inner);
  const [m, v] = train ? [savedMean, savedInvstd] : [mm, mv];
  rt.launch(
    bnBackwardSource(dt, plan.mode, train, a.fix_gamma, modes),
    [plan.grid],
    [plan.block[0], plan.block[1]],
    [...[og, m, v, x, gamma, dx, dg, db].map((b) => ptr(b, op)), i64(outer), i64(C), i64(inner), f64(a.eps)],
  );
}

/** Rows of a row norm: `rows` rows of M elements, element j of row r at (r/inner)·M·inner + r%inner + j·inner. */
interface RowLayout {
  readonly rows: number;
  readonly M: number;
  readonly inner: number;
  readonly C: number;
  readonly spatial: number;
  readonly G: number;
  /** The per-channel view for gamma/beta gradients: (outer, C, inner). */
  readonly cols: { outer: number; C: number; inner: number };
}

function rowLayout(kind: RowKind, a: NormAttrs, shape: readonly number[]): RowLayout {
  if (kind === 'ln') {
    const { outer, C, inner } = around(shape, a.axis ?? -1);
    return { rows: outer * inner, M: C, inner, C, spatial: 1, G: 1, cols: { outer, C, inner } };
  }
  const N = shape[0] as number;
  const C = shape[1] as number;
  const spatial = shape.slice(2).reduce((x, y) => x * y, 1);
  const G = kind === 'in' ? C : (a.num_groups as number);
  const M = G > 0 ? (C / G) * spatial : 0;
  return { rows: N * G, M, inner: 1, C, spatial, G, cols: { outer: N, C, inner: spatial } };
}

/** Block shape and grid of the row kernels: contiguous rows get a whole block, strided rows 32 per block. */
function rowLaunch(l: RowLayout): { grid: number; block: [number, number] } {
  if (l.inner === 1) return { grid: l.rows, block: [1, Math.max(32, pow2AtLeast(l.M, RED_THREADS))] };
  return { grid: Math.ceil(l.rows / 32), block: [32, RED_THREADS / 32] };
}

const rowArgs = (l: RowLayout, eps: number): KernelArg[] => [
  i64(l.rows),
  i64(l.M),
  i64(l.inner),
  i64(l.C),
  i64(l.spatial),
  i64(Math.max(1, l.G)),
  f64(eps),
];

function installRowNorm(registry: OpRegistry, host: CudaHost, name: string, kind: RowKind): void {
  if (registry.has(name)) {
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<NormAttrs>(
        host,
        name,
        (a, ins, req, outs) => {
          const [x, gamma, beta] = ins as [CudaBlob, CudaBlob, CudaBlob];
          const [y, mean, spread] = outs as [CudaBlob, CudaBlob, CudaBlob];
          const dt = commonDtype(name, [...ins, ...outs], FLOATS);
          const l = rowLayout(kind, a, x.shape);
          if (l.rows === 0 || l.M === 0) return;
          const modes: [Mode, Mode, Mode] = [modeOf(req[0], y), modeOf(req[1], mean), modeOf(req[2], spread)];
          if (modes.every((m) => m === 'n')) return;
          const { grid, block } = rowLaunch(l);
          host.rt.launch(rowForwardSource(dt, kind, modes), [grid], block, [
            ...[x, gamma, beta, y, mean, spread].map((b) => ptr(b, name)),
            ...rowArgs(l, a.eps),
          ]);
        },
        FLOATS,
      ),
    );
  }
  const back = `_backward_${name}`;
  if (!registry.has(back)) return;
  registry.registerKernel(
    back,
    CUDA,
    cudaKernel<NormAttrs>(
      host,
      back,
      (a, ins, req, outs) => {
        // LayerNorm/GroupNorm: (ograd, data, gamma, mean, std); InstanceNorm: (ograd, mean, var, data, gamma).
        const [og, x, gamma, mean, spread] = (
          kind === 'in' ? [ins[0], ins[3], ins[4], ins[1], ins[2]] : ins
        ) as [CudaBlob, CudaBlob, CudaBlob, CudaBlob, CudaBlob];
        const [dx, dgamma, dbeta] = outs as [CudaBlob, CudaBlob, CudaBlob];
        const dt = commonDtype(back, [og, x, gamma, mean, spread, ...outs], FLOATS);
        const l = rowLayout(kind, a, x.shape);
        if (l.rows === 0 || l.M === 0) return;
        const mode = modeOf(req[0], dx);
        if (mode !== 'n') {
          const { grid, block } = rowLaunch(l);
          host.rt.launch(rowBackwardSource(dt, kind, mode), [grid], block, [
            ...[og, x, gamma, mean, spread, dx].map((b) => ptr(b, back)),
            ...rowArgs(l, a.eps),
          ]);
        }
        const cm: [Mode, Mode] = [modeOf(req[1], dgamma), modeOf(req[2], dbeta)];
        if (cm[0] === 'n' && cm[1] === 'n') return;
        const { outer, C, inner } = l.cols;
        const plan = chanPlan(outer, C, inner);
        host.rt.launch(
          rowColumnsSource(dt, kind, plan.mode, cm),
          [plan.grid],
          [plan.block[0], plan.block[1]],
          [
            ...[og, x, mean, spread, dgamma, dbeta].map((b) => ptr(b, back)),
            i64(outer),
            i64(C),
            i64(inner),
            i64(Math.max(1, l.G)),
            f64(a.eps),
          ],
        );
      },
      FLOATS,
    ),
  );
}

export function installNorm(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('BatchNorm')) {
    registry.registerKernel(
      'BatchNorm',
      CUDA,
      cudaKernel<BatchNormAttrs>(
        host,
        'BatchNorm',
        (a, ins, req, outs, ctx) =>
          batchNormForward(host.rt, a, ctx.isTrain && !a.use_global_stats, ins, req, outs),
        FLOATS,
      ),
    );
  }
  if (registry.has('_backward_BatchNorm')) {
    registry.registerKernel(
      '_backward_BatchNorm',
      CUDA,
      cudaKernel<BatchNormAttrs>(
        host,
        '_backward_BatchNorm',
        (a, ins, req, outs, ctx) =>
          batchNormBackward(host.rt, a, ctx.isTrain && !a.use_global_stats, ins, req, outs),
        FLOATS,
      ),
    );
  }
  installRowNorm(registry, host, 'LayerNorm', 'ln');
  installRowNorm(registry, host, 'GroupNorm', 'gn');
  installRowNorm(registry, host, 'InstanceNorm', 'in');
}
