/**
 * ExceptionRef: the shared box MXNet passes around as `shared_ptr<exception_ptr>`.
 *
 * A failing op stores one box on every var it writes; ops that start later copy the *same box*
 * from their inputs. Waiting on a var empties the box (`*ptr = nullptr` in MXNet), which silences
 * the error on every var and op that shares it: that is why an error surfaces exactly once, and why
 * a sibling var sharing it reads fine after the first wait threw.
 */
export class ExceptionRef {
  #error: unknown;
  #set = true;

  constructor(error: unknown) {
    this.#error = error;
  }

  /** True while the error has not been delivered. */
  get isSet(): boolean {
    return this.#set;
  }

  /** The error, or undefined once delivered. */
  get error(): unknown {
    return this.#set ? this.#error : undefined;
  }

  /** Deliver: return the error and empty the box for everyone who shares it. */
  take(): unknown {
    const e = this.#error;
    this.#set = false;
    this.#error = undefined;
    return e;
  }
}
