/**
 * What every np function file (`fns/*.ts`) is built from: the runtime, the flags, and the few
 * helpers all of them need — invoking an op with np outputs, turning NumPy-style operands (arrays,
 * JS numbers, nested arrays) into arrays, refusing sparse storage, and normalising `axis`. The area
 * files take an `NpContext` and return their functions, so they share no module state and each
 * runtime gets its own namespace.
 */
import { type Context, type DTypeName, MXNetError, resultType } from '@mx/base';
import type { NestedArray } from '../host.js';
import type { InvokeOptions } from '../invoke.js';
import { type ArrayClass, NDArray, type OpParams } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { ndarray } from './array.js';
import type { NpFlags } from './flags.js';

/** What np functions accept where NumPy accepts an array: arrays, JS numbers/booleans, nested arrays. */
export type ArrayLike = NDArray | NestedArray;

/** `axis` as NumPy takes it: one axis, several, or null/undefined for all. */
export type Axis = number | readonly number[] | null | undefined;

/** The shared helpers of the np function files. */
export class NpContext {
  readonly rt: Runtime;
  readonly flags: NpFlags;

  constructor(rt: Runtime, flags: NpFlags) {
    this.rt = rt;
    this.flags = flags;
  }

  /** The default float dtype (float32; float64 after `npx.setNp({ dtype: true })`). */
  defaultFloat(): 'float32' | 'float64' {
    return this.flags.defaultFloat();
  }

  /** The invoke options of calls without options of their own (one object, not one per call). */
  readonly #npOutputs: InvokeOptions = { arrayClass: ndarray as unknown as ArrayClass };

  /** Run an op whose new outputs are np arrays; returns its visible outputs. */
  invoke(op: string, inputs: readonly NDArray[], params?: OpParams, options?: InvokeOptions): ndarray[] {
    for (let i = 0; i < inputs.length; i++) {
      const x = inputs[i] as NDArray;
      if (x.stype !== 'default') this.dense(x, op);
    }
    return this.rt.invoke(
      op,
      inputs,
      params,
      options === undefined ? this.#npOutputs : { ...options, arrayClass: ndarray as unknown as ArrayClass },
    ) as ndarray[];
  }

  /** `invoke`'s first output. */
  invoke1(op: string, inputs: readonly NDArray[], params?: OpParams, options?: InvokeOptions): ndarray {
    return this.invoke(op, inputs, params, options)[0] as ndarray;
  }

  /** An np array on the same storage as `x` (no copy); `x` itself when it is one. */
  asNp(x: NDArray, fn = 'asNpArray'): ndarray {
    if (x instanceof ndarray) return x;
    this.dense(x, fn);
    return this.rt.recast(x, ndarray as unknown as ArrayClass) as ndarray;
  }

  /** Refuse csr / row_sparse arrays (MXNet 2.0's np has no sparse storage). */
  dense(x: NDArray, fn: string): void {
    if (x.stype !== 'default') {
      throw new MXNetError(`np.${fn} does not take ${x.stype} arrays (shape ${JSON.stringify(x.shape)})`, {
        op: fn,
        shapes: [x.shape],
        hint: "convert it first: x.tostype('default')",
      });
    }
  }

  /**
   * An array for an operand: arrays as they are; JS values as a new np array of `dtype` (default:
   * NumPy's for the value kinds — bool, int64 for integers, else the default float). `temps`
   * collects what was created, for the caller to dispose after the call.
   */
  operand(x: ArrayLike, temps: NDArray[], dtype?: DTypeName, ctx?: Context): NDArray {
    if (x instanceof NDArray) return x;
    const a = this.fromValues(x, dtype ?? this.valueDtype(x), ctx);
    temps.push(a);
    return a;
  }

