"""Golden cases of masked_log_softmax (MXNet 2.0 src/operator/nn/log_softmax.cc, alias
_npx_masked_log_softmax) and _backward_masked_log_softmax. Imported by nn_layers.py, which writes
them into packages/conformance/src/__golden__/nn_layers.json; its own random stream keeps the
other nn_layers cases unchanged.

Reference values: NumPy float64 formulas written from MXNet's CPU kernels (softmax-inl.h,
MaskedSoftmax with masked_neg_inf and MaskedSoftmaxGrad with log_softmax_bwd):
- forward: masked entries replaced by the dtype's lowest finite value, then
  (x - max)/T - log(sum(exp((x - max)/T))) along the axis, then -inf where masked (a fully
  masked row is all -inf);
- backward (ograd, mask, output): g = ograd with masked entries set to 0, s = sum of g along the
  axis, (g - exp(output) * s)/T, then 0 where masked.
The mask is bool with data's ndim, each dim equal to data's or 1.
"""
import numpy as np

rng = np.random.default_rng(20250301)


def mls_ref(x, mask, axis, temp, dt):
    m = np.broadcast_to(mask, x.shape)
    xm = np.where(m, x.astype(np.float64), float(np.finfo(dt).min))
    with np.errstate(over='ignore'):  # float64's lowest / T < 1 is -inf, as in MXNet's double math
        z = (xm - xm.max(axis=axis, keepdims=True)) / temp
    y = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    return np.where(m, y, -np.inf)


def mls_grad(og, y, mask, axis, temp):
    m = np.broadcast_to(mask, y.shape)
    g = np.where(m, og.astype(np.float64), 0.0)
    s = g.sum(axis=axis, keepdims=True)
    with np.errstate(invalid='ignore'):
        d = (g - np.exp(y.astype(np.float64)) * s) / temp
    return np.where(m, d, 0.0)


def masked_log_softmax_cases(case, arr, tol, floats):
    """The cases, built with nn_layers.py's `case`, `arr` and `tol` helpers over the `floats` dtypes."""
    cases = []
    for dt in floats:
        for tag, xs, ms, axis, temp in [('full_mask', (3, 5), (3, 5), -1, 1.0),
                                        ('bcast_rows', (2, 3, 4), (2, 1, 4), -1, 1.0),
                                        ('bcast_axis', (3, 4), (3, 1), -1, 1.0),
                                        ('axis1', (2, 4, 3), (2, 4, 1), 1, 1.0),
                                        ('axis0_temp', (5, 2, 3), (5, 1, 3), 0, 0.5),
                                        ('temp', (3, 6), (3, 6), -1, 2.0),
                                        ('vector', (7,), (7,), 0, 1.0)]:
            x = (rng.standard_normal(xs) * 2.0).astype(dt)
            mask = rng.random(ms) > 0.35
            mask.reshape(-1)[0] = True
            if tag == 'full_mask':
                mask[1, :] = False  # a fully masked row gives -inf everywhere
                mask[2, :] = True
            if tag == 'bcast_axis':
                mask[:, 0] = [True, False, True]  # whole rows on or off through a size-1 softmax axis
            y = mls_ref(x, mask, axis, temp, dt)
            params = {'axis': axis}
            if temp != 1.0:
                params['temperature'] = temp
            cases.append(case(f'masked_log_softmax_{tag}_{dt}', 'masked_log_softmax', [x, mask], [arr(y, dt)],
                              params, **tol(dt)))
            og = rng.standard_normal(xs).astype(dt)  # nonzero where masked too: MXNet drops those entries
            dx = mls_grad(og, y.astype(dt), mask, axis, temp)
            cases.append(case(f'_backward_masked_log_softmax_{tag}_{dt}', '_backward_masked_log_softmax',
                              [og, mask, y.astype(dt)], [arr(dx, dt)], params, **tol(dt)))
    # normalize=False gives the same values (MXNet's CPU kernel ignores it).
    x = (rng.standard_normal((2, 5)) * 3).astype('float32')
    mask = np.array([[True, False, True, True, False], [False, True, True, True, True]])
    cases.append(case('masked_log_softmax_normalize_false_float32', 'masked_log_softmax', [x, mask],
                      [arr(mls_ref(x, mask, -1, 1.0, 'float32'), 'float32')], {'normalize': False},
                      **tol('float32')))
    # Masked entries of huge magnitude do not leak into the row (they are replaced before the max).
    x = np.array([[3e38, 1.0, 2.0], [-3e38, 0.5, -0.5]], dtype='float32')
    mask = np.array([[False, True, True], [False, True, True]])
    cases.append(case('masked_log_softmax_huge_masked_float32', 'masked_log_softmax', [x, mask],
                      [arr(mls_ref(x, mask, -1, 1.0, 'float32'), 'float32')], **tol('float32')))
    x = (rng.standard_normal((3, 4))).astype('float32')
    y = mls_ref(x, np.ones((3, 4), dtype=bool), -1, 1.0, 'float32').astype('float32')
    cases += [
        case('masked_log_softmax_bad_mask_ndim', 'masked_log_softmax', [x, np.ones((4,), dtype=bool)],
             error='Number of dimensions in data and mask does not match'),
        case('masked_log_softmax_bad_mask_shape', 'masked_log_softmax', [x, np.ones((3, 2), dtype=bool)],
             error='Mask cannot be broadcasted from (3, 2) to (3, 4)'),
        case('masked_log_softmax_mask_not_bool', 'masked_log_softmax', [x, np.ones((3, 4), dtype='int32')],
             error='mask must be bool'),
        case('masked_log_softmax_bad_axis', 'masked_log_softmax', [x, np.ones((3, 4), dtype=bool)],
             params={'axis': 2}, error='axis 2 exceeds the input dimension of 2'),
        case('_backward_masked_log_softmax_bad_mask_shape', '_backward_masked_log_softmax',
             [x, np.ones((2, 4), dtype=bool), y], error='Mask cannot be broadcasted from (2, 4) to (3, 4)'),
        case('_backward_masked_log_softmax_output_shape', '_backward_masked_log_softmax',
             [x, np.ones((3, 4), dtype=bool), y[:2]], error='at 2-th input: expected (3, 4), got (2, 4)'),
    ]
    return cases
