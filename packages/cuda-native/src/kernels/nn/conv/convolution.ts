/**
 * Convolution, Deconvolution and their `_backward_*` ops on cuda-native, composed of the primitives of
 * conv-gemm.ts as cpu-wasm composes its own: a Deconvolution is the transpose of the convolution
 * whose input is the deconvolution's output, so its forward is that convolution's data gradient (with
 * the bias per output channel), its data gradient that convolution's forward and its weight gradient
 * that convolution's weight gradient with data and output gradient swapped. Every gradient output
 * honours its own req (null skips, add accumulates); one scratch allocation serves all primitives of
 * an op.
 */
import type { OpRegistry, OpReqType } from '@mx/ops';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../../kernel.js';
import {
  type ConvRun,
  convBackwardData,
  convBackwardWeight,
  convBiasGrad,
  convForward,
  planData,
  planForward,
  planWeight,
  scratchFor,
} from './conv-gemm.js';
import { type ConvAttrs, type ConvGeom, convGeom, type DeconvAttrs, deconvGeom } from './conv-geom.js';
import { CONV_FLOATS, commonDtype, type Mode, modeOf } from './cuda-util.js';

type Register = (registry: OpRegistry, host: CudaHost) => void;

function register<A extends ConvAttrs>(
  registry: OpRegistry,
  host: CudaHost,
  op: string,
  compute: (
    r: ConvRun,
    p: A,
    ins: readonly CudaBlob[],
    req: readonly OpReqType[],
    outs: readonly CudaBlob[],
  ) => void,
): void {
  if (!registry.has(op)) return;
  registry.registerKernel(
    op,
    CUDA,
    cudaKernel<A>(
      host,
      op,
      (p, ins, req, outs) => {
        const blobs = [...ins, ...outs].filter((b) => b !== undefined);
        const dt = commonDtype(op, blobs, CONV_FLOATS);
        compute({ rt: host.rt, op, dt }, p, ins, req, outs);
      },
      CONV_FLOATS,
    ),
  );
}

/** Convolution: inputs (X, W, [bias]) → Y. */
const installConvForward: Register = (registry, host) =>
  register<ConvAttrs>(registry, host, 'Convolution', (r, p, ins, req, outs) => {
    const [x, w, b] = ins as [CudaBlob, CudaBlob, CudaBlob?];
    const y = outs[0] as CudaBlob;
    const mode = modeOf(req[0], y);
    if (mode === 'n') return;
    const g = convGeom(p, x.shape, y.shape);
    const plan = planForward(g, r.dt);
    const scratch = scratchFor(r.rt, [plan]);
    const bias = p.no_bias || b === undefined ? null : addr(b, r.op);
    convForward(
      r,
      g,
      plan,
      scratch,
      { x: addr(x, r.op), w: addr(w, r.op), bias, y: addr(y, r.op) },
      mode === 'a',
    );
  });

/** Deconvolution: inputs (X, W, [bias]) → Y, the data gradient of the convolution from Y to X. */
const installDeconvForward: Register = (registry, host) =>
  register<DeconvAttrs>(registry, host, 'Deconvolution', (r, p, ins, req, outs) => {
    const [x, w, b] = ins as [CudaBlob, CudaBlob, CudaBlob?];
    const y = outs[0] as CudaBlob;
    const mode = modeOf(req[0], y);
    if (mode === 'n') return;
    const g = deconvGeom(p, x.shape, y.shape);
    const bias = p.no_bias || b === undefined ? null : addr(b, r.op);
    const plan = planData(g, r.dt, bias !== null);
    const scratch = scratchFor(r.rt, [plan]);
    convBackwardData(
      r,
      g,
      plan,
      scratch,
      { dy: addr(x, r.op), w: addr(w, r.op), dx: addr(y, r.op), bias },
      mode === 'a',
    );
  });

/**
 * The backward ops: inputs (dY, X, W, ...), outputs (dX, dW, [db]). `deconv` swaps the roles as the
 * file comment says.
 */
function installBackward<A extends ConvAttrs>(
  registry: OpRegistry,
  host: CudaHost,
  op: string,
  geomOf: (p: A, data: readonly number[], out: readonly number[]) => ConvGeom,
  deconv: boolean,
): void {
  register<A>(registry, host, op, (r, p, ins, req, outs) => {
    const [dy, x, w] = ins as [CudaBlob, CudaBlob, CudaBlob];
    const [dx, dw, db] = outs as [CudaBlob, CudaBlob, CudaBlob?];
    const modes: [Mode, Mode, Mode] = [
      modeOf(req[0], dx),
      modeOf(req[1], dw),
      db === undefined || p.no_bias ? 'n' : modeOf(req[2], db),
    ];
    const g = geomOf(p, x.shape, dy.shape);
    const dataPlan = modes[0] === 'n' ? null : deconv ? planForward(g, r.dt) : planData(g, r.dt, false);
    const weightPlan = modes[1] === 'n' ? null : planWeight(g, r.dt);
    const scratch = scratchFor(
      r.rt,
      [dataPlan, weightPlan].filter((q) => q !== null),
    );
    const [ady, ax, aw] = [addr(dy, r.op), addr(x, r.op), addr(w, r.op)];
    if (dataPlan !== null) {
      const adx = addr(dx, r.op);
      if (deconv)
        convForward(r, g, dataPlan, scratch, { x: ady, w: aw, bias: null, y: adx }, modes[0] === 'a');
      else
        convBackwardData(r, g, dataPlan, scratch, { dy: ady, w: aw, dx: adx, bias: null }, modes[0] === 'a');
    }
    if (weightPlan !== null) {
      const adw = addr(dw, r.op);
      const [gx, gdy] = deconv ? [ady, ax] : [ax, ady];
      convBackwardWeight(r, g, weightPlan, scratch, { x: gx, dy: gdy, dw: adw }, modes[1] === 'a');
    }
    if (modes[2] !== 'n' && db !== undefined) convBiasGrad(r, ady, dy.shape, addr(db, r.op), modes[2]);
  });
}

export function installConvolution(registry: OpRegistry, host: CudaHost): void {
  installConvForward(registry, host);
  installBackward<ConvAttrs>(registry, host, '_backward_Convolution', convGeom, false);
  installDeconvForward(registry, host);
  installBackward<DeconvAttrs>(registry, host, '_backward_Deconvolution', deconvGeom, true);
}
