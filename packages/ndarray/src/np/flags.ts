/**
 * MXNet 2.0's NumPy switches (`npx.set_np`, `reset_np`, `is_np_shape`, `is_np_array`,
 * `is_np_default_dtype`), kept per np namespace — so per runtime — instead of MXNet's thread-local
 * globals. @mx arrays always have NumPy shapes (zero-dim and zero-size arrays exist whatever the
 * flag); the shape flag is kept and reported, and MXNet's rule holds: array semantics require shape
 * semantics. The dtype flag makes float64 the default float of np creation functions.
 */
import { MXNetError } from '@mx/base';

/** `npx.setNp`'s switches (MXNet `set_np(shape=True, array=True, dtype=False)`). */
export interface NpSwitches {
  /** NumPy shape semantics (zero-dim and zero-size shapes). Default true. */
  readonly shape?: boolean;
  /** NumPy array semantics (Gluon parameters and outputs as np arrays). Default true. */
  readonly array?: boolean;
  /** float64 as the default float dtype instead of float32. Default false. */
  readonly dtype?: boolean;
}

/** The current switches of one np namespace. */
export class NpFlags {
  #shape = false;
  #array = false;
  #dtype = false;

  /** MXNet `npx.set_np`: turn NumPy semantics on (array semantics need shape semantics). */
  setNp(switches: NpSwitches = {}): void {
    const shape = switches.shape ?? true;
    const array = switches.array ?? true;
    const dtype = switches.dtype ?? false;
    if (array && !shape) {
      throw new MXNetError('NumPy Shape semantics is required in using NumPy array semantics.', {
        op: 'npx.setNp',
        params: { shape, array, dtype },
        hint: 'call npx.setNp({ shape: true, array: true }) or leave shape at its default (true)',
      });
    }
    this.#shape = shape;
    this.#array = array;
    this.#dtype = dtype;
  }

  /** MXNet `npx.reset_np`: every switch off (legacy semantics). */
  resetNp(): void {
    this.#shape = false;
    this.#array = false;
    this.#dtype = false;
  }

  /** MXNet `is_np_shape`. */
  isNpShape(): boolean {
    return this.#shape;
  }

  /** MXNet `is_np_array`. */
  isNpArray(): boolean {
    return this.#array;
  }

  /** MXNet `is_np_default_dtype`: float64 is the default float. */
  isNpDefaultDtype(): boolean {
    return this.#dtype;
  }

  /** The default float dtype of creation functions and of results NumPy would make float64. */
  defaultFloat(): 'float32' | 'float64' {
    return this.#dtype ? 'float64' : 'float32';
  }
}
