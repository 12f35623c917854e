/**
 * MXNet 2.0's joining ops: `_npi_concatenate` (Concat with `dim=None` flattening, MXNet 2.0's
 * ConcatParam), `_npi_stack` (stack), `_npi_vstack`, `_npi_hstack`, `_npi_dstack` and
 * `_npi_column_stack`. Each is Concat on its inputs seen with NumPy's promoted ranks (vstack:
 * at least 2-D, axis 0; hstack: at least 1-D, axis 0 for 1-D inputs else 1; dstack: at least 3-D,
 * axis 2; column_stack: 1-D as columns, axis 1), so one layout function drives inference and the
 * composite kernels (Concat's and `_backward_Concat`'s, on the same blobs seen with those shapes).
 * Backward ops carry MXNet 2.0's names (`_backward_np_vstack`...); their outputs take the inputs'
 * shapes, which they read from the forward inputs (shapes only, as `_backward_Concat`).
 */
import type { Shape } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { argNames, assignShape, known, outputNames, shapeError } from '../../shape/common.js';
import { concatShape } from '../../shape/concat-infer.js';
import { composite, reshaped } from './composite.js';

/** How a join lays its inputs out for Concat. */
export type JoinKind = 'concatenate' | 'vstack' | 'hstack' | 'dstack' | 'column_stack';

/** The inputs' shapes as Concat sees them, and the Concat axis (`dim` only for concatenate). */
export function joinLayout(
  kind: JoinKind,
  shapes: readonly Shape[],
  dim: number | null = 0,
): { views: Shape[]; axis: number } {
  const size = (s: Shape) => s.reduce((p, d) => p * d, 1);
  switch (kind) {
    case 'concatenate':
      if (dim === null) return { views: shapes.map((s) => [size(s)]), axis: 0 };
      return { views: shapes.map((s) => [...s]), axis: dim };
    case 'vstack':
      return {
        views: shapes.map((s) => (s.length === 0 ? [1, 1] : s.length === 1 ? [1, ...s] : [...s])),
        axis: 0,
      };
    case 'hstack': {
      const views = shapes.map((s) => (s.length === 0 ? [1] : [...s]));
      return { views, axis: (views[0] as Shape).length === 1 ? 0 : 1 };
    }
    case 'dstack':
      return {
        views: shapes.map((s) =>
          s.length === 0
            ? [1, 1, 1]
            : s.length === 1
              ? [1, s[0] as number, 1]
              : s.length === 2
                ? [...s, 1]
                : [...s],
        ),
        axis: 2,
      };
    case 'column_stack':
      return {
        views: shapes.map((s) => (s.length === 0 ? [1, 1] : s.length === 1 ? [s[0] as number, 1] : [...s])),
        axis: 1,
      };
  }
}

type JoinAttrs = { readonly num_args: number; readonly dim?: number | null };

const OPS: readonly { kind: JoinKind; name: string; backward: string; doc: string; dim: boolean }[] = [
  {
    kind: 'concatenate',
    name: '_npi_concatenate',
    backward: '_backward_np_concat',
    doc: 'Joins arrays along an existing axis (NumPy concatenate); dim=None flattens them first.',
    dim: true,
  },
  {
    kind: 'vstack',
    name: '_npi_vstack',
    backward: '_backward_np_vstack',
    doc: 'Stacks arrays vertically (row wise): 1-D inputs become rows (NumPy vstack).',
    dim: false,
  },
  {
    kind: 'hstack',
    name: '_npi_hstack',
    backward: '_backward_np_hstack',
    doc: 'Stacks arrays horizontally (column wise): along axis 1, or axis 0 for 1-D inputs (NumPy hstack).',
    dim: true,
  },
  {
    kind: 'dstack',
    name: '_npi_dstack',
    backward: '_backward_np_dstack',
    doc: 'Stacks arrays along the third axis after making them at least 3-D (NumPy dstack).',
    dim: true,
  },
  {
    kind: 'column_stack',
    name: '_npi_column_stack',
    backward: '_backward_np_column_stack',
    doc: 'Stacks 1-D arrays as columns (and 2-D arrays as they are) into a 2-D array (NumPy column_stack).',
    dim: false,
  },
];

function axisOf(
  kind: JoinKind,
  attrs: JoinAttrs,
  shapes: readonly Shape[],
): { views: Shape[]; axis: number } {
  const lay = joinLayout(kind, shapes, kind === 'concatenate' ? (attrs.dim ?? null) : 0);
  const nd = (lay.views[0] as Shape).length;
  return { views: lay.views, axis: lay.axis < 0 ? lay.axis + nd : lay.axis };
}

