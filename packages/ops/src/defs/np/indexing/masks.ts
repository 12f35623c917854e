/**
 * Boolean-mask operators (MXNet 2.0 src/operator/contrib/boolean_mask.cc,
 * numpy/np_nonzero_op.cc, numpy/np_boolean_mask_assign.cc): `_contrib_boolean_mask` (alias
 * `_npi_boolean_mask`) and `_npx_nonzero` (alias `_npi_nonzero`) have data-dependent output
 * shapes (`dynamicShape`: their kernels allocate the output once they counted the mask); the
 * backward of the mask is a scatter into zeros of the data's shape; the two mask assignments
 * write where the mask is true and keep the data's shape (in place when given `out=data`).
 * MXNet declares zero gradients for the assignments; here data gets ograd with the written
 * positions zeroed and the tensor form's value gets the masked ograd summed to its broadcast shape
 * (`_backward_npi_boolean_mask_assign_tensor_value`), because np's `x.set(mask, v)` while recording
 * is copy-on-write and must send gradients to both.
 * Where MXNet's boolean_mask refuses `axis != 0` ("Not supported yet"), this one takes any axis:
 * the np layer masks `x[:, m]` without transposing.
 */
import { MXNetError } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, checkAxis, known, shapeError } from '../../shape/common.js';

const axisParam = P.int({ default: 0, doc: 'An integer that represents the axis in NDArray to mask from.' });

function maskAxisShape(
  op: string,
  attrs: { axis: number },
  inShapes: (readonly number[] | undefined)[],
): { data: readonly number[]; axis: number } | null {
  const data = inShapes[0];
  const index = inShapes[1];
  if (!known(data) || !known(index)) return null;
  if (data.length === 0)
    throw shapeError(op, 'boolean_mask needs data with at least 1 dimension', attrs, inShapes);
  const axis = checkAxis(op, attrs.axis, data.length, attrs, inShapes);
  if (index.length !== 1)
    throw shapeError(
      op,
      `the mask must be 1-D, got ${index.length} dimensions`,
      attrs,
      inShapes,
      'reshape the mask to (-1,)',
    );
  if (index[0] !== data[axis])
    throw shapeError(
      op,
      `boolean index did not match indexed array along dimension ${axis}; dimension is ${data[axis]} but corresponding boolean dimension is ${index[0]}`,
      attrs,
      inShapes,
    );
  return { data, axis };
}

