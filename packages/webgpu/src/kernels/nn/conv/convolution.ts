/**
 * Convolution, Deconvolution and their `_backward_*` ops on webgpu, each a composition of the
 * three implicit-GEMM primitives of conv-gemm.ts plus the channel sum for the bias gradient, as
 * cpu-wasm composes its own (kernels/nn/conv/index.ts): a Deconvolution is the transpose of the
 * convolution whose input is the deconvolution's output, so its forward is that convolution's data
 * gradient, its data gradient that convolution's forward and its weight gradient that
 * convolution's weight gradient with data and output gradient swapped. Every gradient output
 * honours its own req (null skips, add accumulates). float32 (WGSL has no f64).
 */
import type { OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import type { WebGpuRuntime } from '../../../runtime.js';
import { channelSum } from '../../linalg/channel-sum.js';
import { checkF32 } from '../../linalg/dot.js';
import { convBackwardData, convBackwardWeight } from './conv-backward.js';
import { convForward } from './conv-forward.js';
import { type ConvAttrs, type ConvGeom, convGeom, type DeconvAttrs, deconvGeom } from './geometry.js';

const wants = (r: OpReqType | undefined): boolean => r !== undefined && r !== OpReq.null;
const adds = (r: OpReqType | undefined): boolean => r === OpReq.add;
const DTYPES = ['float32'] as const;

/** db (+)= Σ over images and positions of dy (N, F, ...), per channel. */
function biasGrad(rt: WebGpuRuntime, dy: GpuBlob, db: GpuBlob, r: OpReqType | undefined): void {
  const n = dy.shape[0] as number;
  const f = dy.shape[1] as number;
  const ns = dy.shape.slice(2).reduce((a, b) => a * b, 1);
  channelSum(rt, { x: dy, f, a: n, b: ns, sA: f * ns, sF: ns, sB: 1, out: db, accumulate: adds(r) });
}

type Primitive = (rt: WebGpuRuntime, g: ConvGeom, a: GpuBlob, b: GpuBlob, out: GpuBlob, add: boolean) => void;

function registerBackward<A extends ConvAttrs>(
  registry: OpRegistry,
  gpu: GpuHost,
  op: string,
  geomOf: (p: A, data: readonly number[], out: readonly number[]) => ConvGeom,
  dataGrad: Primitive,
  weightGrad: Primitive,
): void {
  registry.registerKernel(
    op,
    'webgpu',
    gpuKernel<A>(
      gpu,
      op,
      (p, inputs, req, outputs) => {
        const [dy, x, w] = inputs as [GpuBlob, GpuBlob, GpuBlob];
        const [dx, dw, db] = outputs as [GpuBlob, GpuBlob, GpuBlob?];
        checkF32(op, [...inputs, ...outputs]);
        const rt = gpu.rt;
        const g = geomOf(p, x.shape, dy.shape);
        if (wants(req[0]) && dx.size > 0) dataGrad(rt, g, dy, w, dx, adds(req[0]));
        if (wants(req[1]) && dw.size > 0) weightGrad(rt, g, x, dy, dw, adds(req[1]));
        if (!p.no_bias && db && wants(req[2]) && db.size > 0) biasGrad(rt, dy, db, req[2]);
      },
      DTYPES,
    ),
  );
}

export function installConvolution(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'Convolution',
    'webgpu',
    gpuKernel<ConvAttrs>(
      gpu,
      'Convolution',
      (p, inputs, req, outputs) => {
        const [x, w, b] = inputs as [GpuBlob, GpuBlob, GpuBlob?];
        const y = outputs[0] as GpuBlob;
        checkF32('Convolution', [...inputs, y]);
        if (!wants(req[0]) || y.size === 0) return;
        const g = convGeom(p, x.shape, y.shape);
        convForward(gpu.rt, g, x, w, p.no_bias ? null : (b ?? null), y, adds(req[0]));
      },
      DTYPES,
    ),
  );
  registerBackward<ConvAttrs>(
    registry,
    gpu,
    '_backward_Convolution',
    convGeom,
    (rt, g, dy, w, dx, add) => convBackwardData(rt, g, dy, w, dx, add),
    (rt, g, x, dy, dw, add) => convBackwardWeight(rt, g, x, dy, dw, add),
  );
  registry.registerKernel(
    'Deconvolution',
    'webgpu',
    gpuKernel<DeconvAttrs>(
      gpu,
      'Deconvolution',
      (p, inputs, req, outputs) => {
        const [x, w, b] = inputs as [GpuBlob, GpuBlob, GpuBlob?];
        const y = outputs[0] as GpuBlob;
        checkF32('Deconvolution', [...inputs, y]);
        if (!wants(req[0]) || y.size === 0) return;
        const g = deconvGeom(p, x.shape, y.shape);
        convBackwardData(gpu.rt, g, x, w, y, adds(req[0]), p.no_bias ? null : (b ?? null));
      },
      DTYPES,
    ),
  );
  // The transpose: dX is the convolution's forward of dY, dW its weight gradient with X and dY swapped.
  registerBackward<DeconvAttrs>(
    registry,
    gpu,
    '_backward_Deconvolution',
    deconvGeom,
    (rt, g, dy, w, dx, add) => convForward(rt, g, dy, w, null, dx, add),
    (rt, g, x, dy, dw, add) => convBackwardWeight(rt, g, dy, x, dw, add),
  );
}
