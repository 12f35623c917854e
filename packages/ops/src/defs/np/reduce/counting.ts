/**
 * MXNet 2.0's counting and differencing operators of the np reduce area:
 *
 * - `_npi_bincount` (minlength, has_weights): counts (int64) or summed weights (the weights' dtype)
 *   per non-negative integer value. MXNet sizes the output from the data (max + 1, at least
 *   minlength) while running; this registry has no dynamic-shape ops yet (docs/design/np.md F2), so
 *   the output length is `minlength` and the np layer passes max(data) + 1 there, read eagerly. A
 *   value ≥ minlength is an MXNetError in the kernel, never a partial write.
 * - `_histogram` (alias `_npi_histogram`; bin_cnt, range): with bin_cnt, equal bins over range; else
 *   the edges come as a second input. Outputs: counts (int64) and the edges (the data's dtype).
 * - `_npi_diff` (n, axis) and `_backward_npi_diff`: the n-th discrete difference along axis.
 */
import { MXNetError, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignSlot, known } from './common.js';

export function registerNpCounting(registry: OpRegistry): void {
  registry.define({
    name: '_npi_bincount',
    doc: 'Count occurrences of each value in a 1-D array of non-negative ints (optionally weighted).',
    params: {
      minlength: P.int({ default: 0, lowerBound: 0, doc: 'A minimum number of bins for the output.' }),
      has_weights: P.bool({ default: false, doc: 'Whether a weights input is given.' }),
    },
    numInputs: (a) => (a.has_weights ? 2 : 1),
    listInputNames: (a) => (a.has_weights ? ['data', 'weights'] : ['data']),
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      if (d.length !== 1) {
        throw new MXNetError('object too deep for desired array', {
          op: '_npi_bincount',
          shapes: [d],
          hint: 'bincount takes a 1-D array',
        });
      }
      if (attrs.has_weights) {
        const w = inShapes[1];
        if (!known(w)) return false;
        if (shapeToString(w) !== shapeToString(d)) {
          throw new MXNetError("The weights and list don't have the same length.", {
            op: '_npi_bincount',
            shapes: [d, w],
          });
        }
      }
      assignSlot('_npi_bincount', outShapes, 0, [attrs.minlength]);
      return true;
    },
    inferType(attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      if (attrs.has_weights) {
        if (inTypes[1] === undefined) return false;
        outTypes[0] = inTypes[1];
      } else outTypes[0] = 'int64';
      return true;
    },
  });

  registry.define({
    name: '_histogram',
    aliases: ['_npi_histogram'],
    doc:
      'Histogram of the input: bin_cnt equal bins over range, or the bin edges as a second input; ' +
      'outputs the counts (int64) and the edges.',
    params: {
      bin_cnt: P.optional(P.int({ lowerBound: 1 }), { doc: 'Number of equal-width bins (with range).' }),
      range: P.optional(P.tuple(P.double()), { doc: 'The (lower, upper) range of the bins.' }),
    },
    numInputs: (a) => (a.bin_cnt === null ? 2 : 1),
    listInputNames: (a) => (a.bin_cnt === null ? ['data', 'bins'] : ['data']),
    numOutputs: 2,
    inferShape(attrs, inShapes, outShapes) {
      if (attrs.bin_cnt !== null) {
        const r = attrs.range;
        if (r === null || r.length !== 2 || !((r[0] as number) <= (r[1] as number))) {
          throw new MXNetError('max must be larger than min in range parameter', {
            op: '_histogram',
            params: attrs,
            hint: 'pass range as (lower, upper) with lower <= upper',
          });
        }
        assignSlot('_histogram', outShapes, 0, [attrs.bin_cnt]);
        assignSlot('_histogram', outShapes, 1, [attrs.bin_cnt + 1]);
        return true;
      }
      const b = inShapes[1];
      if (!known(b)) return false;
      if (b.length !== 1 || (b[0] as number) < 2) {
        throw new MXNetError(`bins must be a 1-D array of at least 2 edges, got shape ${shapeToString(b)}`, {
          op: '_histogram',
          shapes: [b],
        });
      }
      assignSlot('_histogram', outShapes, 0, [(b[0] as number) - 1]);
      assignSlot('_histogram', outShapes, 1, b);
      return true;
    },
    inferType(attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      if (attrs.bin_cnt === null) inTypes[1] ??= t;
      outTypes[0] = 'int64';
      outTypes[1] = t;
      return true;
    },
  });

  const DIFF_PARAMS = {
    n: P.int({ default: 1, lowerBound: 0, doc: 'The number of times values are differenced.' }),
    axis: P.int({ default: -1, doc: 'The axis along which the difference is taken.' }),
  };
  const diffShape = (op: string, s: readonly number[], n: number, axis: number): number[] => {
    const nd = s.length;
    if (axis < -nd || axis >= nd) {
      throw new MXNetError(`axis ${axis} is out of bounds for array of dimension ${nd}`, {
        op,
        params: { axis },
        shapes: [s],
        hint:
          nd === 0
            ? 'diff requires input that is at least one dimensional'
            : `use an axis in [${-nd}, ${nd})`,
      });
    }
    const a = axis < 0 ? axis + nd : axis;
    return s.map((d, i) => (i === a ? Math.max(0, d - n) : d));
  };
  registry.define({
    name: '_npi_diff',
    doc: 'The n-th discrete difference along the given axis (out[i] = a[i+1] - a[i], applied n times).',
    params: DIFF_PARAMS,
    listInputNames: ['a'],
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[0];
      if (!known(s)) return false;
      assignSlot('_npi_diff', outShapes, 0, diffShape('_npi_diff', s, attrs.n, attrs.axis));
      return true;
    },
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      outTypes[0] = t;
      return true;
    },
    gradient: {
      inputs: [0],
      build: (g, a) => [g.op1('_backward_npi_diff', [g.ograd(0), g.input(0)], a)],
    },
  });
  registry.define({
    name: '_backward_npi_diff',
    doc: "Gradient of _npi_diff: the adjoint n-th difference of ograd, in a's shape (a gives the shape).",
    params: DIFF_PARAMS,
    numInputs: 2,
    listInputNames: ['ograd', 'a'],
    isBackward: true,
    ignoreInputs: () => [1],
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[1];
      if (!known(s)) return false;
      assignSlot('_backward_npi_diff', inShapes, 0, diffShape('_backward_npi_diff', s, attrs.n, attrs.axis));
      assignSlot('_backward_npi_diff', outShapes, 0, s);
      return true;
    },
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      outTypes[0] = t;
      return true;
    },
  });
}
