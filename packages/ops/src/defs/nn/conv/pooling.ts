/**
 * `Pooling` and `_backward_Pooling` (MXNet src/operator/nn/pooling{.cc,-inl.h}, pool.h).
 *
 * 1-D/2-D/3-D by the data rank (3-5) and `kernel`; `pool_type` max, avg, sum or lp (with `p_value`
 * 1, 2 or 3); `global_pool` pools each whole feature map (kernel = the spatial extent, no pad,
 * stride 1). Output extent per axis: `valid` floor((x + 2·pad - k) / stride) + 1, `full` (Caffe's,
 * = PyTorch's ceil_mode without its last-window rule) ceil(...) + 1, `same` (1-D only, pad 0)
 * ceil(x / stride). Windows are clipped to the input; padding never wins a max; avg divides by the
 * window clipped to the padded input when `count_include_pad` (default true), else by the count of
 * real elements. Layouts: the channel-first ones and NWC/NHWC/NDHWC, as MXNet's CPU operator.
 *
 * The backward op takes [ograd, data, output] (MXNet ElemwiseGradUseInOut) and routes max gradients
 * to the first maximum of each window in row-major order.
 */
import { MXNetError, type Shape } from '@mx/base';
import type { ShapeSlots } from '../../../op-def.js';
import { P, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignSlot, checkMin, fmt, known, type ParamView, POOL_LAYOUTS } from './common.js';

export const poolingParams = {
  kernel: P.shape({ default: [], doc: 'Pooling kernel size: (y, x) or (d, y, x)' }),
  pool_type: P.enum(['max', 'avg', 'sum', 'lp'] as const, {
    default: 'max',
    doc: 'Pooling type to be applied.',
  }),
  global_pool: P.bool({
    default: false,
    doc: 'Ignore kernel size, do global pooling based on current input feature map. ',
  }),
  cudnn_off: P.bool({ default: false, doc: 'Turn off cudnn pooling and use MXNet pooling operator. ' }),
  pooling_convention: P.enum(['full', 'valid', 'same'] as const, {
    default: 'valid',
    doc: 'Pooling convention to be applied.',
  }),
  stride: P.shape({
    default: [],
    doc: 'Stride: for pooling (y, x) or (d, y, x). Defaults to 1 for each dimension.',
  }),
  pad: P.shape({ default: [], doc: 'Pad for pooling: (y, x) or (d, y, x). Defaults to no padding.' }),
  p_value: P.optional(P.int(), {
    default: null,
    doc: 'Value of p for Lp pooling, can be 1 or 2, required for Lp Pooling.',
  }),
  count_include_pad: P.optional(P.bool(), {
    default: null,
    doc: 'Only used for AvgPool, specify whether to count padding elements for averagecalculation. For example, with a 5*5 kernel on a 3*3 corner of a image,the sum of the 9 valid elements will be divided by 25 if this is set to true,or it will be divided by 9 if this is set to false. Defaults to true.',
  }),
  layout: P.optional(P.enum(POOL_LAYOUTS), {
    default: null,
    doc: 'Set layout for input and output. Empty for default layout: NCW for 1d, NCHW for 2d and NCDHW for 3d.',
  }),
  output_size: P.optional(P.tuple(P.int()), {
    default: null,
    doc: 'Only used for Adaptive Pooling. int (output size) or a tuple of int for output (height, width).',
  }),
};

export type PoolingAttrs = ParamsOf<typeof poolingParams>;

/** Resolved pooling geometry over the spatial axes, in the data's own axis order. */
export interface PoolGeometry {
  /** Channel-last layout (NWC, NHWC, NDHWC). */
  readonly channelLast: boolean;
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly pad: readonly number[];
  /** Spatial extents of the output. */
  readonly out: readonly number[];
}

const DATA_RANKS =
  'Pooling: Input data should be  3D in (batch, channel, x) Or 4D in (batch, channel, y, x)  Or 5D in (batch, channel, d, y, x)';

