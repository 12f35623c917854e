/**
 * Variable-length sequence ops (MXNet `src/operator/sequence_{mask,last,reverse}-inl.h`, legacy
 * OperatorProperty ops): data is (max_sequence_length, batch, ...) for axis=0 or (batch,
 * max_sequence_length, ...) for axis=1 (SequenceReverse: axis 0 only), and with
 * `use_sequence_length` a second input `sequence_length` of shape (batch,) gives each sequence's
 * length. The lengths may have any dtype (read as truncated integers, as MXNet's IType kernels do).
 *
 * - SequenceMask: positions at or past a sequence's length become `value`.
 * - SequenceLast: the element at position length-1 of each sequence (the axis is removed).
 * - SequenceReverse: the first `length` positions of each sequence reversed, the rest unchanged.
 *
 * Lengths outside [0, max_sequence_length] (where MXNet reads or writes out of bounds) are clamped
 * into range; SequenceLast of an empty sequence takes position 0. The backward ops take the output
 * gradient and the lengths (SequenceLast also the data, for its shape: a backward op infers its
 * output from its inputs) and produce the data gradient only: lengths get no gradient.
 */

import type { ShapeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, dataTypeOthersAny, known, seqError } from './common.js';

interface SeqAttrs {
  readonly use_sequence_length: boolean;
  readonly axis: number;
}

const useSequenceLength = P.bool({
  default: false,
  doc: 'If set to true, this layer takes in an extra input parameter `sequence_length` to specify variable length sequence',
});

/** Check rank and axis; fill the lengths slot (input `lenSlot`) with (batch,). Returns the data shape or undefined. */
function checkSeq(
  op: string,
  attrs: SeqAttrs,
  inShapes: ShapeSlots,
  dataSlot: number,
  lenSlot: number,
  axes: readonly number[],
): readonly number[] | undefined {
  if (!axes.includes(attrs.axis)) {
    throw seqError(
      op,
      axes.length === 1
        ? 'Current implementation expects axis to be 0.'
        : 'Current implementation expects axis to be 0 or 1.',
      attrs as unknown as Record<string, unknown>,
      inShapes,
      `use axis=${axes.join(' or axis=')}; transpose the data otherwise`,
    );
  }
  const d = inShapes[dataSlot];
  if (!known(d)) return undefined;
  if (d.length < 2) {
    throw seqError(
      op,
      'The data array must be of rank 2 or greater.',
      attrs as unknown as Record<string, unknown>,
      inShapes,
      'data is (max_sequence_length, batch, ...) for axis=0 or (batch, max_sequence_length, ...) for axis=1',
    );
  }
  if (attrs.use_sequence_length) {
    const batch = (attrs.axis === 1 ? d[0] : d[1]) as number;
    assignShape(op, inShapes, lenSlot, [batch], attrs as unknown as Record<string, unknown>, 'input');
  }
  return d;
}

const seqInputs = (a: SeqAttrs) => (a.use_sequence_length ? ['data', 'sequence_length'] : ['data']);
const backInputs = (a: SeqAttrs) => (a.use_sequence_length ? ['ograd', 'sequence_length'] : ['ograd']);

