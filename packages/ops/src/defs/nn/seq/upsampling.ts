/**
 * UpSampling (MXNet `src/operator/nn/upsampling{-inl.h,.cc}`), NCHW data.
 *
 * - `sample_type='nearest'`: `num_args` inputs arg0.., each repeated in y and x so that all reach
 *   (scale*h_0, scale*w_0); `multi_input_mode='concat'` stacks them along channels, `'sum'` adds
 *   them (equal channels). Every input's factor must be an integer, the same in y and x.
 * - `sample_type='bilinear'`: inputs (data, weight), MXNet's Deconvolution with
 *   kernel = 2*scale - scale%2, stride = scale, pad = ceil((scale-1)/2), num_group = num_filter =
 *   channels, no bias: a depthwise transposed convolution with weight (C, 1, k, k) (MXNet fills it
 *   with the bilinear initializer). The output is (N, C, scale*H, scale*W). `num_filter` must equal
 *   the channel count (MXNet's deconvolution shape check rejects anything else further down).
 *
 * `_backward_UpSampling` sums each scale x scale block of the output gradient (nearest) or runs the
 * transposed convolution's data and weight gradients (bilinear). MXNet's nearest backward node
 * takes the output gradient only; with several inputs ours also takes them, for their shapes.
 * `workspace` is accepted and unused.
 */
import type { Shape } from '@mx/base';
import { shapeToString } from '@mx/base';
import type { ShapeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known, seqError } from './common.js';

const params = {
  scale: P.int({ range: [1, 1000], doc: 'Up sampling scale' }),
  num_filter: P.int({
    default: 0,
    doc: 'Input filter. Only used by bilinear sample_type.Since bilinear upsampling uses deconvolution, num_filters is set to the number of channels.',
  }),
  sample_type: P.enum(['nearest', 'bilinear'] as const, { doc: 'upsampling method' }),
  multi_input_mode: P.enum(['concat', 'sum'] as const, {
    default: 'concat',
    doc: 'How to handle multiple input. concat means concatenate upsampled images along the channel dimension. sum means add all images together, only available for nearest neighbor upsampling.',
  }),
  num_args: P.int({
    lowerBound: 1,
    doc: 'Number of inputs to be upsampled. For nearest neighbor upsampling, this can be 1-N; the size of output will be(scale*h_0,scale*w_0) and all other inputs will be upsampled to thesame size. For bilinear upsampling this must be 2; 1 input and 1 weight.',
  }),
  workspace: P.int({ default: 512, range: [0, 8192], doc: 'Tmp workspace for deconvolution (MB)' }),
};

type UpAttrs = {
  readonly scale: number;
  readonly num_filter: number;
  readonly sample_type: 'nearest' | 'bilinear';
  readonly multi_input_mode: 'concat' | 'sum';
  readonly num_args: number;
  readonly workspace: number;
};

/** Kernel size, stride and pad of bilinear upsampling's deconvolution. */
export function bilinearGeometry(scale: number): { kernel: number; stride: number; pad: number } {
  return { kernel: 2 * scale - (scale % 2), stride: scale, pad: Math.ceil((scale - 1) / 2) };
}

const A = (a: UpAttrs) => a as unknown as Record<string, unknown>;

/** Output shape of nearest upsampling of `shapes`; throws MXNet's errors. */
function nearestShape(op: string, attrs: UpAttrs, shapes: readonly Shape[], inShapes: ShapeSlots): number[] {
  const d0 = shapes[0] as Shape;
  for (const s of shapes) {
    if (s.length !== 4)
      throw seqError(
        op,
        'UpSamplingNearest: Input data should be 4D in (batch, channel, y, x)',
        A(attrs),
        inShapes,
        'pass NCHW arrays',
      );
  }
  const oh = (d0[2] as number) * attrs.scale;
  const ow = (d0[3] as number) * attrs.scale;
  const out = [d0[0] as number, 0, oh, ow];
  for (const s of shapes) {
    const [n, c, h, w] = s as [number, number, number, number];
    if (n !== d0[0])
      throw seqError(
        op,
        `UpSamplingNearest: every input needs batch size ${d0[0]}, got ${shapeToString(s)}`,
        A(attrs),
        inShapes,
      );
    if (h === 0 || oh % h !== 0)
      throw seqError(
        op,
        `UpSamplingNearest: input height of ${h} does not divide output height of ${oh}`,
        A(attrs),
        inShapes,
      );
    if (w === 0 || ow % w !== 0)
      throw seqError(
        op,
        `UpSamplingNearest: input width of ${w} does not divide output width of ${ow}`,
        A(attrs),
        inShapes,
      );
    if (oh / h !== ow / w)
      throw seqError(
        op,
        `UpSamplingNearest: input ${shapeToString(s)} would need scale ${oh / h} in y but ${ow / w} in x to reach (${oh}, ${ow})`,
        A(attrs),
        inShapes,
        'every input must be upsampled by one integer factor in both directions',
      );
    if (attrs.multi_input_mode === 'sum') {
      if (out[1] !== 0 && out[1] !== c)
        throw seqError(
          op,
          'Number of channels must be the same when multi_input_mode==sum',
          A(attrs),
          inShapes,
          "use multi_input_mode='concat' to stack inputs with different channel counts",
        );
      out[1] = c;
    } else {
      out[1] = (out[1] as number) + c;
    }
  }
  return out;
}

