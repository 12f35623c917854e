/**
 * np functions outside the main areas (docs/design/np.md): the array-API aliases MXNet 2.0's
 * `mx.np` defines (`acos = arccos`, `pow = power`, `bitwise_invert = invert`, `round_ = round`…),
 * the index helpers (misc-index.ts) and the small numerics (misc-numeric.ts). The aliases are the
 * ufunc area's functions themselves (one ufunc table, built again here from the same context).
 */
import type { NDArray } from '../../ndarray.js';
import type { NpContext } from '../context.js';
import { miscIndexFunctions } from './misc-index.js';
import { miscNumericFunctions } from './misc-numeric.js';
import { ufuncFunctions } from './ufunc.js';

/** The misc functions of the np namespace. */
export function miscFunctions(c: NpContext) {
  const u = ufuncFunctions(c);
  const index = miscIndexFunctions(c);
  return {
    /** Array-API name of `arccos`. */
    acos: u.arccos,
    /** Array-API name of `arccosh`. */
    acosh: u.arccosh,
    /** Array-API name of `arcsin`. */
    asin: u.arcsin,
    /** Array-API name of `arcsinh`. */
    asinh: u.arcsinh,
    /** Array-API name of `arctan`. */
    atan: u.arctan,
    /** Array-API name of `arctan2`. */
    atan2: u.arctan2,
    /** Array-API name of `arctanh`. */
    atanh: u.arctanh,
    /** Array-API name of `invert` (bitwise NOT; logical NOT of bools). */
    bitwiseInvert: u.invert,
    /** Array-API name of `power`. */
    pow: u.power,
    /** NumPy `round_` (= `around`). */
    round_: u.around,
    ...index,
    /** NumPy `may_share_memory(a, b)`: MXNet 2.0 answers it exactly, as `sharesMemory`. */
    mayShareMemory: (a: NDArray, b: NDArray): boolean => index.sharesMemory(a, b),
    ...miscNumericFunctions(c),
  };
}

export type MiscFunctions = ReturnType<typeof miscFunctions>;
