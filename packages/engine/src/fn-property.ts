/**
 * FnProperty: how an op is scheduled, with MXNet's names and numeric values (engine.h), because
 * code ported from MXNet and saved profiles refer to them by number.
 */

export const FnProperty = Object.freeze({
  /** An ordinary op. */
  normal: 0,
  /** A copy from a GPU to the host: goes to the device's copy lane, ordered by priority. */
  copyFromGPU: 1,
  /** A copy from the host to a GPU: goes to the device's copy lane, ordered by priority. */
  copyToGPU: 2,
  /** A CPU op with priority (kvstore reductions): goes to the CPU priority lane. */
  cpuPrioritized: 3,
  /** Runs inline on the pushing call when its dependencies are already met. */
  async: 4,
  /** Deletes a variable: goes to the front of its lane, runs inline when ready, runs during shutdown. */
  deleteVar: 5,
  /** A GPU op with priority: goes to the GPU priority lane. */
  gpuPrioritized: 6,
  /** Runs even when an input carries an exception (MXNet custom ops use it). */
  noSkip: 7,
} as const);

export type FnProperty = (typeof FnProperty)[keyof typeof FnProperty];

const NAMES: readonly string[] = Object.keys(FnProperty);

/** The name of an FnProperty value, e.g. `cpuPrioritized`. */
export function fnPropertyName(prop: FnProperty): string {
  return NAMES[prop] ?? `unknown(${prop})`;
}

export function isFnProperty(value: unknown): value is FnProperty {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < NAMES.length;
}