/** Check bilinear data (slot `at`) and fill the weight slot (`at + 1`); returns the data shape or undefined. */
function bilinearData(op: string, attrs: UpAttrs, inShapes: ShapeSlots, at = 0): Shape | undefined {
  const d = inShapes[at];
  if (d !== undefined && d.length !== 4)
    throw seqError(
      op,
      'UpSamplingBilinear: Input data should be 4D in (batch, channel, y, x)',
      A(attrs),
      inShapes,
      'pass an NCHW array',
    );
  if (!known(d)) return undefined;
  if (attrs.num_filter !== d[1])
    throw seqError(
      op,
      `UpSamplingBilinear: num_filter (${attrs.num_filter}) must equal the number of channels (${d[1]})`,
      A(attrs),
      inShapes,
      `pass num_filter=${d[1]}`,
    );
  const { kernel } = bilinearGeometry(attrs.scale);
  assignShape(op, inShapes, at + 1, [d[1] as number, 1, kernel, kernel], A(attrs), 'input');
  return d;
}

const isNearest = (a: UpAttrs) => a.sample_type === 'nearest';
const argNames = (n: number) => Array.from({ length: n }, (_, i) => `arg${i}`);

export function registerUpSampling(registry: OpRegistry): void {
  registry.define({
    name: 'UpSampling',
    inputVarInit: { 1: '["bilinear", {}]' },
    doc: 'Upsamples the given input data (NCHW) by nearest neighbour or bilinear (deconvolution) interpolation.',
    params,
    numInputs: (a) => (isNearest(a) ? a.num_args : 2),
    keyVarNumArgs: 'num_args',
    listInputNames: (a) => (isNearest(a) ? argNames(a.num_args) : ['data', 'weight']),
    inferShape(attrs, inShapes, outShapes) {
      if (isNearest(attrs)) {
        if (!inShapes.every(known)) return false;
        assignShape(
          'UpSampling',
          outShapes,
          0,
          nearestShape('UpSampling', attrs, inShapes as Shape[], inShapes),
          A(attrs),
        );
        return true;
      }
      const d = bilinearData('UpSampling', attrs, inShapes);
      if (d === undefined) return false;
      const [n, c, h, w] = d as [number, number, number, number];
      assignShape('UpSampling', outShapes, 0, [n, c, h * attrs.scale, w * attrs.scale], A(attrs));
      return true;
    },
    gradient: {
      inputs: (a) =>
        isNearest(a) ? (a.num_args > 1 ? Array.from({ length: a.num_args }, (_, i) => i) : []) : [0, 1],
      build: (g, attrs) => {
        const ins = [g.ograd(0)];
        if (!isNearest(attrs)) ins.push(g.input(0), g.input(1));
        else if (attrs.num_args > 1) for (let i = 0; i < attrs.num_args; i++) ins.push(g.input(i));
        return g.op('_backward_UpSampling', ins, attrs);
      },
    },
  });

  registry.define({
    name: '_backward_UpSampling',
    doc: 'Gradient of UpSampling: block sums of the output gradient (nearest) or the transposed convolution gradients (bilinear).',
    params,
    numInputs: (a) => (isNearest(a) ? (a.num_args > 1 ? 1 + a.num_args : 1) : 3),
    numOutputs: (a) => (isNearest(a) ? a.num_args : 2),
    listInputNames: (a) =>
      isNearest(a)
        ? a.num_args > 1
          ? ['ograd', ...argNames(a.num_args)]
          : ['ograd']
        : ['ograd', 'data', 'weight'],
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const op = '_backward_UpSampling';
      if (isNearest(attrs) && attrs.num_args === 1) {
        const og = inShapes[0];
        if (!known(og)) return false;
        if (og.length !== 4)
          throw seqError(
            op,
            'UpSamplingNearest: Input data should be 4D in (batch, channel, y, x)',
            A(attrs),
            inShapes,
          );
        const [n, c, oh, ow] = og as [number, number, number, number];
        if (oh % attrs.scale !== 0 || ow % attrs.scale !== 0)
          throw seqError(
            op,
            `the output gradient ${shapeToString(og)} is not a multiple of scale ${attrs.scale} in y and x`,
            A(attrs),
            inShapes,
          );
        assignShape(op, outShapes, 0, [n, c, oh / attrs.scale, ow / attrs.scale], A(attrs));
        return true;
      }
      if (isNearest(attrs)) {
        const args = inShapes.slice(1);
        if (!args.every(known)) return false;
        const out = nearestShape(op, attrs, args as Shape[], inShapes);
        assignShape(op, inShapes, 0, out, A(attrs), 'input');
        args.forEach((s, i) => {
          assignShape(op, outShapes, i, s as Shape, A(attrs));
        });
        return true;
      }
      const d = bilinearData(op, attrs, inShapes, 1);
      if (d === undefined) return false;
      const [n, c, h, w] = d as [number, number, number, number];
      const { kernel } = bilinearGeometry(attrs.scale);
      assignShape(op, inShapes, 0, [n, c, h * attrs.scale, w * attrs.scale], A(attrs), 'input');
      assignShape(op, outShapes, 0, d, A(attrs));
      assignShape(op, outShapes, 1, [c, 1, kernel, kernel], A(attrs));
      return true;
    },
  });
}