export function registerMaskOps(registry: OpRegistry): void {
  registry.define({
    name: '_contrib_boolean_mask',
    aliases: ['_npi_boolean_mask'],
    doc: 'The entries of `data` along `axis` where the 1-D `index` is nonzero; the output size along `axis` is their count (a data-dependent shape).',
    params: { axis: axisParam },
    numInputs: 2,
    listInputNames: ['data', 'index'],
    dynamicShape: true,
    inferShape(attrs, inShapes, outShapes) {
      const r = maskAxisShape('_contrib_boolean_mask', attrs, inShapes);
      if (r === null) return false;
      const out = [...r.data];
      out[r.axis] = -1;
      assignShape('_contrib_boolean_mask', outShapes, 0, out, attrs);
      return false;
    },
    inferType(_attrs, inTypes, outTypes) {
      if (inTypes[0] === undefined) return false;
      outTypes[0] = inTypes[0];
      return inTypes[1] !== undefined;
    },
    gradient: {
      inputs: [0, 1],
      build: (g, a) => {
        const [dx] = g.op('_backward_contrib_boolean_mask', [g.ograd(0), g.input(0), g.input(1)], {
          axis: a.axis,
        });
        return [dx ?? null, null];
      },
    },
  });

  registry.define({
    name: '_backward_contrib_boolean_mask',
    doc: 'Backward of boolean_mask: the output gradient scattered to the masked positions, zeros elsewhere (output 1, the mask gradient, is zeros).',
    params: { axis: axisParam },
    numInputs: 3,
    numOutputs: 2,
    listInputNames: ['ograd', 'data', 'index'],
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const data = inShapes[1];
      const index = inShapes[2];
      if (!known(data) || !known(index)) return false;
      assignShape('_backward_contrib_boolean_mask', outShapes, 0, data, attrs);
      assignShape('_backward_contrib_boolean_mask', outShapes, 1, index, attrs);
      return true;
    },
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0] ?? inTypes[1];
      if (t === undefined || inTypes[2] === undefined) return false;
      outTypes[0] = t;
      outTypes[1] = inTypes[2];
      return true;
    },
  });

  registry.define({
    name: '_npx_nonzero',
    aliases: ['_npi_nonzero'],
    doc: 'The indices of the nonzero elements as an int64 (count, ndim) array, row-major order (a data-dependent shape).',
    listInputNames: ['x'],
    dynamicShape: true,
    gradient: 'zero',
    inferShape(attrs, inShapes, outShapes) {
      const x = inShapes[0];
      if (x === undefined) return false;
      assignShape('_npx_nonzero', outShapes, 0, [-1, x.length], attrs);
      return false;
    },
    inferType(_attrs, inTypes, outTypes) {
      outTypes[0] = 'int64';
      return inTypes[0] !== undefined;
    },
  });

  const assignShapeFn =
    (op: string, tensor: boolean) =>
    (
      attrs: { start_axis: number },
      inShapes: (readonly number[] | undefined)[],
      outShapes: (readonly number[] | undefined)[],
    ): boolean => {
      const d = inShapes[0] ?? outShapes[0];
      const m = inShapes[1];
      if (!known(d) || !known(m)) return false;
      const s = attrs.start_axis;
      if (s < 0 || s + m.length > d.length)
        throw shapeError(
          op,
          `start_axis ${s} with a ${m.length}-D mask does not fit data of ${d.length} dimensions`,
          attrs,
          inShapes,
        );
      m.forEach((n, i) => {
        if (d[s + i] !== n)
          throw shapeError(
            op,
            `boolean index did not match indexed array along dimension ${s + i}; dimension is ${d[s + i]} but corresponding boolean dimension is ${n}`,
            attrs,
            inShapes,
          );
      });
      if (tensor) {
        const v = inShapes[2];
        if (!known(v)) return false;
        checkMaskValueShape(op, d, m.length, s, v, attrs, inShapes);
      }
      assignShape(op, inShapes as never, 0, d, attrs, 'input');
      assignShape(op, outShapes as never, 0, d, attrs);
      return true;
    };

  registry.define({
    name: '_npi_boolean_mask_assign_scalar',
    doc: 'Writes `value` where the mask (over axes [start_axis, start_axis + mask.ndim)) is true; other elements keep data.',
    params: {
      value: P.double({ doc: 'value to be assigned to masked positions' }),
      start_axis: P.int({ default: 0, doc: 'starting axis of boolean mask' }),
    },
    numInputs: 2,
    listInputNames: ['data', 'mask'],
    inplaceOption: () => [[0, 0]],
    // MXNet: zero gradients. Here data's gradient is ograd with the written positions zeroed, so
    // np's copy-on-write set under autograd keeps the gradient of the elements it did not write.
    gradient: {
      inputs: [1],
      build: (g, a) => [
        g.op1('_npi_boolean_mask_assign_scalar', [g.ograd(0), g.input(1)], {
          value: 0,
          start_axis: a.start_axis,
        }),
        null,
      ],
    },
    inferShape: assignShapeFn('_npi_boolean_mask_assign_scalar', false),
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0] ?? outTypes[0];
      if (t === undefined) return false;
      inTypes[0] = t;
      outTypes[0] = t;
      return inTypes[1] !== undefined;
    },
  });

  registry.define({
    name: '_npi_boolean_mask_assign_tensor',
    doc: 'Writes `value` (broadcast to (lead, count, trail)) where the mask is true; other elements keep data. The count is checked against value before anything is written.',
    params: { start_axis: P.int({ default: 0, doc: 'starting axis of boolean mask' }) },
    numInputs: 3,
    listInputNames: ['data', 'mask', 'value'],
    inplaceOption: () => [[0, 0]],
    // As the scalar form for data; the value gets the ograd of the written positions, summed over
    // the axes it was broadcast along (the value input is read for its shape only).
    gradient: {
      inputs: [1, 2],
      build: (g, a) => [
        g.op1('_npi_boolean_mask_assign_scalar', [g.ograd(0), g.input(1)], {
          value: 0,
          start_axis: a.start_axis,
        }),
        null,
        g.op1('_backward_npi_boolean_mask_assign_tensor_value', [g.ograd(0), g.input(1), g.input(2)], {
          start_axis: a.start_axis,
        }),
      ],
    },
    inferShape: assignShapeFn('_npi_boolean_mask_assign_tensor', true),
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0] ?? outTypes[0] ?? inTypes[2];
      if (t === undefined) return false;
      if (inTypes[2] !== undefined && inTypes[2] !== t)
        throw new MXNetError(`value has dtype ${inTypes[2]}, data ${t}`, {
          op: '_npi_boolean_mask_assign_tensor',
          dtypes: inTypes.map((x) => x ?? 'unknown'),
          hint: 'cast the value to the data dtype first',
        });
      inTypes[0] = t;
      inTypes[2] = t;
      outTypes[0] = t;
      return inTypes[1] !== undefined;
    },
  });

  const valueGrad = '_backward_npi_boolean_mask_assign_tensor_value';
  const checkGradShapes = assignShapeFn(valueGrad, true);
  registry.define({
    name: valueGrad,
    doc: "Backward of the tensor mask assignment for its value: the output gradient at the positions the mask selects, as the (lead, count, trail) region, summed to the value's broadcast shape (the value input gives only the shape).",
    params: { start_axis: P.int({ default: 0, doc: 'starting axis of boolean mask' }) },
    numInputs: 3,
    listInputNames: ['ograd', 'mask', 'value'],
    isBackward: true,
    // Linear in ograd: its adjoint writes the head gradient (value-shaped) into zeros of ograd's
    // shape at the masked positions, which is the forward assignment itself.
    gradient: {
      inputs: [0, 1],
      build: (g, a) => [
        g.op1(
          '_npi_boolean_mask_assign_tensor',
          [g.op1('zeros_like', [g.input(0)]), g.input(1), g.ograd(0)],
          {
            start_axis: a.start_axis,
          },
        ),
        null,
        null,
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const v = inShapes[2];
      if (!known(v)) return false;
      // The ograd/mask/value checks of the forward (ograd has the data's shape).
      if (!checkGradShapes(attrs, [inShapes[0], inShapes[1], v], [undefined])) return false;
      assignShape(valueGrad, outShapes, 0, v, attrs);
      return true;
    },
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0] ?? inTypes[2];
      if (t === undefined) return false;
      outTypes[0] = inTypes[2] ?? t;
      return inTypes[1] !== undefined;
    },
  });
}

