/**
 * Pooling and _backward_Pooling kernels: geometry from the op's params and the blob shapes (global
 * pooling, layouts), the parameter block, and the chunked runs of pool-wasm.ts over feature planes
 * (split across the worker pool when the input is large). Lp pooling with p = 1 is sum pooling
 * (MXNet's a_pow_p/a_root_p/lp_grad for p = 1 are identities); p = 3 takes the cube root here.
 */
import { MXNetError } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { GemmType } from '../../../gemm/dtype.js';
import { type ChunkRunner, INLINE_RUNNER } from '../../../gemm/gemm.js';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { poolOf } from '../../../threads/index.js';
import { CPU_WASM, DTYPES, elemType, to3 } from './kernel-util.js';
import { POOL_PARAM_BYTES, type PoolKind, Q } from './pool-params.js';
import { buildPoolModule } from './pool-wasm.js';
import { setAxes, setWindow, type Window3 } from './slots.js';

interface PoolAttrs extends Attrs {
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly pad: readonly number[];
  readonly pool_type: 'max' | 'avg' | 'sum' | 'lp';
  readonly global_pool: boolean;
  readonly p_value: number | null;
  readonly count_include_pad: boolean | null;
  readonly layout: string | null;
}

/** Inputs smaller than this (elements × window) run on the calling thread. */
const MIN_PARALLEL_WORK = 1 << 16;

function kindOf(p: PoolAttrs): PoolKind {
  if (p.pool_type !== 'lp') return p.pool_type;
  return p.p_value === 2 ? 'lp2' : p.p_value === 3 ? 'lp3' : 'sum';
}

/** Images, channels, the window (extents, kernel, stride), pad [d, h, w] and the layout. */
interface PoolGeom extends Window3 {
  readonly n: number;
  readonly ch: number;
  readonly pad: readonly [number, number, number];
  readonly channelLast: boolean;
}

function geometry(p: PoolAttrs, data: readonly number[], out: readonly number[]): PoolGeom {
  const nd = data.length;
  const channelLast = p.layout !== null && !p.layout.startsWith('NC');
  const sp = channelLast ? data.slice(1, nd - 1) : data.slice(2);
  const osp = channelLast ? out.slice(1, nd - 1) : out.slice(2);
  const k = p.global_pool ? sp : p.kernel;
  const s = p.global_pool || p.stride.length === 0 ? sp.map(() => 1) : p.stride;
  const pd = p.global_pool || p.pad.length === 0 ? sp.map(() => 0) : p.pad;
  return {
    n: data[0] as number,
    ch: (channelLast ? data[nd - 1] : data[1]) as number,
    in: to3(sp, 1),
    out: to3(osp, 1),
    kernel: to3(k, 1),
    stride: to3(s, 1),
    pad: to3(pd, 0),
    channelLast,
  };
}

export class PoolRunner {
  readonly rt: CpuWasmRuntime;
  /** Force a runner (tests). */
  runner: ChunkRunner | undefined;

  constructor(rt: CpuWasmRuntime) {
    this.rt = rt;
  }