export function registerNpJoin(registry: OpRegistry): void {
  for (const spec of OPS) {
    const params = {
      num_args: P.int({ lowerBound: 1, doc: 'Number of inputs to be joined.' }),
      ...(spec.dim
        ? {
            dim: P.optional(P.int(), {
              default: spec.kind === 'concatenate' ? 1 : 1,
              doc: 'the dimension to be concated (None: inputs flattened, joined along axis 0).',
            }),
          }
        : {}),
    };
    registry.define({
      name: spec.name,
      doc: spec.doc,
      params,
      numInputs: (a) => a.num_args,
      keyVarNumArgs: 'num_args',
      listInputNames: (a) => argNames(a.num_args),
      gradient: {
        inputs: 'all',
        build: (g, a) =>
          g.op(spec.backward, [g.ograd(0), ...Array.from({ length: a.num_args }, (_, i) => g.input(i))], a),
      },
      inferShape(attrs, inShapes, outShapes) {
        if (!inShapes.every(known)) return false;
        const shapes = inShapes as Shape[];
        if (spec.kind === 'concatenate' && attrs.dim !== null && attrs.dim !== undefined) {
          const nd = (shapes[0] as Shape).length;
          if (nd === 0)
            throw shapeError(spec.name, 'zero-dimensional arrays cannot be concatenated', attrs, inShapes);
        }
        const { views, axis } = axisOf(spec.kind, attrs, shapes);
        const out: (Shape | undefined)[] = [undefined];
        concatShape({ num_args: attrs.num_args, dim: axis }, views, out);
        assignShape(spec.name, outShapes, 0, out[0] as Shape, attrs);
        return true;
      },
      compositeKernel: composite<JoinAttrs>(['Concat'], (attrs, inputs, req, outputs) => {
        const { views, axis } = axisOf(
          spec.kind,
          attrs,
          inputs.map((b) => b.shape),
        );
        return [
          {
            kernel: 'Concat',
            attrs: { num_args: attrs.num_args, dim: axis },
            inputs: inputs.map((b, i) => reshaped(b, views[i] as Shape)),
            req,
            outputs,
          },
        ];
      }),
    });

    registry.define({
      name: spec.backward,
      doc: `Gradient of ${spec.name}: ograd cut into pieces shaped like each input.`,
      params,
      isBackward: true,
      numInputs: (a) => a.num_args + 1,
      numOutputs: (a) => a.num_args,
      listInputNames: (a) => ['ograd', ...argNames(a.num_args)],
      listOutputNames: (a) => outputNames(a.num_args),
      ignoreInputs: (a) => Array.from({ length: a.num_args }, (_, i) => i + 1),
      inferType(_attrs, inTypes, outTypes) {
        const t = inTypes[0] ?? outTypes.find((x) => x !== undefined);
        if (t === undefined) return false;
        inTypes[0] = t;
        outTypes.fill(t);
        return inTypes.every((x) => x !== undefined);
      },
      inferShape(attrs, inShapes, outShapes) {
        const fwd = inShapes.slice(1);
        if (!fwd.every(known)) return false;
        const { views, axis } = axisOf(spec.kind, attrs, fwd as Shape[]);
        const out: (Shape | undefined)[] = [undefined];
        concatShape({ num_args: attrs.num_args, dim: axis }, views, out);
        assignShape(spec.backward, inShapes, 0, out[0] as Shape, attrs, 'input');
        fwd.forEach((s, i) => {
          assignShape(spec.backward, outShapes, i, s as Shape, attrs);
        });
        return true;
      },
      gradient: {
        inputs: 'none',
        build: (g, a) => [
          g.op1(
            spec.name,
            Array.from({ length: a.num_args }, (_, i) => g.ograd(i)),
            a,
          ),
          ...new Array<null>(a.num_args).fill(null),
        ],
      },
      compositeKernel: composite<JoinAttrs>(['_backward_Concat'], (attrs, inputs, req, outputs) => {
        const fwd = inputs.slice(1);
        const { views, axis } = axisOf(
          spec.kind,
          attrs,
          fwd.map((b) => b.shape),
        );
        return [
          {
            kernel: '_backward_Concat',
            attrs: { num_args: attrs.num_args, dim: axis },
            inputs: [inputs[0] as (typeof inputs)[0], ...fwd.map((b, i) => reshaped(b, views[i] as Shape))],
            req,
            outputs: outputs.map((b, i) => reshaped(b, views[i] as Shape)),
          },
        ];
      }),
    });
  }

  // `_npi_stack` is MXNet's alias of stack: the same definition under the np name.
  const stack = registry.get('stack');
  registry.define({
    ...stack.def,
    name: '_npi_stack',
    aliases: [],
    compositeKernel: composite<Record<string, unknown>>(['stack'], (attrs, inputs, req, outputs) => [
      { kernel: 'stack', attrs, inputs, req, outputs },
    ]),
  });
}
