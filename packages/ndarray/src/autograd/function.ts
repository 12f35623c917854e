/**
 * `autograd.Function` (MXNet `mx.autograd.Function`): a differentiable function whose forward and
 * backward the user writes with NDArray ops. The forward runs unrecorded; its call is put on the
 * tape as one node whose gradient is the user's `backward`, so it composes with recorded ops and
 * with `createGraph` (ops inside `backward` are recorded then).
 *
 * ```ts
 * class Sigmoid extends rt.autograd.Function {   // or CustomFunction
 *   forward(x: NDArray) { const y = nd.sigmoid(x); this.saveForBackward(y); return y; }
 *   backward(dy: NDArray) { const [y] = this.savedTensors; return dy.mul(y.mul(y.neg().add(1))); }
 * }
 * const y = new Sigmoid().apply(x);
 * ```
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '../ndarray.js';

export abstract class CustomFunction {
  #saved: NDArray[] = [];

  /** Compute the outputs from the inputs (not recorded). */
  abstract forward(...inputs: NDArray[]): NDArray | NDArray[];

  /** Gradients of the inputs from the gradients of the outputs (one per input; null for none). */
  abstract backward(...outputGrads: NDArray[]): NDArray | null | (NDArray | null)[];

  /** Keep arrays for `backward` (retained until the function object is dropped). */
  saveForBackward(...arrays: NDArray[]): void {
    for (const a of this.#saved) a.dispose();
    this.#saved = arrays.map((a) => a.runtime.retain(a));
  }

  get savedTensors(): readonly NDArray[] {
    return this.#saved;
  }

  /** Call the function (MXNet `f(*inputs)`). */
  apply(...inputs: NDArray[]): NDArray | NDArray[] {
    const first = inputs[0];
    if (first === undefined) {
      throw new MXNetError('autograd.Function needs at least one input', { op: this.constructor.name });
    }
    const rt = first.runtime;
    const ag = rt.autograd;
    const result = ag.pause(() => this.forward(...inputs), { trainMode: ag.isTraining });
    const outs = Array.isArray(result) ? result : [result];
    // An output that is an input (identity) must not steal the input's tape entry.
    const fixed = outs.map((o) => (inputs.includes(o) ? o.copy() : o));
    if (ag.isRecording && inputs.some((a) => a.agEntry !== undefined)) {
      const name = this.constructor.name || 'Function';
      ag.recordCustom(
        name,
        (ograds) => {
          const r = this.backward(...ograds);
          return Array.isArray(r) ? r : [r];
        },
        inputs,
        fixed,
      );
    }
    return Array.isArray(result) ? fixed : (fixed[0] as NDArray);
  }
}
