/**
 * CTCLoss (MXNet `src/operator/nn/ctc_loss{-inl.h,.cc}`, Baidu warp-ctc's CPU algorithm): data
 * (T, N, C) holds unnormalised activations (softmax is applied inside), label (N, L) the label
 * sequences, optional data_lengths (N,) and label_lengths (N,) when `use_data_lengths` /
 * `use_label_lengths`. Without label lengths a sequence ends at the first padding value: 0 when
 * `blank_label='first'` (channel 0 is the blank, labels are 1..C-1) and -1 when `'last'` (channel
 * C-1 is the blank, labels are 0..C-2) — what MXNet's code does (its parameter doc has the two
 * paddings the other way round).
 *
 * Outputs: the loss (N,) and a hidden output `grad` (T, N, C), the gradient of each loss with
 * respect to the activations, computed in the forward pass as MXNet does (only when the grad output
 * is requested). The backward op `_backward_ctc_loss(ograd, grad)` scales it by the head gradient:
 * ograd[n] * grad[t, n, :]. Labels and lengths get no gradient. A sequence whose labels cannot fit
 * its length (L + repeats > T) gets loss 0 and gradient 0, as warp-ctc returns.
 *
 * Dtypes follow MXNet's TBlob reads: data float32 or float64 (MXNet: real_t); data_lengths in the
 * data's dtype, label_lengths in the label's dtype; the label may have any dtype.
 */
import { MXNetError } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known, requireFloat, seqError } from './common.js';

const params = {
  use_data_lengths: P.bool({
    default: false,
    doc: 'Whether the data lenghts are decided by `data_lengths`. If false, the lengths are equal to the max sequence length.',
  }),
  use_label_lengths: P.bool({
    default: false,
    doc: 'Whether the label lenghts are decided by `label_lengths`, or derived from `padding_mask`. If false, the lengths are derived from the first occurrence of the value of `padding_mask`. The value of `padding_mask` is ``0`` when first CTC label is reserved for blank, and ``-1`` when last label is reserved for blank. See `blank_label`.',
  }),
  blank_label: P.enum(['first', 'last'] as const, {
    default: 'first',
    doc: 'Set the label that is reserved for blank label.If "first", 0-th label is reserved, and label values for tokens in the vocabulary are between ``1`` and ``alphabet_size-1``, and the padding mask is ``-1``. If "last", last label value ``alphabet_size-1`` is reserved for blank label instead, and label values for tokens in the vocabulary are between ``0`` and ``alphabet_size-2``, and the padding mask is ``0``.',
  }),
};

interface CTCAttrs {
  readonly use_data_lengths: boolean;
  readonly use_label_lengths: boolean;
  readonly blank_label: 'first' | 'last';
}

const numInputs = (a: CTCAttrs) => 2 + (a.use_data_lengths ? 1 : 0) + (a.use_label_lengths ? 1 : 0);

/** Input slots of the optional lengths (-1 when absent). */
export function ctcLengthSlots(a: CTCAttrs): { data: number; label: number } {
  return {
    data: a.use_data_lengths ? 2 : -1,
    label: a.use_label_lengths ? (a.use_data_lengths ? 3 : 2) : -1,
  };
}