export function registerSequence(registry: OpRegistry): void {
  const maskParams = {
    use_sequence_length: useSequenceLength,
    value: P.float({ default: 0, doc: 'The value to be used as a mask.' }),
    axis: P.int({ default: 0, doc: 'The sequence axis. Only values of 0 and 1 are currently supported.' }),
  };
  registry.define({
    name: 'SequenceMask',
    aliases: ['_npx_sequence_mask'],
    doc: 'Sets all elements outside the sequence to a constant value.',
    params: maskParams,
    numInputs: (a) => (a.use_sequence_length ? 2 : 1),
    listInputNames: seqInputs,
    inferShape(attrs, inShapes, outShapes) {
      const d = checkSeq('SequenceMask', attrs, inShapes, 0, 1, [0, 1]);
      if (d === undefined) return false;
      assignShape('SequenceMask', outShapes, 0, d, attrs);
      return true;
    },
    inferType: dataTypeOthersAny,
    // MXNet's ForwardInplaceOption: the output may overwrite the data (the kernel copies, then masks).
    inplaceOption: () => [[0, 0]],
    gradient: {
      inputs: (a) => (a.use_sequence_length ? [1] : []),
      build: (g, attrs) => {
        const ins = attrs.use_sequence_length ? [g.ograd(0), g.input(1)] : [g.ograd(0)];
        const dx = g.op1('_backward_SequenceMask', ins, attrs);
        return attrs.use_sequence_length ? [dx, null] : [dx];
      },
    },
  });
  registry.define({
    name: '_backward_SequenceMask',
    doc: 'Gradient of SequenceMask: the output gradient with masked positions set to 0.',
    params: maskParams,
    numInputs: (a) => (a.use_sequence_length ? 2 : 1),
    listInputNames: backInputs,
    isBackward: true,
    inplaceOption: () => [[0, 0]],
    inferShape(attrs, inShapes, outShapes) {
      if (known(outShapes[0]) && !known(inShapes[0])) inShapes[0] = [...outShapes[0]];
      const d = checkSeq('_backward_SequenceMask', attrs, inShapes, 0, 1, [0, 1]);
      if (d === undefined) return false;
      assignShape('_backward_SequenceMask', outShapes, 0, d, attrs);
      return true;
    },
    inferType: dataTypeOthersAny,
  });

  const lastParams = {
    use_sequence_length: useSequenceLength,
    axis: P.int({ default: 0, doc: 'The sequence axis. Only values of 0 and 1 are currently supported.' }),
  };
  registry.define({
    name: 'SequenceLast',
    aliases: ['_npx_sequence_last'],
    doc: 'Takes the last element of a sequence: (max_sequence_length, batch, ...) gives (batch, ...).',
    params: lastParams,
    numInputs: (a) => (a.use_sequence_length ? 2 : 1),
    listInputNames: seqInputs,
    inferShape(attrs, inShapes, outShapes) {
      const d = checkSeq('SequenceLast', attrs, inShapes, 0, 1, [0, 1]);
      if (d === undefined) return false;
      const out = [...d];
      out.splice(attrs.axis, 1);
      assignShape('SequenceLast', outShapes, 0, out, attrs);
      return true;
    },
    inferType: dataTypeOthersAny,
    gradient: {
      inputs: (a) => (a.use_sequence_length ? [0, 1] : [0]),
      build: (g, attrs) => {
        const ins = [g.ograd(0), g.input(0)];
        if (attrs.use_sequence_length) ins.push(g.input(1));
        const dx = g.op1('_backward_SequenceLast', ins, attrs);
        return attrs.use_sequence_length ? [dx, null] : [dx];
      },
    },
  });
  registry.define({
    name: '_backward_SequenceLast',
    doc: 'Gradient of SequenceLast: zeros shaped like the data, with the output gradient at each last position.',
    params: lastParams,
    numInputs: (a) => (a.use_sequence_length ? 3 : 2),
    listInputNames: (a) => (a.use_sequence_length ? ['ograd', 'data', 'sequence_length'] : ['ograd', 'data']),
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const d = checkSeq('_backward_SequenceLast', attrs, inShapes, 1, 2, [0, 1]);
      if (d === undefined) return false;
      const og = [...d];
      og.splice(attrs.axis, 1);
      assignShape('_backward_SequenceLast', inShapes, 0, og, attrs, 'input');
      assignShape('_backward_SequenceLast', outShapes, 0, d, attrs);
      return true;
    },
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      if (inTypes[1] === undefined) inTypes[1] = t;
      if (inTypes.length > 2 && inTypes[2] === undefined) inTypes[2] = t;
      outTypes[0] = t;
      return true;
    },
  });

  const reverseParams = {
    use_sequence_length: useSequenceLength,
    axis: P.int({ default: 0, doc: 'The sequence axis. Only 0 is currently supported.' }),
  };
  registry.define({
    name: 'SequenceReverse',
    aliases: ['_npx_sequence_reverse'],
    doc: 'Reverses the elements of each sequence (the first sequence_length positions along axis 0).',
    params: reverseParams,
    numInputs: (a) => (a.use_sequence_length ? 2 : 1),
    listInputNames: seqInputs,
    inferShape(attrs, inShapes, outShapes) {
      const d = checkSeq('SequenceReverse', attrs, inShapes, 0, 1, [0]);
      if (d === undefined) return false;
      assignShape('SequenceReverse', outShapes, 0, d, attrs);
      return true;
    },
    inferType: dataTypeOthersAny,
    gradient: {
      inputs: (a) => (a.use_sequence_length ? [1] : []),
      build: (g, attrs) => {
        const ins = attrs.use_sequence_length ? [g.ograd(0), g.input(1)] : [g.ograd(0)];
        const dx = g.op1('_backward_SequenceReverse', ins, attrs);
        return attrs.use_sequence_length ? [dx, null] : [dx];
      },
    },
  });
  registry.define({
    name: '_backward_SequenceReverse',
    doc: 'Gradient of SequenceReverse: the output gradient reversed the same way.',
    params: reverseParams,
    numInputs: (a) => (a.use_sequence_length ? 2 : 1),
    listInputNames: backInputs,
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      if (known(outShapes[0]) && !known(inShapes[0])) inShapes[0] = [...outShapes[0]];
      const d = checkSeq('_backward_SequenceReverse', attrs, inShapes, 0, 1, [0]);
      if (d === undefined) return false;
      assignShape('_backward_SequenceReverse', outShapes, 0, d, attrs);
      return true;
    },
    inferType: dataTypeOthersAny,
  });
}