/**
 * The value of a tensor mask assignment: one element, or (after left-padding with 1s) the shape
 * (lead..., k, trail...) with each dim 1 or equal, k being 1 or the (kernel-checked) count.
 */
function checkMaskValueShape(
  op: string,
  d: readonly number[],
  mdim: number,
  s: number,
  v: readonly number[],
  attrs: Readonly<Record<string, unknown>>,
  inShapes: (readonly number[] | undefined)[],
): void {
  if (v.reduce((a, b) => a * b, 1) === 1) return;
  const region = [...d.slice(0, s), -1, ...d.slice(s + mdim)];
  // One mask over every axis: NumPy's 1-D boolean assignment, which takes 0-d or 1-D values only.
  if (region.length === 1 && v.length > 1)
    throw shapeError(
      op,
      `NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has ${v.length} dimensions`,
      attrs,
      inShapes,
      'give the values as a 1-D array (reshape(-1))',
    );
  if (v.length > region.length)
    throw shapeError(
      op,
      `value has ${v.length} dimensions, more than the ${region.length} of the masked region`,
      attrs,
      inShapes,
    );
  const pad = region.length - v.length;
  v.forEach((n, i) => {
    const r = region[pad + i] as number;
    if (n !== 1 && r !== -1 && n !== r)
      throw shapeError(
        op,
        `shape mismatch of value with input at dimension ${pad + i}; dimension is ${r} but corresponding value dimension is ${n}`,
        attrs,
        inShapes,
      );
  });
}
