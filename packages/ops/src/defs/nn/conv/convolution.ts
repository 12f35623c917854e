/**
 * `Convolution` and `_backward_Convolution` (MXNet src/operator/nn/convolution{.cc,-inl.h}).
 *
 * 1-D, 2-D and 3-D by the length of `kernel`; data (N, C, spatial...), weight
 * (num_filter, C / num_group, kernel...), bias (num_filter,). Output spatial size per axis is
 * floor((x + 2·pad - dilate·(kernel-1) - 1) / stride) + 1. Shape inference is MXNet's, partial
 * inference included: the weight and bias shapes follow from the data shape and the params (an
 * unknown channel count stays unknown: data (1, -1, -1, -1) with kernel (7, 7) and 64 filters gives
 * weight (64, -1, 7, 7)), the batch size flows back from the output, and an unknown input extent is
 * recovered from the output where the stride is 1.
 *
 * Only channel-first layouts run on CPU (MXNet's CPU operator: "Only support NCW, NCHW and NCDHW
 * layout"); NHWC/NDHWC parse, as in MXNet, and fail in inference before anything runs.
 * `workspace`, `cudnn_tune` and `cudnn_off` are accepted and ignored (kernels size their own
 * workspace). The backward op takes [ograd, data, weight, (bias)] and returns the gradients of data,
 * weight and (bias), like MXNet's; the bias input is read only for its shape.
 */
