/**
 * softmax, log_softmax, masked_softmax, masked_log_softmax and their backward ops on webgpu:
 * parameter handling over the row kernels of softmax.ts (axis normalised and checked, temperature,
 * optional int32 lengths, the bool mask). Backward inputs follow the op definitions: (ograd, output) or, with a dtype
 * override or use_length, (ograd, data[, length], output); the length gradient is zero.
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { Attrs, OpRegistry } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { around, modeOf, requireFloat32, zeroFill } from './gpu-util.js';
import { type RowGeometry, softmaxRows } from './softmax.js';

interface SoftmaxAttrs extends Attrs {
  readonly axis: number;
  readonly temperature: number | null;
  readonly dtype: DTypeName | null;
  readonly use_length: boolean | null;
}

function geometry(op: string, axis: number, shape: Shape): RowGeometry {
  const nd = shape.length;
  if (!(axis < nd && axis >= -nd)) {
    throw new MXNetError(`axis ${axis} exceeds the input dimension of ${nd}`, {
      op,
      shapes: [shape],
      device: 'gpu(0)',
      hint: `pass an axis in [${-nd}, ${nd - 1}]`,
    });
  }
  const { outer, C, inner } = around(shape, axis);
  return { outer, m: C, inner };
}

function checkLength(op: string, len: GpuBlob | undefined): void {
  if (len !== undefined && len.dtype !== 'int32') {
    throw new MXNetError(`length must be int32 on webgpu, got ${len.dtype}`, {
      op,
      dtypes: [len.dtype],
      device: 'gpu(0)',
      hint: "cast the lengths with astype('int32')",
    });
  }
}

/** Why the dtypes are refused (data, gradients and outputs float32; lengths int32), or undefined. */
function softmaxDTypes(
  ins: readonly DTypeName[],
  outs: readonly DTypeName[],
  lengthIndex: number,
): string | undefined {
  const bad = [...ins.filter((_, i) => i !== lengthIndex), ...outs].find((t) => t !== 'float32');
  if (bad !== undefined) return `data and outputs must be float32 on webgpu, got ${bad}`;
  const len = ins[lengthIndex];
  return len === undefined || len === 'int32' ? undefined : `length must be int32 on webgpu, got ${len}`;
}

export function installSoftmax(registry: OpRegistry, gpu: GpuHost): void {
  for (const [name, log] of [
    ['softmax', false],
    ['log_softmax', true],
  ] as const) {
    registry.registerKernel(name, 'webgpu', {
      checkDTypes: (p, ins, outs) => softmaxDTypes(ins, outs, (p as SoftmaxAttrs).use_length ? 1 : -1),
      ...gpuKernel<SoftmaxAttrs>(
        gpu,
        name,
        (p, ins, req, outs) => {
          const x = ins[0] as GpuBlob;
          const out = outs[0] as GpuBlob;
          requireFloat32(name, [x, out]);
          const length = p.use_length ? (ins[1] as GpuBlob) : undefined;
          checkLength(name, length);
          softmaxRows(gpu, {
            op: name,
            backward: false,
            log,
            a: x,
            ...(length ? { length } : {}),
            out,
            mode: modeOf(req[0], out),
            geo: geometry(name, p.axis, x.shape),
            temperature: p.temperature ?? 1,
          });
        },
        ['float32', 'int32'],
      ),
    });
    const back = `_backward_${name}`;
    registry.registerKernel(back, 'webgpu', {
      checkDTypes: (p, ins, outs) =>
        softmaxDTypes(ins, outs.slice(0, 1), (p as SoftmaxAttrs).use_length ? 2 : -1),
      ...gpuKernel<SoftmaxAttrs>(
        gpu,
        back,
        (p, ins, req, outs) => {
          const full = p.dtype !== null || p.use_length === true;
          const og = ins[0] as GpuBlob;
          const y = ins[full ? (p.use_length ? 3 : 2) : 1] as GpuBlob;
          const dx = outs[0] as GpuBlob;
          requireFloat32(back, [og, y, dx]);
          const length = p.use_length ? (ins[2] as GpuBlob) : undefined;
          checkLength(back, length);
          if (p.use_length && modeOf(req[1], outs[1]) === 'w') zeroFill(gpu.rt, outs[1] as GpuBlob);
          softmaxRows(gpu, {
            op: back,
            backward: true,
            log,
            a: og,
            y,
            ...(length ? { length } : {}),
            out: dx,
            mode: modeOf(req[0], dx),
            geo: geometry(back, p.axis, og.shape),
            temperature: p.temperature ?? 1,
          });
        },
        ['float32', 'int32'],
      ),
    });
  }
  for (const [name, log] of [
    ['masked_softmax', false],
    ['masked_log_softmax', true],
  ] as const) {
    registry.registerKernel(
      name,
      'webgpu',
      gpuKernel<SoftmaxAttrs>(
        gpu,
        name,
        (p, ins, req, outs) => {
          const [x, mask] = ins as [GpuBlob, GpuBlob];
          const out = outs[0] as GpuBlob;
          requireFloat32(name, [x, out]);
          softmaxRows(gpu, {
            op: name,
            backward: false,
            log,
            a: x,
            mask,
            out,
            mode: modeOf(req[0], out),
            geo: geometry(name, p.axis, x.shape),
            temperature: p.temperature ?? 1,
          });
        },
        ['float32', 'bool'],
      ),
    );
    const back = `_backward_${name}`;
    registry.registerKernel(
      back,
      'webgpu',
      gpuKernel<SoftmaxAttrs>(
        gpu,
        back,
        (p, ins, req, outs) => {
          const [og, mask, y] = ins as [GpuBlob, GpuBlob, GpuBlob];
          const dx = outs[0] as GpuBlob;
          requireFloat32(back, [og, y, dx]);
          softmaxRows(gpu, {
            op: back,
            backward: true,
            log,
            a: og,
            y,
            mask,
            out: dx,
            mode: modeOf(req[0], dx),
            geo: geometry(back, p.axis, og.shape),
            temperature: p.temperature ?? 1,
          });
        },
        ['float32', 'bool'],
      ),
    );
  }
}