  #run(
    t: GemmType,
    kind: PoolKind,
    g: PoolGeom,
    fn: 'fwd' | 'bwd',
    addr: { x: number; y: number; dy?: number; dx?: number },
    accumulate: boolean,
    includePad: boolean,
  ): void {
    const planes = g.n * g.ch;
    const is = g.in[0] * g.in[1] * g.in[2];
    const os = g.out[0] * g.out[1] * g.out[2];
    if (planes === 0 || os === 0) return;
    const key = `pool:${t.name}:${kind}`;
    const kernel = this.rt.kernel(key, () => buildPoolModule(t, kind, this.rt.memoryImport()));
    const work = planes * Math.max(is, os * g.kernel[0] * g.kernel[1] * g.kernel[2]);
    const runner =
      this.runner ?? (work < MIN_PARALLEL_WORK ? INLINE_RUNNER : (poolOf(this.rt) ?? INLINE_RUNNER));
    const threads = Math.max(1, runner.size);
    const block = this.rt.memory.allocator.alloc(POOL_PARAM_BYTES);
    if (block === null)
      throw new MXNetError('out of memory for the pooling parameter block', { op: 'Pooling' });
    try {
      const v = this.rt.memory.view('int32', block, POOL_PARAM_BYTES / 4) as Int32Array;
      v.fill(0);
      const [d, h, w] = g.in;
      const [od, oh, ow] = g.out;
      v[Q.CH] = g.ch;
      setWindow(v, Q, g);
      setAxes(v, [Q.PD, Q.PH, Q.PW], g.pad);
      const strides = (ext: readonly number[], cl: boolean) => {
        const [, eh, ew] = ext as [number, number, number];
        const unit = cl ? g.ch : 1;
        return {
          w: unit,
          h: ew * unit,
          d: eh * ew * unit,
          c: cl ? 1 : (ext[0] as number) * eh * ew,
          n: (ext[0] as number) * eh * ew * g.ch,
        };
      };
      const si = strides([d, h, w], g.channelLast);
      const so = strides([od, oh, ow], g.channelLast);
      v[Q.I_N] = si.n;
      v[Q.I_C] = si.c;
      v[Q.I_D] = si.d;
      v[Q.I_H] = si.h;
      v[Q.I_W] = si.w;
      v[Q.O_N] = so.n;
      v[Q.O_C] = so.c;
      v[Q.O_D] = so.d;
      v[Q.O_H] = so.h;
      v[Q.O_W] = so.w;
      v[Q.X] = addr.x;
      v[Q.Y] = addr.y;
      v[Q.DY] = addr.dy ?? 0;
      v[Q.DX] = addr.dx ?? 0;
      v[Q.ACC] = accumulate ? 1 : 0;
      v[Q.INCLUDE_PAD] = includePad ? 1 : 0;
      v[Q.VEC] = !g.channelLast && g.stride[2] <= 2 ? 1 : 0;
      const ppc = Math.max(1, Math.ceil(planes / (4 * threads)));
      v[Q.PPC] = ppc;
      v[Q.PLANES] = planes;
      runner.parallelFor(kernel, fn, Math.ceil(planes / ppc), [block]);
    } finally {
      this.rt.memory.allocator.free(block, POOL_PARAM_BYTES);
    }
  }

  forward(p: PoolAttrs, x: TBlob<number>, y: TBlob<number>, req: OpReqType): void {
    if (req === OpReq.null || y.size === 0) return;
    const t = elemType('Pooling', [x, y]);
    const g = geometry(p, x.shape, y.shape);
    const kind = kindOf(p);
    const acc = req === OpReq.add;
    const includePad = p.count_include_pad ?? true;
    if (kind !== 'lp3') {
      this.#run(t, kind, g, 'fwd', { x: this.rt.address(x), y: this.rt.address(y) }, acc, includePad);
      return;
    }
    // Σx³ into scratch, then the cube root (wasm has none).
    const bytes = y.size * t.es;
    const tmp = this.rt.memory.allocator.alloc(Math.max(64, bytes));
    if (tmp === null) throw new MXNetError('out of memory for Lp pooling scratch', { op: 'Pooling' });
    try {
      this.#run(t, kind, g, 'fwd', { x: this.rt.address(x), y: tmp }, false, includePad);
      const s = this.rt.memory.view(t.name, tmp, y.size);
      const o = this.rt.view(y);
      for (let i = 0; i < y.size; i++) {
        o[i] = ((acc ? (o[i] as number) : 0) + Math.cbrt(s[i] as number)) as never;
      }
    } finally {
      this.rt.memory.allocator.free(tmp, Math.max(64, bytes));
    }
  }

  backward(
    p: PoolAttrs,
    dy: TBlob<number>,
    x: TBlob<number>,
    y: TBlob<number>,
    dx: TBlob<number>,
    req: OpReqType,
  ): void {
    if (req === OpReq.null || dx.size === 0) return;
    const t = elemType('_backward_Pooling', [dy, x, y, dx]);
    const g = geometry(p, x.shape, y.shape);
    // Channel-first planes are zeroed by the kernel, plane by plane; channel-last ones interleave.
    let acc = req === OpReq.add;
    if (!acc && g.channelLast) {
      this.rt.zero(dx);
      acc = true;
    }
    const at = (b: TBlob<number>) => this.rt.address(b);
    this.#run(
      t,
      kindOf(p),
      g,
      'bwd',
      { x: at(x), y: at(y), dy: at(dy), dx: at(dx) },
      acc,
      p.count_include_pad ?? true,
    );
  }
}

export function installPooling(registry: OpRegistry, rt: CpuWasmRuntime): PoolRunner {
  const pool = new PoolRunner(rt);
  registry.registerKernel<PoolAttrs>('Pooling', CPU_WASM, {
    dtypes: DTYPES,
    compute: (p, _ctx, inputs, req, outputs) =>
      pool.forward(p, inputs[0] as TBlob<number>, outputs[0] as TBlob<number>, req[0] ?? OpReq.write),
  });
  registry.registerKernel<PoolAttrs>('_backward_Pooling', CPU_WASM, {
    dtypes: DTYPES,
    compute: (p, _ctx, inputs, req, outputs) => {
      const [dy, x, y] = inputs as TBlob<number>[];
      pool.backward(
        p,
        dy as TBlob<number>,
        x as TBlob<number>,
        y as TBlob<number>,
        outputs[0] as TBlob<number>,
        req[0] ?? OpReq.write,
      );
    },
  });
  return pool;
}
