/**
 * `Deconvolution` and `_backward_Deconvolution` (MXNet src/operator/nn/deconvolution{.cc,-inl.h}):
 * the transposed convolution, i.e. Convolution's data gradient as a forward op. Data (N, C, in...),
 * weight (C, num_filter / num_group, kernel...), bias (num_filter,) — `no_bias` defaults to true
 * here, unlike Convolution. Output extent per axis: stride·(x-1) + dilate·(kernel-1) + 1 - 2·pad + adj.
 *
 * With a non-zero `target_shape`, pad and adj are derived from it (MXNet `InferPad`):
 * total = stride·(x-1) + dilated kernel must reach the target; adj = (total - target) % 2 and
 * pad = (total - target + 1) / 2. adj must stay below stride. 1-D/2-D/3-D as for Convolution (MXNet
 * runs 3-D only with cuDNN; cpu-wasm runs it too). Only channel-first layouts run on CPU.
 */
import { MXNetError, type Shape } from '@mx/base';
import type { ShapeSlots } from '../../../op-def.js';
import { P, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignSlot, CONV_LAYOUTS, checkMin, fmt, known, type ParamView, perAxis } from './common.js';
import { checkData, convGeometry, defineConvLike } from './convolution.js';

export const deconvolutionParams = {
  kernel: P.shape({
    doc: 'Deconvolution kernel size: (w,), (h, w) or (d, h, w). This is same as the kernel size used for the corresponding convolution',
  }),
  stride: P.shape({
    default: [],
    doc: 'The stride used for the corresponding convolution: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.',
  }),
  dilate: P.shape({
    default: [],
    doc: 'Dilation factor for each dimension of the input: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.',
  }),
  pad: P.shape({
    default: [],
    doc: 'The amount of implicit zero padding added during convolution for each dimension of the input: (w,), (h, w) or (d, h, w). If `target_shape` is set, `pad` will be ignored and a padding that will generate the target shape will be used. Defaults to no padding.',
  }),
  adj: P.shape({
    default: [],
    doc: 'Adjustment for output shape: (w,), (h, w) or (d, h, w). If `target_shape` is set, `adj` will be ignored and computed accordingly.',
  }),
  target_shape: P.shape({ default: [], doc: 'Shape of the output tensor: (w,), (h, w) or (d, h, w).' }),
  num_filter: P.int({ range: [1, 100000], doc: 'Number of output filters.' }),
  num_group: P.int({ default: 1, lowerBound: 1, doc: 'Number of groups partition.' }),
  workspace: P.int({
    default: 512,
    range: [0, 8192],
    doc: 'Maximum temporary workspace allowed (MB) in deconvolution (accepted; cpu-wasm sizes its own).',
  }),
  no_bias: P.bool({ default: true, doc: 'Whether to disable bias parameter.' }),
  cudnn_tune: P.optional(P.enum(['off', 'limited_workspace', 'fastest'] as const), {
    default: null,
    doc: 'Whether to pick convolution algorithm by running performance test (ignored without cuDNN).',
  }),
  cudnn_off: P.bool({ default: false, doc: 'Turn off cudnn for this layer (ignored).' }),
  layout: P.optional(P.enum(CONV_LAYOUTS), {
    default: null,
    doc: 'Set layout for input, output and weight. Empty for default layout, NCW for 1d, NCHW for 2d and NCDHW for 3d. Only the channel-first layouts run on CPU.',
  }),
};

export type DeconvolutionAttrs = ParamsOf<typeof deconvolutionParams>;

/** MXNet DeconvolutionShape over slots [data, weight, (bias)] → [output]. */
export function deconvolutionShape(
  op: string,
  p: DeconvolutionAttrs,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
): boolean {
  const params = p as ParamView;
  const g = convGeometry(op, p, params);
  const nd = g.kernel.length;
  const adjParam = perAxis(op, 'adj', 'Adjustment', p.adj, g.kernel, 0, params);
  checkMin(op, 'adj', adjParam, 0, params);
  if (p.target_shape.length !== 0 && p.target_shape.length !== nd) {
    throw new MXNetError(
      `target_shape must have the same number of dimensions with kernel_size, but kernel_size is set to ${fmt(g.kernel)} while target_shape is ${fmt(p.target_shape)}`,
      { op, params, hint: `pass target_shape with ${nd} value(s), or omit it` },
    );
  }
  const useTarget = p.target_shape.some((t) => t !== 0);
  const dshp = inShapes[0];
  if (dshp === undefined) return false;
  const c = checkData(op, dshp, nd, p.num_group, params);
  const ctx = { params, data: dshp };
  assignSlot(op, inShapes, 1, [c, p.num_filter / p.num_group, ...g.kernel], 'weight', {
    ...ctx,
    hint: `weight must be (channels, num_filter / num_group, *kernel) = (${c >= 0 ? c : '?'}, ${p.num_filter / p.num_group}, ${g.kernel.join(', ')})`,
  });
  if (!p.no_bias)
    assignSlot(op, inShapes, 2, [p.num_filter], 'bias', { ...ctx, hint: 'bias must be (num_filter,)' });
  const spatial = dshp.slice(2).map((x, i) => {
    if (x < 0) return -1;
    const s = g.stride[i] as number;
    const dk = 1 + ((g.kernel[i] as number) - 1) * (g.dilate[i] as number);
    let pad = g.pad[i] as number;
    let adj = adjParam[i] as number;
    if (useTarget) {
      const total = s * (x - 1) + dk;
      const target = p.target_shape[i] as number;
      if (total < target) {
        throw new MXNetError(
          `too big target shape: target_shape[${i}]=${target} but stride·(x-1) + dilated kernel is only ${total}`,
          { op, params, shapes: [dshp], hint: 'lower target_shape, or raise stride or kernel' },
        );
      }
      adj = (total - target) % 2;
      pad = (total - target + 1) >> 1;
    }
    if (adj > s - 1) {
      const axis = ['x', 'y', 'd'][nd - 1 - i];
      throw new MXNetError(`adj(${axis}) must be smaller than stride[${i}]: adj=${adj}, stride=${s}`, {
        op,
        params,
        shapes: [dshp],
        hint: useTarget ? 'pick a target_shape reachable with this stride' : 'lower adj or raise stride',
      });
    }
    const o = s * (x - 1) + dk - 2 * pad + adj;
    if (o <= 0) {
      throw new MXNetError(`output size ${o} on axis ${i + 2} is not positive (data ${fmt(dshp)})`, {
        op,
        params,
        shapes: [dshp],
        hint: 'use less padding',
      });
    }
    return o;
  });
  assignSlot(op, outShapes, 0, [dshp[0] as number, p.num_filter, ...spatial], 'output', ctx);
  const o = outShapes[0] as Shape;
  if (dshp[0] === -1 && (o[0] as number) >= 0) inShapes[0] = [o[0] as number, ...dshp.slice(1)];
  const n = p.no_bias ? 2 : 3;
  return known(outShapes[0]) && inShapes.slice(0, n).every(known);
}

export function registerDeconvolution(registry: OpRegistry): void {
  defineConvLike(registry, {
    name: 'Deconvolution',
    aliases: ['_npx_deconvolution'],
    doc: 'Transposed convolution (the data gradient of Convolution): (N, C, in...) data, (C, num_filter/num_group, kernel...) weight.',
    params: deconvolutionParams,
    shape: deconvolutionShape,
  });
}
