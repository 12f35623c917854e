/**
 * Pooling and _backward_Pooling on cuda-native: the geometry from the op's params and the blob
 * shapes (global pooling, channel-last layouts, as cpu-wasm's pool-run.ts), then the kernels of
 * pool-sources.ts. Lp pooling with p = 1 is sum pooling (MXNet's a_pow_p/a_root_p/lp_grad for p = 1
 * are identities). The max backward records each output's first maximum in int scratch (MXNet's
 * unpool routes the gradient there).
 */
import { MXNetError } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { BLOCK, blocksFor, ctype, type KernelArg } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../../kernel.js';
import type { CudaRuntime } from '../../../runtime.js';
import { to3 } from './conv-geom.js';
import { indexC } from './conv-sources.js';
import { CONV_FLOATS, commonDtype, modeOf } from './cuda-util.js';
import { type PoolKind, poolArgmaxSource, poolForwardSource, poolGatherSource } from './pool-sources.js';

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

function kindOf(p: PoolAttrs): PoolKind {
  if (p.pool_type !== 'lp') return p.pool_type;
  return p.p_value === 2 ? 'lp2' : p.p_value === 3 ? 'lp3' : 'sum';
}

/** The five MxDims arguments of the pooling kernels (see pool-sources.ts). */
export function poolDims(p: PoolAttrs, data: readonly number[], out: readonly number[]): number[][] {
  const nd = data.length;
  const cl = p.layout !== null && !p.layout.startsWith('NC');
  const sp = cl ? data.slice(1, nd - 1) : data.slice(2);
  const osp = cl ? out.slice(1, nd - 1) : out.slice(2);
  const k = p.global_pool ? sp : p.kernel;
  const s = p.global_pool || p.stride.length === 0 ? sp.map(() => 1) : p.stride;
  const pd = p.global_pool || p.pad.length === 0 ? sp.map(() => 0) : p.pad;
  const ch = (cl ? data[nd - 1] : data[1]) as number;
  const strides = (e: readonly number[]): number[] => {
    const [d, h, w] = e as [number, number, number];
    const unit = cl ? ch : 1;
    return [d * h * w * ch, cl ? 1 : d * h * w, h * w * unit, w * unit, unit];
  };
  const ext = to3(sp, 1);
  const oext = to3(osp, 1);
  return [
    [...ext, ...oext, ch, (p.count_include_pad ?? true) ? 1 : 0],
    [...to3(k, 1), ...to3(s, 1)],
    to3(pd, 0),
    strides(ext),
    strides(oext),
  ];
}

const ptr = (v: number): KernelArg => ({ t: 'ptr', v });
const dimsArgs = (d: readonly number[][], total: number): KernelArg[] => [
  ...d.map((v): KernelArg => ({ t: 'dims', v })),
  { t: 'i64', v: total },
];

function forward(rt: CudaRuntime, p: PoolAttrs, x: CudaBlob, y: CudaBlob, req: OpReqType | undefined): void {
  const dt = commonDtype('Pooling', [x, y], CONV_FLOATS);
  const mode = modeOf(req, y);
  if (mode === 'n') return;
  const kind = kindOf(p);
  const T = indexC(y.size);
  rt.launch(
    poolForwardSource(dt, T, kind, mode),
    [blocksFor(y.size)],
    [BLOCK],
    [ptr(addr(x, 'Pooling')), ptr(addr(y, 'Pooling')), ...dimsArgs(poolDims(p, x.shape, y.shape), y.size)],
  );
}

function backward(
  rt: CudaRuntime,
  p: PoolAttrs,
  dy: CudaBlob,
  x: CudaBlob,
  y: CudaBlob,
  dx: CudaBlob,
  req: OpReqType | undefined,
): void {
  const op = '_backward_Pooling';
  const dt = commonDtype(op, [dy, x, y, dx], CONV_FLOATS);
  const mode = modeOf(req, dx);
  if (mode === 'n') return;
  if (y.size === 0) {
    // No output covers any input: the gradient is zero.
    if (mode === 'w') rt.memset(addr(dx, op), 0, dx.size * ctype(dt).bytes);
    return;
  }
  const kind = kindOf(p);
  const dims = poolDims(p, x.shape, y.shape);
  const plane = (dims[0] as number[]).slice(0, 3).reduce((a, b) => a * b, 1);
  const args: KernelArg[] = [ptr(addr(dy, op)), ptr(addr(dx, op))];
  if (kind === 'lp2' || kind === 'lp3') args.push(ptr(addr(x, op)), ptr(addr(y, op)));
  if (kind === 'max') {
    if (plane >= 2 ** 31) {
      throw new MXNetError(`max pooling backward needs a spatial plane below 2^31 elements, got ${plane}`, {
        op,
        shapes: [x.shape],
        device: 'gpu',
        hint: 'pool a smaller input',
      });
    }
    const idx = rt.temp(y.size * 4);
    rt.launch(
      poolArgmaxSource(dt, indexC(y.size)),
      [blocksFor(y.size)],
      [BLOCK],
      [ptr(addr(x, op)), ptr(addr(y, op)), ptr(idx), ...dimsArgs(dims, y.size)],
    );
    args.push(ptr(idx));
  }
  rt.launch(
    poolGatherSource(dt, indexC(dx.size), kind, mode),
    [blocksFor(dx.size)],
    [BLOCK],
    [...args, ...dimsArgs(dims, dx.size)],
  );
}

export function installPooling(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('Pooling')) {
    registry.registerKernel(
      'Pooling',
      CUDA,
      cudaKernel<PoolAttrs>(
        host,
        'Pooling',
        (p, ins, req, outs) => forward(host.rt, p, ins[0] as CudaBlob, outs[0] as CudaBlob, req[0]),
        CONV_FLOATS,
      ),
    );
  }
  if (registry.has('_backward_Pooling')) {
    registry.registerKernel(
      '_backward_Pooling',
      CUDA,
      cudaKernel<PoolAttrs>(
        host,
        '_backward_Pooling',
        (p, ins, req, outs) => {
          const [dy, x, y] = ins as [CudaBlob, CudaBlob, CudaBlob];
          backward(host.rt, p, dy, x, y, outs[0] as CudaBlob, req[0]);
        },
        CONV_FLOATS,
      ),
    );
  }
}
