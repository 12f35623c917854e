/**
 * The NumPy namespace of @mx/ndarray (issue 16, docs/design/np.md): `createNp(runtime)` gives
 * `{ np, npx }`; `ndarray` is the array class.
 */
export { ndarray, type ReduceOptions } from './array.js';
export type { ArrayLike, Axis } from './context.js';
export type { NpSwitches } from './flags.js';
export type { CreationOptions, ShapeLike } from './fns/creation.js';
export { createNp, type Np, type Npx } from './namespace.js';
