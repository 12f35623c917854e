/**
 * softmax, log_softmax, masked_softmax, masked_log_softmax and their backward ops on cuda:
 * parameter handling over the row kernel of softmax.ts (axis normalised and checked, temperature,
 * optional integer lengths of any integer dtype, the bool mask, an output dtype override). Backward
 * inputs follow the op definitions: (ograd, output) or, with a dtype override or use_length,
 * (ograd, data[, length], output); the length gradient is zero.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry } from '@mx/ops';
import { CUDA, type CudaBlob, type CudaCompute, type CudaHost, cudaKernel } from '../../../kernel.js';
import { runMap } from './map.js';
import { type RowGeometry, softmaxRows } from './softmax.js';
import { around, FLOATS, modeOf, normAxis, requireFloat } from './util.js';

interface SoftmaxAttrs extends Attrs {
  readonly axis: number;
  readonly temperature: number | null;
  readonly dtype: DTypeName | null;
  readonly use_length: boolean | null;
}

function geometry(op: string, axis: number, shape: readonly number[]): RowGeometry {
  const { outer, C, inner } = around(shape, normAxis(op, axis, shape));
  return { outer, m: C, inner };
}

/** Why the dtypes are refused (data, gradients and outputs float; lengths integers), or undefined. */
function softmaxDTypes(
  ins: readonly DTypeName[],
  outs: readonly DTypeName[],
  lengthIndex: number,
): string | undefined {
  const bad = [...ins.filter((_, i) => i !== lengthIndex), ...outs].find((t) => !FLOATS.includes(t));
  return bad === undefined ? undefined : `data and outputs must be floating point on cuda, got ${bad}`;
}

export function installSoftmax(registry: OpRegistry, host: CudaHost): void {
  const reg = (name: string, fn: CudaCompute<SoftmaxAttrs>, extra: readonly DTypeName[], lenAt?: number) => {
    if (!registry.has(name)) return;
    registry.registerKernel(name, CUDA, {
      ...(lenAt === undefined
        ? {}
        : {
            checkDTypes: (p: Attrs, ins: readonly DTypeName[], outs: readonly DTypeName[]) =>
              softmaxDTypes(ins, outs.slice(0, 1), (p as SoftmaxAttrs).use_length ? lenAt : -1),
          }),
      ...cudaKernel<SoftmaxAttrs>(host, name, fn, [...FLOATS, ...extra]),
    });
  };
  const INTS: readonly DTypeName[] = ['int32', 'int64', 'int8', 'uint8'];
  for (const [name, log] of [
    ['softmax', false],
    ['log_softmax', true],
  ] as const) {
    reg(
      name,
      (p, ins, req, outs) => {
        const x = ins[0] as CudaBlob;
        const out = outs[0] as CudaBlob;
        requireFloat(name, [x, out]);
        const length = p.use_length ? (ins[1] as CudaBlob) : undefined;
        softmaxRows(host, {
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
      INTS,
      1,
    );
    const back = `_backward_${name}`;
    reg(
      back,
      (p, ins, req, outs) => {
        const full = p.dtype !== null || p.use_length === true;
        const og = ins[0] as CudaBlob;
        const y = ins[full ? (p.use_length ? 3 : 2) : 1] as CudaBlob;
        const dx = outs[0] as CudaBlob;
        requireFloat(back, [og, y, dx]);
        const length = p.use_length ? (ins[2] as CudaBlob) : undefined;
        const dl = outs[1];
        if (p.use_length && dl !== undefined && modeOf(req[1], dl) === 'w') {
          runMap(host, { op: back, expr: '(T)0', inputs: [], out: dl, mode: 'w' });
        }
        softmaxRows(host, {
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
      INTS,
      2,
    );
  }
  for (const [name, log] of [
    ['masked_softmax', false],
    ['masked_log_softmax', true],
  ] as const) {
    reg(
      name,
      (p, ins, req, outs) => {
        const [x, mask] = ins as [CudaBlob, CudaBlob];
        const out = outs[0] as CudaBlob;
        requireFloat(name, [x, out]);
        softmaxRows(host, {
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
      ['bool'],
    );
    const back = `_backward_${name}`;
    reg(
      back,
      (p, ins, req, outs) => {
        const [og, mask, y] = ins as [CudaBlob, CudaBlob, CudaBlob];
        const dx = outs[0] as CudaBlob;
        requireFloat(back, [og, y, dx]);
        softmaxRows(host, {
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
      ['bool'],
    );
  }
}
