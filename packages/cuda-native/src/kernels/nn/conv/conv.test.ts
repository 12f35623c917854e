/**
 * The nn/conv family's kernels rendered from the conv and norm golden cases on a RenderRuntime (no
 * GPU): every launch matches its kernel's signature, and every generated source compiles with nvcc
 * (sm_90) and NVRTC where they are installed.
 */
import { type DTypeName, gpu, type Shape } from '@mx/base';
import { loadCases } from '@mx/conformance';
import { createOpRegistry, type OpContext, OpReq } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CUDA } from '../../../kernel.js';
import { RenderRuntime } from '../../../render-runtime.js';
import { compileWithNvrtc, itCompiles } from '../../../test-util/compile.js';
import { renderCases } from '../../../test-util/render.js';
import { installNnConv } from './index.js';

/** The float32 conv cases rendered with every array in `dtype` (the 16-bit paths no golden case has). */
function renderAs(dtype: DTypeName): { rt: RenderRuntime; ran: number; errors: string[] } {
  const rt = new RenderRuntime();
  const registry = createOpRegistry();
  installNnConv(registry, { rt });
  const errors: string[] = [];
  let ran = 0;
  let addr = 0x100000000;
  for (const c of loadCases('conv')) {
    if (c.error !== undefined || c.outputs === undefined || c.inputs[0]?.dtype !== 'float32') continue;
    const op = registry.get(c.op);
    const kernel = registry.kernel(op, CUDA);
    if (kernel?.compute === undefined) continue;
    const attrs = op.parseParams(c.params as Record<string, unknown>);
    const outShapes: (Shape | undefined)[] = Array.from(
      { length: op.numOutputs(attrs) },
      (_, i) => c.outputs?.[i]?.shape,
    );
    op.inferShape(
      attrs,
      c.inputs.map((a) => a.shape),
      outShapes,
    );
    const blob = (shape: Shape) => {
      const size = shape.reduce((a, b) => a * b, 1);
      addr += Math.ceil((size * 2 + 256) / 256) * 256;
      return { ptr: addr, byteOffset: 0, shape, dtype, size };
    };
    const outputs = outShapes.map((s) => blob(s ?? []));
    const ctx: OpContext = {
      isTrain: false,
      needGrad: false,
      ctx: gpu(0),
      requested: [],
      onComplete: (e?: unknown) => {
        if (e !== undefined) errors.push(`${c.name}: ${(e as Error).message}`);
      },
    };
    kernel.compute(
      attrs,
      ctx,
      c.inputs.map((a) => blob(a.shape)),
      outputs.map(() => OpReq.add),
      outputs,
    );
    ran++;
  }
  return { rt, ran, errors };
}

describe('cuda nn/conv kernels', () => {
  const r = renderCases(['conv', 'norm'], undefined, (reg, host) => installNnConv(reg, host));
  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual([
      'BatchNorm',
      'Convolution',
      'Deconvolution',
      'GroupNorm',
      'InstanceNorm',
      'LayerNorm',
      'Pooling',
      '_backward_BatchNorm',
      '_backward_Convolution',
      '_backward_Deconvolution',
      '_backward_GroupNorm',
      '_backward_InstanceNorm',
      '_backward_LayerNorm',
      '_backward_Pooling',
    ]);
    expect(r.missing).toEqual(new Set());
  });
  itCompiles(() => [r.rt]);

  for (const dtype of ['float16', 'bfloat16'] as const) {
    it(`renders and compiles the convolution and pooling kernels in ${dtype} (req add)`, (ctx) => {
      const f = renderAs(dtype);
      expect(f.errors).toEqual([]);
      expect(f.rt.problems).toEqual([]);
      expect(f.ran).toBeGreaterThan(90);
      expect(f.rt.gemms.every((g) => g.call.dtype === dtype)).toBe(true);
      const res = compileWithNvrtc(f.rt);
      if (typeof res === 'string') {
        ctx.skip();
        return;
      }
      expect(res.problems).toEqual([]);
    }, 600_000);
  }
});