  /** NumPy's dtype for JS values: bool for booleans, int64 for integers, else the default float. */
  valueDtype(x: NestedArray): DTypeName {
    let kind: 'bool' | 'int' | 'float' = 'bool';
    let seen = false;
    const visit = (v: NestedArray): void => {
      if (Array.isArray(v)) {
        for (const e of v as readonly NestedArray[]) visit(e);
        return;
      }
      seen = true;
      if (typeof v === 'boolean') return;
      if (typeof v === 'bigint' || Number.isInteger(v)) {
        if (kind === 'bool') kind = 'int';
      } else kind = 'float';
    };
    visit(x);
    if (!seen) return this.defaultFloat();
    return kind === 'bool' ? 'bool' : kind === 'int' ? 'int64' : this.defaultFloat();
  }

  /** A new np array holding JS values. */
  fromValues(x: NestedArray, dtype: DTypeName, ctx?: Context): ndarray {
    const make = this.rt.nd.array as (v: NestedArray, o: { dtype: DTypeName; ctx?: Context }) => NDArray;
    const a = make(x, ctx === undefined ? { dtype } : { dtype, ctx });
    return this.adopt(a);
  }

  /** `a` (a fresh NDArray nobody else holds) as an np array: recast, and the original released. */
  adopt(a: NDArray): ndarray {
    if (a instanceof ndarray) return a;
    const b = this.rt.recast(a, ndarray as unknown as ArrayClass) as ndarray;
    a.dispose();
    b.aliasOf = undefined;
    return b;
  }

  /**
   * A view of `x` with `shape` (same size) as an np array, recorded by autograd and deferred compute
   * as NDArray's `reshape` records it (a Reshape node).
   */
  view(x: NDArray, shape: readonly number[]): ndarray {
    x.checkLive('reshape');
    const { dc, autograd } = this.rt;
    if (dc.active) return this.adopt(dc.view(x, 'reshape', shape, 0));
    const v = this.rt.view(x, shape, x.byteOffset);
    if (x.agEntry !== undefined && autograd.isRecording) {
      const op = this.rt.registry.get('Reshape');
      autograd.recordIfNeeded(op, op.parseParams({ shape }), [x], [v], autograd.isTraining);
    }
    return this.adopt(v);
  }

  /** The result dtype of arrays and JS scalars (NumPy's rules, weak scalars, MXNet's default float). */
  resultType(...operands: readonly (ArrayLike | DTypeName)[]): DTypeName {
    return resultType(
      operands.map((o) =>
        typeof o === 'string'
          ? o
          : o instanceof NDArray
            ? o.dtype
            : typeof o === 'object'
              ? this.valueDtype(o)
              : o,
      ),
      { defaultFloat: this.defaultFloat() },
    );
  }

  /** `x` cast to `dtype` (a new array), or `x` itself when it has it already; `temps` gets new arrays. */
  cast(x: NDArray, dtype: DTypeName, temps: NDArray[]): NDArray {
    if (x.dtype === dtype) return x;
    const y = this.invoke1('Cast', [x], { dtype });
    temps.push(y);
    return y;
  }

  /** Axes normalised against `ndim` (NumPy's AxisError wording), sorted; undefined for all. */
  axes(axis: Axis, ndim: number, fn: string): number[] | undefined {
    if (axis === null || axis === undefined) return undefined;
    const list = typeof axis === 'number' ? [axis] : [...axis];
    const out = list.map((a) => {
      if (!Number.isInteger(a) || a < -ndim || a >= ndim) {
        throw new MXNetError(`axis ${a} is out of bounds for array of dimension ${ndim}`, {
          op: fn,
          params: { axis },
          hint: `use an axis in [${-ndim}, ${ndim})`,
        });
      }
      return a < 0 ? a + ndim : a;
    });
    if (new Set(out).size !== out.length)
      throw new MXNetError('repeated axis', { op: fn, params: { axis }, hint: 'name each axis once' });
    return out.sort((a, b) => a - b);
  }

  /** Run `body` with a list for temporaries, disposing them afterwards (also on errors). */
  withTemps<R>(body: (temps: NDArray[]) => R): R {
    const temps: NDArray[] = [];
    try {
      return body(temps);
    } finally {
      for (const t of temps) t.dispose();
    }
  }
}