export function registerCTC(registry: OpRegistry): void {
  registry.define({
    name: 'CTCLoss',
    aliases: ['ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss', '_npx_ctc_loss'],
    doc: 'Connectionist Temporal Classification Loss: data (sequence_length, batch_size, alphabet_size) activations, label (batch_size, label_sequence_length); out (batch_size).',
    params,
    numInputs,
    numOutputs: 2,
    numVisibleOutputs: 1,
    listInputNames: (a) => [
      'data',
      'label',
      ...(a.use_data_lengths ? ['data_lengths'] : []),
      ...(a.use_label_lengths ? ['label_lengths'] : []),
    ],
    listOutputNames: ['out', 'grad'],
    inferShape(attrs, inShapes, outShapes) {
      const A = attrs as unknown as Record<string, unknown>;
      const d = inShapes[0];
      const l = inShapes[1];
      if (!known(d) || !known(l)) return false;
      if (d.length !== 3)
        throw seqError(
          'CTCLoss',
          'The number of dimensions of data array must be 3.',
          A,
          inShapes,
          'data is (sequence_length, batch_size, alphabet_size); swap axes 0 and 1 of NTC data',
        );
      if (l.length !== 2)
        throw seqError(
          'CTCLoss',
          'The number of dimensions of labels array must be 2.',
          A,
          inShapes,
          'label is (batch_size, label_sequence_length), padded',
        );
      if (d[1] !== l[0])
        throw seqError(
          'CTCLoss',
          'The batch size for the labels and data arrays must be the same.',
          A,
          inShapes,
        );
      const slots = ctcLengthSlots(attrs);
      if (slots.data >= 0) {
        const s = inShapes[slots.data];
        if (known(s) && s.length !== 1)
          throw seqError('CTCLoss', 'Data length array must be a vector.', A, inShapes);
        if (known(s) && s[0] !== d[1])
          throw seqError(
            'CTCLoss',
            'The batch size for the data and data lengths must be the same.',
            A,
            inShapes,
          );
        assignShape('CTCLoss', inShapes, slots.data, [d[1] as number], A, 'input');
      }
      if (slots.label >= 0) {
        const s = inShapes[slots.label];
        if (known(s) && s.length !== 1)
          throw seqError('CTCLoss', 'Label length array must be a vector.', A, inShapes);
        if (known(s) && s[0] !== l[0])
          throw seqError(
            'CTCLoss',
            'The batch size for the labels and label lengths must be the same.',
            A,
            inShapes,
          );
        assignShape('CTCLoss', inShapes, slots.label, [l[0] as number], A, 'input');
      }
      if ((d[0] as number) < (l[1] as number))
        throw seqError(
          'CTCLoss',
          'The max number of labels cannot exceed the maximum sequence length of the data.',
          A,
          inShapes,
          `label has ${l[1]} columns but data only ${d[0]} time steps`,
        );
      assignShape('CTCLoss', outShapes, 0, [d[1] as number], A);
      assignShape('CTCLoss', outShapes, 1, d, A);
      return true;
    },
    inferType(attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      requireFloat('CTCLoss', 'data', t, inTypes);
      const slots = ctcLengthSlots(attrs);
      const check = (slot: number, name: string, want: string | undefined, of: string) => {
        if (slot < 0 || want === undefined) return;
        const got = inTypes[slot];
        if (got === undefined) inTypes[slot] = want as typeof t;
        else if (got !== want)
          throw new MXNetError(`${name} must have the dtype of ${of} (${want}), got ${got}`, {
            op: 'CTCLoss',
            params: attrs,
            dtypes: inTypes.map((x) => x ?? 'unknown'),
            hint: `cast ${name} with astype('${want}') (MXNet reads it as ${of}'s type)`,
          });
      };
      check(slots.data, 'data_lengths', t, 'data');
      check(slots.label, 'label_lengths', inTypes[1], 'label');
      outTypes[0] = t;
      outTypes[1] = t;
      return inTypes.every((x) => x !== undefined);
    },
    gradient: {
      inputs: [],
      outputs: [1],
      build: (g, attrs) => {
        const dx = g.op1('_backward_ctc_loss', [g.ograd(0), g.output(1)], attrs);
        return [dx, ...new Array(numInputs(attrs) - 1).fill(null)];
      },
    },
  });

  registry.define({
    name: '_backward_ctc_loss',
    doc: "Gradient of CTCLoss: the forward pass's activation gradient scaled by each sequence's head gradient.",
    params,
    numInputs: 2,
    listInputNames: ['ograd', 'grad'],
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const A = attrs as unknown as Record<string, unknown>;
      const g = inShapes[1] ?? outShapes[0];
      if (!known(g)) return false;
      if (g.length !== 3)
        throw seqError(
          '_backward_ctc_loss',
          'The number of dimensions of data array must be 3.',
          A,
          inShapes,
        );
      assignShape('_backward_ctc_loss', inShapes, 1, g, A, 'input');
      assignShape('_backward_ctc_loss', inShapes, 0, [g[1] as number], A, 'input');
      assignShape('_backward_ctc_loss', outShapes, 0, g, A);
      return true;
    },
  });
}
