/**
 * `createNp(runtime)`: the np and npx namespaces of a runtime (MXNet 2.0's `mx.np` / `mx.npx`),
 * made once per runtime from the area files (`fns/*.ts`) and kept on the runtime, so arrays'
 * methods (`x.sum()`, `x.asNpArray()`) find them and two runtimes never share state. The core of
 * @mx/ndarray does not import this folder: code that never calls `createNp` does not bundle np.
 */
import type { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { type NpIndexTarget, ndarray } from './array.js';
import { NpContext } from './context.js';
import { NpFlags } from './flags.js';
import { creationFunctions } from './fns/creation.js';
import { linalgFunctions } from './fns/linalg.js';
import { miscFunctions } from './fns/misc.js';
import { npxFunctions } from './fns/npx.js';
import { productFunctions } from './fns/products.js';
import { randomFunctions } from './fns/random.js';
import { reduceFunctions } from './fns/reduce.js';
import { shapeFunctions } from './fns/shape.js';
import { sortFunctions } from './fns/sort.js';
import { ufuncFunctions } from './fns/ufunc.js';
import { getIndex, type NpIndex, setIndex } from './indexing/apply.js';
import type { NestedIndexList } from './indexing/types.js';

function build(c: NpContext) {
  const np = {
    /** The np array class (`x instanceof np.ndarray`). */
    ndarray,
    /** `x.get([np.newaxis])` (NumPy's `None`). */
    newaxis: null,
    ...creationFunctions(c),
    ...ufuncFunctions(c),
    ...reduceFunctions(c),
    ...shapeFunctions(c),
    ...productFunctions(c),
    ...sortFunctions(c),
    ...miscFunctions(c),
    /** `np.linalg`. */
    linalg: linalgFunctions(c),
    /** `np.random`, seeded by the runtime's seed. */
    random: randomFunctions(c),
  };
  return { np, npx: npxFunctions(c) };
}

/** The np namespace (`mx.np`). */
export type Np = ReturnType<typeof build>['np'];
/** The npx namespace (`mx.npx`). */
export type Npx = ReturnType<typeof build>['npx'];

/** The np and npx namespaces of `rt` (made on the first call, the same objects afterwards). */
export function createNp(rt: Runtime): { readonly np: Np; readonly npx: Npx } {
  const made = rt.extensions.get('np.namespaces') as { np: Np; npx: Npx } | undefined;
  if (made !== undefined) return made;
  const c = new NpContext(rt, new NpFlags());
  const spaces = build(c);
  rt.extensions.set('np', spaces.np);
  rt.extensions.set('np.indexing', {
    get: (x: NDArray, index: NpIndex) => getIndex(c, x, index),
    set: (x: NDArray, index: NpIndex, value: NDArray | number | boolean | NestedIndexList) =>
      setIndex(c, x, index, value),
  } satisfies NpIndexTarget);
  rt.extensions.set('np.ndarray', ndarray);
  rt.extensions.set('np.namespaces', spaces);
  return spaces;
}