/** Everything MXNet's PoolingShape checks, for known or partially known data. */
export function poolGeometry(op: string, p: PoolingAttrs, data: Shape): PoolGeometry {
  const params = p as ParamView;
  const nd = data.length;
  if (nd < 3 || nd > 5) {
    throw new MXNetError(`${DATA_RANKS}, got ${fmt(data)}`, {
      op,
      params,
      shapes: [data],
      hint: 'reshape the data to (N, C, W), (N, C, H, W) or (N, C, D, H, W)',
    });
  }
  const sp = nd - 2;
  const layout = p.layout ?? ['NCW', 'NCHW', 'NCDHW'][sp - 1];
  if ((layout as string).length !== nd) {
    throw new MXNetError(`Need ${sp}D layout: layout ${layout} does not fit ${nd}-D data ${fmt(data)}`, {
      op,
      params,
      shapes: [data],
      hint: `use ${['NCW or NWC', 'NCHW or NHWC', 'NCDHW or NDHWC'][sp - 1]}`,
    });
  }
  const channelLast = !(layout as string).startsWith('NC');
  const spatial = channelLast ? data.slice(1, nd - 1) : data.slice(2);
  if (p.pool_type === 'lp') {
    if (p.p_value === null) {
      throw new MXNetError('p_value is required for Lp pooling', {
        op,
        params,
        hint: 'pass p_value=1, 2 or 3',
      });
    }
    if (p.p_value < 1 || p.p_value > 3) {
      throw new MXNetError(`p value of ${p.p_value} is not supported yet...`, {
        op,
        params,
        hint: 'Lp pooling supports p_value 1, 2 or 3',
      });
    }
  }
  if (p.global_pool) {
    return {
      channelLast,
      kernel: spatial,
      stride: spatial.map(() => 1),
      pad: spatial.map(() => 0),
      out: spatial.map(() => 1),
    };
  }
  if (p.kernel.length === 0) {
    throw new MXNetError('kernel is required unless global_pool is set', {
      op,
      params,
      shapes: [data],
      hint: `pass kernel with ${sp} value(s), or global_pool=True`,
    });
  }
  if (p.kernel.length !== sp) {
    throw new MXNetError(
      `${DATA_RANKS}: a ${p.kernel.length}-D kernel ${fmt(p.kernel)} needs ${p.kernel.length + 2}-D data, got ${fmt(data)}`,
      { op, params, shapes: [data], hint: `pass kernel with ${sp} value(s) for this data` },
    );
  }
  const kernel = [...p.kernel];
  const axisTuple = (name: string, v: readonly number[], dflt: number): number[] => {
    if (v.length === 0) return kernel.map(() => dflt);
    if (v.length !== sp) {
      throw new MXNetError(
        `${name} and kernel should have the same length: kernel ${fmt(kernel)}, ${name} ${fmt(v)}`,
        {
          op,
          params,
          hint: `pass ${name} with ${sp} value(s)`,
        },
      );
    }
    return [...v];
  };
  const stride = axisTuple('stride', p.stride, 1);
  const pad = axisTuple('pad', p.pad, 0);
  checkMin(op, 'kernel', kernel, 1, params);
  checkMin(op, 'stride', stride, 1, params);
  checkMin(op, 'pad', pad, 0, params);
  if (p.pooling_convention === 'same') {
    if (nd !== 3) {
      throw new MXNetError(
        `Pooling: Input data should be 3D in (batch, channel, x). Currently 'same' supports Max Pooling 1-D, got ${fmt(data)}`,
        { op, params, shapes: [data], hint: "use pooling_convention 'valid' or 'full' for 2-D/3-D data" },
      );
    }
    if (pad.some((x) => x !== 0)) {
      throw new MXNetError('Same pooling convention disables the use of pad parameter.', {
        op,
        params,
        hint: "drop pad with pooling_convention='same'",
      });
    }
  }
  const out = spatial.map((x, i) => {
    if (x < 0) return -1;
    const k = kernel[i] as number;
    const s = stride[i] as number;
    const padded = x + 2 * (pad[i] as number);
    if (k > padded) {
      throw new MXNetError(`kernel size (${k}) exceeds input (${x} padded to ${padded})`, {
        op,
        params,
        shapes: [data],
        hint: 'use a smaller kernel or more padding',
      });
    }
    if (p.pooling_convention === 'valid') return 1 + Math.floor((padded - k) / s);
    if (p.pooling_convention === 'full') return 1 + Math.ceil((padded - k) / s);
    return Math.ceil(padded / s);
  });
  return { channelLast, kernel, stride, pad, out };
}

/** The output shape for `data`. */
export function poolingOutShape(op: string, p: PoolingAttrs, data: Shape): Shape {
  const g = poolGeometry(op, p, data);
  const nd = data.length;
  return g.channelLast
    ? [data[0] as number, ...g.out, data[nd - 1] as number]
    : [data[0] as number, data[1] as number, ...g.out];
}

function poolingShape(op: string, p: PoolingAttrs, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean {
  const data = inShapes[0];
  if (data === undefined) return false;
  assignSlot(op, outShapes, 0, poolingOutShape(op, p, data), 'output', { params: p as ParamView, data });
  return known(data) && known(outShapes[0]);
}

export function registerPooling(registry: OpRegistry): void {
  registry.define({
    name: 'Pooling',
    aliases: ['_npx_pooling'],
    doc: 'Max, average, sum or Lp pooling over the spatial axes of 3-D, 4-D or 5-D data.',
    params: poolingParams,
    inferShape: (p, i, o) => poolingShape('Pooling', p, i, o),
    gradient: {
      inputs: [0],
      outputs: [0],
      build: (g, p) => [g.op1('_backward_Pooling', [g.ograd(0), g.input(0), g.output(0)], p)],
    },
  });
  registry.define({
    name: '_backward_Pooling',
    doc: 'Gradient of Pooling: [ograd, data, output] → data gradient.',
    params: poolingParams,
    numInputs: 3,
    listInputNames: ['ograd', 'data', 'output'],
    isBackward: true,
    inferShape: (p, inShapes, outShapes) => {
      const op = '_backward_Pooling';
      const data = inShapes[1];
      if (data === undefined) return false;
      const ctx = {
        params: p as ParamView,
        data,
        hint: 'ograd and output must have the Pooling output shape',
      };
      const o = poolingOutShape(op, p, data);
      assignSlot(op, inShapes, 0, o, 'ograd', ctx);
      assignSlot(op, inShapes, 2, o, 'output', ctx);
      assignSlot(op, outShapes, 0, data, 'data gradient', ctx);
      return inShapes.every(known) && known(outShapes[0]);
    },
  });
}