import { MXNetError, type Shape } from '@mx/base';
import type { ShapeSlots } from '../../../op-def.js';
import { P, type ParamSchema, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import {
  assignSlot,
  CHANNEL_FIRST,
  CONV_LAYOUTS,
  checkMin,
  fmt,
  known,
  type ParamView,
  perAxis,
} from './common.js';

export const convolutionParams = {
  kernel: P.shape({ doc: 'Convolution kernel size: (w,), (h, w) or (d, h, w)' }),
  stride: P.shape({
    default: [],
    doc: 'Convolution stride: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.',
  }),
  dilate: P.shape({
    default: [],
    doc: 'Convolution dilate: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.',
  }),
  pad: P.shape({
    default: [],
    doc: 'Zero pad for convolution: (w,), (h, w) or (d, h, w). Defaults to no padding.',
  }),
  num_filter: P.int({ lowerBound: 1, doc: 'Convolution filter(channel) number' }),
  num_group: P.int({ default: 1, lowerBound: 1, doc: 'Number of group partitions.' }),
  workspace: P.int({
    default: 1024,
    lowerBound: 0,
    doc: 'Maximum temporary workspace allowed (MB) in convolution (accepted; cpu-wasm sizes its own).',
  }),
  no_bias: P.bool({ default: false, doc: 'Whether to disable bias parameter.' }),
  cudnn_tune: P.optional(P.enum(['off', 'limited_workspace', 'fastest'] as const), {
    default: null,
    doc: 'Whether to pick convolution algo by running performance test (ignored without cuDNN).',
  }),
  cudnn_off: P.bool({ default: false, doc: 'Turn off cudnn for this layer (ignored).' }),
  layout: P.optional(P.enum(CONV_LAYOUTS), {
    default: null,
    doc: 'Set layout for input, output and weight. Empty for default layout: NCW for 1d, NCHW for 2d and NCDHW for 3d. Only the channel-first layouts run on CPU.',
  }),
};

export type ConvolutionAttrs = ParamsOf<typeof convolutionParams>;

/** Kernel geometry with MXNet's defaults applied. */
export interface ConvGeometry {
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly dilate: readonly number[];
  readonly pad: readonly number[];
}

/**
 * MXNet's param-parser checks shared by Convolution and Deconvolution: 1-3 spatial axes, per-axis
 * tuples of the kernel's length, positive kernel/stride/dilate, a channel-first layout matching the
 * kernel, num_filter divisible by num_group.
 */
export function convGeometry(
  op: string,
  p: {
    readonly kernel: readonly number[];
    readonly stride: readonly number[];
    readonly dilate: readonly number[];
    readonly pad: readonly number[];
    readonly num_filter: number;
    readonly num_group: number;
    readonly layout: string | null;
  },
  params: ParamView,
): ConvGeometry {
  const nd = p.kernel.length;
  const kind = op.startsWith('_backward_') ? op.slice('_backward_'.length) : op;
  if (nd < 1 || nd > 3) {
    throw new MXNetError(`${nd}D ${kind.toLowerCase()} not supported`, {
      op,
      params,
      hint: 'pass kernel with 1, 2 or 3 values: (w,), (h, w) or (d, h, w)',
    });
  }
  const kernel = [...p.kernel];
  const stride = perAxis(op, 'stride', 'Stride', p.stride, kernel, 1, params);
  const dilate = perAxis(op, 'dilate', 'Dilate', p.dilate, kernel, 1, params);
  const pad = perAxis(op, 'pad', 'Padding', p.pad, kernel, 0, params);
  checkMin(op, 'kernel', kernel, 1, params);
  checkMin(op, 'stride', stride, 1, params);
  checkMin(op, 'dilate', dilate, 1, params);
  checkMin(op, 'pad', pad, 0, params);
  if (nd === 3 && dilate.some((d) => d !== 1)) {
    throw new MXNetError(`Dilate is not supported in 3d ${kind.toLowerCase()}: dilate=${fmt(dilate)}`, {
      op,
      params,
      hint: 'use dilate (1, 1, 1) with a 3-D kernel',
    });
  }
  const want = CHANNEL_FIRST[nd - 1] as string;
  if (p.layout !== null && p.layout !== want) {
    const cf = (CHANNEL_FIRST as readonly string[]).includes(p.layout);
    throw new MXNetError(
      cf
        ? `layout ${p.layout} does not match the ${nd}-D kernel ${fmt(kernel)}`
        : `layout ${p.layout} is not supported on CPU: only support NCW, NCHW and NCDHW layout`,
      {
        op,
        params,
        hint: cf
          ? `use layout ${want} (or omit it) with a ${nd}-D kernel`
          : `transpose the data to ${want} and drop the layout param`,
      },
    );
  }
  if (p.num_filter % p.num_group !== 0) {
    throw new MXNetError(
      `output num_filter must divide group size: num_filter=${p.num_filter}, num_group=${p.num_group}`,
      { op, params, hint: 'pick num_filter as a multiple of num_group' },
    );
  }
  return { kernel, stride, dilate, pad };
}

/** Checks data's rank and channel count against the params; returns C (or -1). */
export function checkData(op: string, data: Shape, nd: number, numGroup: number, params: ParamView): number {
  if (data.length !== nd + 2) {
    const names = ['batch-num_filter-x', 'batch-num_filter-y-x', 'batch-num_filter-depth-y-x'];
    throw new MXNetError(`Input data should be ${nd + 2}D in ${names[nd - 1]}, got ${fmt(data)}`, {
      op,
      params,
      shapes: [data],
      hint: `a ${nd}-D kernel takes data of shape ${['(N, C, W)', '(N, C, H, W)', '(N, C, D, H, W)'][nd - 1]}`,
    });
  }
  const c = data[1] as number;
  if (c >= 0 && c % numGroup !== 0) {
    throw new MXNetError(`input num_filter must divide group size: channels=${c}, num_group=${numGroup}`, {
      op,
      params,
      shapes: [data],
      hint: 'pick num_group dividing the number of input channels (data.shape[1])',
    });
  }
  return c;
}

/** MXNet ConvolutionShape over slots [data, weight, (bias)] → [output]. */
export function convolutionShape(
  op: string,
  p: ConvolutionAttrs,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
): boolean {
  const params = p as ParamView;
  const g = convGeometry(op, p, params);
  const nd = g.kernel.length;
  const dshp = inShapes[0];
  if (dshp === undefined) return false;
  let c = checkData(op, dshp, nd, p.num_group, params);
  // Channels from a known weight (inference in the other direction; MXNet leaves them unknown).
  const w0 = inShapes[1];
  if (c < 0 && w0 !== undefined && w0.length === nd + 2 && (w0[1] as number) >= 0) {
    c = (w0[1] as number) * p.num_group;
  }
  const ctx = { params, data: dshp };
  assignSlot(op, inShapes, 1, [p.num_filter, c >= 0 ? c / p.num_group : -1, ...g.kernel], 'weight', {
    ...ctx,
    hint: `weight must be (num_filter, channels / num_group, *kernel) = (${p.num_filter}, ${c >= 0 ? c / p.num_group : '?'}, ${g.kernel.join(', ')})`,
  });
  if (!p.no_bias)
    assignSlot(op, inShapes, 2, [p.num_filter], 'bias', { ...ctx, hint: 'bias must be (num_filter,)' });
  const spatial = dshp.slice(2).map((x, i) => {
    const dk = 1 + ((g.kernel[i] as number) - 1) * (g.dilate[i] as number);
    const padded = x + 2 * (g.pad[i] as number);
    if (x >= 0 && dk > padded) {
      throw new MXNetError(
        `kernel size exceed input: dilated kernel ${dk} on axis ${i + 2} is larger than the padded input ${padded} (data ${fmt(dshp)}, kernel ${fmt(g.kernel)}, dilate ${fmt(g.dilate)}, pad ${fmt(g.pad)})`,
        { op, params, shapes: [dshp], hint: 'use a smaller kernel or dilate, or more padding' },
      );
    }
    return x >= 0 ? Math.floor((padded - dk) / (g.stride[i] as number)) + 1 : -1;
  });
  assignSlot(op, outShapes, 0, [dshp[0] as number, p.num_filter, ...spatial], 'output', ctx);
  // Back-fill data from the output: batch always, extents where stride is 1.
  const o = outShapes[0] as Shape;
  const back = dshp.map((x, i) => {
    if (i === 0) return o[0] as number;
    if (i === 1) return c;
    const a = i - 2;
    const oi = o[i] as number;
    if (x < 0 && oi >= 0 && g.stride[a] === 1) {
      const dk = 1 + ((g.kernel[a] as number) - 1) * (g.dilate[a] as number);
      return oi + dk - 1 - 2 * (g.pad[a] as number);
    }
    return x;
  });
  assignSlot(op, inShapes, 0, back, 'data', ctx);
  const n = p.no_bias ? 2 : 3;
  return known(outShapes[0]) && inShapes.slice(0, n).every(known);
}

/** Shape inference of `_backward_Convolution` / `_backward_Deconvolution`: [ograd, data, weight, (bias)]. */
export function backwardShape(
  op: string,
  params: ParamView,
  forwardShape: (inS: ShapeSlots, outS: ShapeSlots) => boolean,
  noBias: boolean,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
): boolean {
  const fin = inShapes.slice(1);
  const fout: ShapeSlots = [undefined];
  forwardShape(fin, fout);
  if (fout[0] !== undefined) {
    assignSlot(op, inShapes, 0, fout[0], 'ograd', {
      params,
      data: fin[0],
      hint: 'the output gradient must have the forward output shape',
    });
  }
  const n = noBias ? 2 : 3;
  for (let i = 0; i < n; i++) {
    const s = fin[i];
    if (s !== undefined) {
      inShapes[i + 1] = s;
      assignSlot(op, outShapes, i, s, ['data gradient', 'weight gradient', 'bias gradient'][i] as string, {
        params,
      });
    }
  }
  return inShapes.slice(0, n + 1).every(known) && outShapes.slice(0, n).every(known);
}

/** What differs between Convolution and Deconvolution's op pair (forward + `_backward_*`). */
export interface ConvLikeSpec<S extends ParamSchema> {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly doc: string;
  readonly params: S;
  readonly shape: (op: string, p: ParamsOf<S>, inShapes: ShapeSlots, outShapes: ShapeSlots) => boolean;
}

/**
 * Define a convolution-like op (inputs data, weight, optional bias) and its `_backward_<name>`
 * ([ograd, data, weight, (bias)] → gradients of each), whose shapes come from the forward's.
 */
export function defineConvLike<S extends ParamSchema>(registry: OpRegistry, spec: ConvLikeSpec<S>): void {
  const { name, shape } = spec;
  const back = `_backward_${name}`;
  const noBias = (p: ParamsOf<S>) => (p as { no_bias: boolean }).no_bias;
  registry.define({
    name,
    aliases: spec.aliases,
    doc: spec.doc,
    params: spec.params,
    numInputs: (p) => (noBias(p) ? 2 : 3),
    listInputNames: (p) => (noBias(p) ? ['data', 'weight'] : ['data', 'weight', 'bias']),
    inferShape: (p, i, o) => shape(name, p, i, o),
    gradient: {
      inputs: 'all',
      outputs: 'none',
      build: (g, p) => {
        const ins = [g.ograd(0), g.input(0), g.input(1)];
        if (!noBias(p)) ins.push(g.input(2));
        return g.op(back, ins, p);
      },
    },
  });
  registry.define({
    name: back,
    doc: `Gradients of ${name}: [ograd, data, weight, (bias)] → [data grad, weight grad, (bias grad)].`,
    params: spec.params,
    numInputs: (p) => (noBias(p) ? 3 : 4),
    numOutputs: (p) => (noBias(p) ? 2 : 3),
    listInputNames: (p) => (noBias(p) ? ['ograd', 'data', 'weight'] : ['ograd', 'data', 'weight', 'bias']),
    isBackward: true,
    inferShape: (p, i, o) =>
      backwardShape(back, p as ParamView, (fi, fo) => shape(back, p, fi, fo), noBias(p), i, o),
  });
}

export function registerConvolution(registry: OpRegistry): void {
  defineConvLike(registry, {
    name: 'Convolution',
    aliases: ['_npx_convolution'],
    doc: 'N-D convolution (cross-correlation) of (N, C, spatial...) data with (num_filter, C/num_group, kernel...) weights, plus bias.',
    params: convolutionParams,
    shape: convolutionShape,
  });
}
