/**
 * cpu-wasm kernels of Convolution, Deconvolution and Pooling (and their `_backward_*` ops).
 *
 * Every convolution kernel is one of three primitives of conv-run.ts on the GEMM engine's
 * micro-kernel: forward (implicit GEMM), backwardData (GEMM + col2im) and backwardWeight (im2col +
 * GEMM, per-thread accumulators), plus a bias-gradient row sum. Deconvolution is the transpose of a
 * convolution whose input is the deconvolution's output: its forward is that convolution's
 * backwardData, its data gradient that convolution's forward and its weight gradient that
 * convolution's backwardWeight with the roles of data and output gradient swapped. Pooling has its
 * own module (pool-wasm.ts). float32 and float64; `req` write/add/null per output.
 */
import type { Attrs, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { GemmType } from '../../../gemm/dtype.js';
import type { GemmEngine } from '../../../gemm/engine.js';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { type ConvGeom, ConvRunner } from './conv-run.js';
import { CPU_WASM, elemType as checkedType, DTYPES, to3 } from './kernel-util.js';
import { installPooling } from './pool-run.js';

interface ConvAttrs extends Attrs {
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly dilate: readonly number[];
  readonly pad: readonly number[];
  readonly num_filter: number;
  readonly num_group: number;
  readonly no_bias: boolean;
}

interface DeconvAttrs extends ConvAttrs {
  readonly adj: readonly number[];
  readonly target_shape: readonly number[];
}

const elemType = (op: string, blobs: readonly TBlob<number>[]): GemmType =>
  checkedType(op, blobs, { device: CPU_WASM });

const ones = (v: readonly number[], n: number): readonly number[] => (v.length ? v : Array(n).fill(1));
const zeros = (v: readonly number[], n: number): readonly number[] => (v.length ? v : Array(n).fill(0));

/** The geometry of p's window from x (N, C, in...) to y (N, F, out...) for n images. */
function windowGeom(
  p: ConvAttrs,
  n: number,
  x: readonly number[],
  y: readonly number[],
  pad: readonly number[],
): ConvGeom {
  const nd = p.kernel.length;
  return {
    n,
    groups: p.num_group,
    cg: (x[1] as number) / p.num_group,
    mg: (y[1] as number) / p.num_group,
    in: to3(x.slice(2), 1),
    out: to3(y.slice(2), 1),
    kernel: to3(p.kernel, 1),
    stride: to3(ones(p.stride, nd), 1),
    dilate: to3(ones(p.dilate, nd), 1),
    pad: to3(pad, 0),
  };
}

/** Convolution geometry of data (N, C, in...) → out (N, F, out...). */
export function convGeom(p: ConvAttrs, data: readonly number[], out: readonly number[]): ConvGeom {
  return windowGeom(p, data[0] as number, data, out, zeros(p.pad, p.kernel.length));
}

/** Deconvolution's pad per axis (MXNet InferPad: from target_shape when it is set). */
export function deconvPad(p: DeconvAttrs, inSpatial: readonly number[]): number[] {
  const nd = p.kernel.length;
  const stride = ones(p.stride, nd);
  const dilate = ones(p.dilate, nd);
  const pad = zeros(p.pad, nd);
  if (!p.target_shape.some((x) => x !== 0)) return [...pad];
  return inSpatial.map((x, i) => {
    const total = (stride[i] as number) * (x - 1) + 1 + ((p.kernel[i] as number) - 1) * (dilate[i] as number);
    return (total - (p.target_shape[i] as number) + 1) >> 1;
  });
}

/** The convolution a Deconvolution is the transpose of: its input is data (N, C, in...)'s output y (N, F, out...). */
export function deconvGeom(p: DeconvAttrs, data: readonly number[], y: readonly number[]): ConvGeom {
  return windowGeom(p, data[0] as number, y, data, deconvPad(p, data.slice(2)));
}

const prod = (s: readonly number[], from: number): number => s.slice(from).reduce((a, b) => a * b, 1);
const wants = (r: OpReqType | undefined): boolean => r !== undefined && r !== OpReq.null;
const adds = (r: OpReqType | undefined): boolean => r === OpReq.add;

export function installConvPool(registry: OpRegistry, rt: CpuWasmRuntime, gemm: GemmEngine): void {
  const conv = new ConvRunner(rt, gemm);
  const at = (b: TBlob<number>): number => rt.address(b);
  /** db (+)= Σ over images and positions of dy (N, F, ...), per output channel. */
  const biasGrad = (t: GemmType, dy: TBlob<number>, db: TBlob<number>, r: OpReqType | undefined): void => {
    const [n, f] = dy.shape as [number, number];
    conv.biasGrad(t, at(dy), n, f, prod(dy.shape, 2), at(db), adds(r));
  };
  /**
   * The backward ops: inputs (dY, X, W), outputs (dX, dW, db), each gradient skipped for req null.
   * Convolution and Deconvolution differ in their geometry and in which primitive computes dX and
   * dW (see the header).
   */
  const registerBackward = <A extends ConvAttrs>(
    op: string,
    geomOf: (p: A, data: readonly number[], out: readonly number[]) => ConvGeom,
    dataGrad: (t: GemmType, g: ConvGeom, dy: number, w: number, dx: number, add: boolean) => void,
    weightGrad: (t: GemmType, g: ConvGeom, x: number, dy: number, dw: number, add: boolean) => void,
  ): void =>
    registry.registerKernel<A>(op, CPU_WASM, {
      dtypes: DTYPES,
      compute: (p, _ctx, inputs, req, outputs) => {
        const [dy, x, w] = inputs as TBlob<number>[];
        const [dx, dw, db] = outputs as TBlob<number>[];
        const t = elemType(op, inputs as TBlob<number>[]);
        const y = dy as TBlob<number>;
        const g = geomOf(p, (x as TBlob<number>).shape, y.shape);
        if (wants(req[0]))
          dataGrad(t, g, at(y), at(w as TBlob<number>), at(dx as TBlob<number>), adds(req[0]));
        if (wants(req[1]))
          weightGrad(t, g, at(x as TBlob<number>), at(y), at(dw as TBlob<number>), adds(req[1]));
        if (!p.no_bias && wants(req[2])) biasGrad(t, y, db as TBlob<number>, req[2]);
      },
    });

  registry.registerKernel<ConvAttrs>('Convolution', CPU_WASM, {
    dtypes: DTYPES,
    compute: (p, _ctx, inputs, req, outputs) => {
      const [x, w, b] = inputs as TBlob<number>[];
      const y = outputs[0] as TBlob<number>;
      if (!wants(req[0])) return;
      const t = elemType('Convolution', [...inputs, y] as TBlob<number>[]);
      const g = convGeom(p, x?.shape as number[], y.shape);
      conv.forward(
        t,
        g,
        at(x as TBlob<number>),
        at(w as TBlob<number>),
        p.no_bias ? null : at(b as TBlob<number>),
        at(y),
        adds(req[0]),
      );
    },
  });

  registerBackward(
    '_backward_Convolution',
    convGeom,
    (t, g, dy, w, dx, add) => conv.backwardData(t, g, dy, w, dx, add),
    (t, g, x, dy, dw, add) => conv.backwardWeight(t, g, x, dy, dw, add),
  );

  registry.registerKernel<DeconvAttrs>('Deconvolution', CPU_WASM, {
    dtypes: DTYPES,
    compute: (p, _ctx, inputs, req, outputs) => {
      const [x, w, b] = inputs as TBlob<number>[];
      const y = outputs[0] as TBlob<number>;
      if (!wants(req[0])) return;
      const t = elemType('Deconvolution', [...inputs, y] as TBlob<number>[]);
      const g = deconvGeom(p, (x as TBlob<number>).shape, y.shape);
      conv.backwardData(
        t,
        g,
        at(x as TBlob<number>),
        at(w as TBlob<number>),
        at(y),
        adds(req[0]),
        p.no_bias ? null : at(b as TBlob<number>),
      );
    },
  });

  // The transpose: dX is the convolution's forward of dY, dW its weight gradient with X and dY swapped.
  registerBackward(
    '_backward_Deconvolution',
    deconvGeom,
    (t, g, dy, w, dx, add) => conv.forward(t, g, dy, w, null, dx, add),
    (t, g, x, dy, dw, add) => conv.backwardWeight(t, g, dy, x, dw, add),
  );

  installPooling(registry, rt);
}
