/**
 * MXNet 2.0's `np.where` ops (src/operator/numpy/np_where_op-inl.h): `_npi_where(condition, x, y)`
 * with three-way NumPy broadcasting, `_npi_where_lscalar(condition, y; scalar)` (x is a scalar),
 * `_npi_where_rscalar(condition, x; scalar)` (y is a scalar) and `_npi_where_scalar2(condition;
 * x, y)`. As in MXNet, x and y share one dtype (the np layer casts to NumPy's result type first),
 * the condition may have any dtype (nonzero is true), a scalar form takes its array's dtype, and
 * scalar2 gives float32. They are SimpleOps (`select` expressions), so every backend's expression
 * compiler runs them and the gradients (ograd where the condition picks the input, summed down to
 * the input's shape) come from the expressions; MXNet spells the same gradients as the
 * `_backward_np_where*` ops.
 */
import { broadcastShapes, isShapeKnown, MXNetError } from '@mx/base';
import { E } from '../../../expr.js';
import { elemwiseType } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';

type Slots = (readonly number[] | undefined)[];
type TypeSlots = (import('@mx/base').DTypeName | undefined)[];

const numpyShape = (s: readonly number[]): string => `(${s.join(',')}${s.length === 1 ? ',' : ''})`;

/** NumPy broadcasting of all inputs, with NumPy's error text. */
function broadcastAll(op: string) {
  return (attrs: Readonly<Record<string, unknown>>, inS: Slots, outS: Slots): boolean => {
    if (inS.some((s) => s === undefined)) return false;
    const shapes = inS as readonly (readonly number[])[];
    let out: number[] = [];
    try {
      for (const s of shapes) out = broadcastShapes(out, s);
    } catch (e) {
      throw new MXNetError(
        `operands could not be broadcast together with shapes ${shapes.map(numpyShape).join(' ')} `,
        {
          op,
          params: attrs,
          shapes,
          hint: 'dimensions must be equal or 1, aligned from the right',
          cause: e,
        },
      );
    }
    outS[0] = out;
    return isShapeKnown(out);
  };
}

/** x/y (inputs `from`…) share one dtype, which the output takes; the condition's is free. */
function sharedType(op: string, from: number) {
  return (_attrs: unknown, inT: TypeSlots, outT: TypeSlots): boolean => {
    const sub = inT.slice(from);
    const ok = elemwiseType(op, sub, outT);
    sub.forEach((t, i) => {
      inT[from + i] = t;
    });
    return ok && inT[0] !== undefined;
  };
}

const { ograd: og } = E;
const cond = E.input(0);

export function registerWhere(registry: OpRegistry): void {
  registry.define({
    name: '_npi_where',
    doc: 'condition != 0 ? x : y, element-wise with NumPy broadcasting of all three inputs',
    numInputs: 3,
    listInputNames: ['condition', 'x', 'y'],
    inferShape: broadcastAll('_npi_where'),
    inferType: sharedType('_npi_where', 1),
    elementwise: {
      forward: E.select(cond, E.input(1), E.input(2)),
      gradient: [null, E.select(cond, og, 0), E.select(cond, 0, og)],
      broadcast: true,
    },
  });

  const scalarParams = { scalar: P.double({ default: 0, doc: 'The scalar value of x/y.' }) };
  const s = E.param('scalar');
  registry.define({
    name: '_npi_where_lscalar',
    doc: 'condition != 0 ? scalar : y (x given as a scalar), with broadcasting',
    params: scalarParams,
    numInputs: 2,
    listInputNames: ['condition', 'y'],
    inferShape: broadcastAll('_npi_where_lscalar'),
    inferType: sharedType('_npi_where_lscalar', 1),
    elementwise: {
      forward: E.select(cond, s, E.input(1)),
      gradient: [null, E.select(cond, 0, og)],
      broadcast: true,
    },
  });
  registry.define({
    name: '_npi_where_rscalar',
    doc: 'condition != 0 ? x : scalar (y given as a scalar), with broadcasting',
    params: scalarParams,
    numInputs: 2,
    listInputNames: ['condition', 'x'],
    inferShape: broadcastAll('_npi_where_rscalar'),
    inferType: sharedType('_npi_where_rscalar', 1),
    elementwise: {
      forward: E.select(cond, E.input(1), s),
      gradient: [null, E.select(cond, og, 0)],
      broadcast: true,
    },
  });
  registry.define({
    name: '_npi_where_scalar2',
    doc: 'condition != 0 ? x : y with both scalars; float32 as MXNet 2.0',
    params: {
      x: P.double({ default: 0, doc: 'The scalar value of x.' }),
      y: P.double({ default: 0, doc: 'The scalar value of y.' }),
    },
    listInputNames: ['condition'],
    inferShape: broadcastAll('_npi_where_scalar2'),
    inferType: (_attrs, inT, outT) => {
      outT[0] = 'float32';
      return inT[0] !== undefined;
    },
    gradient: 'zero',
    elementwise: { forward: E.select(cond, E.param('x'), E.param('y')) },
  });
}
