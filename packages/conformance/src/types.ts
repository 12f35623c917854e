/**
 * The conformance suite's vocabulary: a golden case as stored in JSON (`Raw*`, written by
 * tools/golden/ops/common.py), the decoded case backends receive (`ConformanceCase`, arrays as
 * typed arrays of the dtype's storage class), and the adapter a backend implements
 * (`ConformanceTarget`).
 *
 * Decoded arrays use the same storage classes as @mx/base's `DType` table (int64 → BigInt64Array,
 * bool → Uint8Array of 0/1, float16/bfloat16 → Uint16Array of raw bits), so an adapter copies
 * `data` into its device buffers without conversion.
 */
import type { DTypeName, StorageArray } from '@mx/base';

/** A JSON array value: numbers, or "nan" / "inf" / "-inf" strings. */
export type RawScalar = number | string;

export interface RawArray {
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly data: readonly RawScalar[];
}

export interface RawCase {
  readonly name: string;
  readonly op: string;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly inputs?: readonly RawArray[];
  readonly outputs?: readonly RawArray[];
  readonly error?: string;
  readonly rtol?: number;
  readonly atol?: number;
  readonly backends?: readonly string[];
  readonly skip?: string;
  readonly isTrain?: boolean;
  /** Expected values of inputs the op writes in place (optimizer states), by input index; null = unchecked. */
  readonly mutated?: readonly (RawArray | null)[];
}

/** One golden file (`src/__golden__/<family>.json`). */
export interface RawCaseFile {
  readonly family: string;
  readonly generator?: string;
  readonly numpy?: string;
  readonly cases: readonly RawCase[];
}

/** A dense array of a case: row-major values in the dtype's storage class. */
export interface CaseArray {
  readonly shape: readonly number[];
  readonly dtype: DTypeName;
  readonly data: StorageArray;
}

/** One decoded golden case. Exactly one of `outputs` and `error` is set. */
export interface ConformanceCase {
  /** Operator family (the golden file it came from): `init`, `elementwise`, ... */
  readonly family: string;
  /** Unique within the family, e.g. `_zeros/float32/2x3`. */
  readonly name: string;
  /** MXNet operator name (or alias) to invoke. */
  readonly op: string;
  /** Parameters: typed JSON values or MXNet's string form, as symbol JSON would hold them. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly inputs: readonly CaseArray[];
  /** Expected outputs (absent for error cases). */
  readonly outputs?: readonly CaseArray[];
  /** For bad-input cases: a substring of the expected MXNetError message. */
  readonly error?: string;
  /** Relative tolerance for output comparison (NumPy allclose). */
  readonly rtol: number;
  /** Absolute tolerance for output comparison. */
  readonly atol: number;
  /** When set, only these backends run the case. */
  readonly backends?: readonly string[];
  /** When set, the case is skipped everywhere, with this reason. */
  readonly skip?: string;
  /** Run the op in training mode (Dropout, BatchNorm, output layers). */
  readonly isTrain?: boolean;
  /**
   * Expected values of the inputs after the call, for ops that write inputs in place (optimizer
   * updates, BatchNorm's moving statistics), by input index; null entries are not checked.
   */
  readonly mutated?: readonly (CaseArray | null)[];
}

/** Options of one adapter call. */
export interface InvokeCaseOptions {
  /** Training mode (OpContext.isTrain). */
  readonly isTrain?: boolean;
  /** Also return every input's value after the call, appended after the outputs. */
  readonly returnInputs?: boolean;
}

/**
 * A backend adapter: runs one operator call and returns its outputs. `invoke` rejects (or throws)
 * with an MXNetError for bad input, as the op would for a user; to skip a case the backend cannot
 * run, throw {@link ConformanceSkip} (see runner.ts) or return a reason from `skip`.
 */
export interface ConformanceTarget {
  /** Backend name, matched against a case's `backends` list. */
  readonly name: string;
  invoke(
    op: string,
    inputs: readonly CaseArray[],
    params: Readonly<Record<string, unknown>>,
    options?: InvokeCaseOptions,
  ): Promise<readonly CaseArray[]>;
  /** Optional: a reason to skip this case on this backend (unsupported dtype, op not implemented...). */
  skip?(c: ConformanceCase): string | undefined;
}
