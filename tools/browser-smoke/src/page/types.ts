/**
 * What the smoke page reports back to the test (`window.__results`). Plain JSON only — the object
 * crosses from the browser to Node through playwright's `evaluate`, so no typed arrays or errors.
 */

export type CheckStatus = 'pass' | 'fail' | 'skip';

/** One hand-checkable smoke check (array creation, a view, one op...). */
export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  /** Why it failed or was skipped. */
  readonly detail?: string;
  readonly ms: number;
}

export interface ConformanceCounts {
  pass: number;
  fail: number;
  skip: number;
}

export interface ConformanceSummary {
  /** False when the conformance package or its NDArray adapter is not there yet (see `reason`). */
  readonly ran: boolean;
  readonly reason?: string;
  readonly target?: string;
  readonly counts?: ConformanceCounts;
  readonly byFamily?: Readonly<Record<string, ConformanceCounts>>;
  readonly failures?: readonly { readonly case: string; readonly reason: string }[];
  /** Skip reasons with how many cases each (the reasons, not every case). */
  readonly skipReasons?: Readonly<Record<string, number>>;
  readonly ms?: number;
}

export interface PageResults {
  /** True once every stage ran (a stage's own failure is recorded, not thrown). */
  readonly done: boolean;
  /** A failure outside the checks: a package that threw while loading, a crash of the runner. */
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
  readonly userAgent: string;
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  /** Whether the cpu-wasm memory came out shared (it must follow crossOriginIsolated). */
  readonly memoryShared?: boolean;
  readonly features?: { readonly simd: boolean; readonly relaxedSimd: boolean; readonly threads: boolean };
  readonly checks: readonly CheckResult[];
  readonly conformance?: ConformanceSummary;
  /** Milliseconds: loading the modules, creating the runtime, smoke checks, conformance, all. */
  readonly timings: Readonly<Record<string, number>>;
}

/** What the webgpu page (webgpu-entry.ts) reports: the adapter, a few device checks, conformance on gpu(0). */
export interface WebGpuPageResults {
  readonly done: boolean;
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
  readonly userAgent: string;
  /** `navigator.gpu` exists (the browser has WebGPU at all). */
  readonly navigatorGpu: boolean;
  /** The adapter the backend runs on; absent when none was found. */
  readonly adapter?: { readonly vendor: string; readonly architecture: string; readonly description: string };
  /** Whether the device has shader-f16 (float16 arrays). */
  readonly f16?: boolean;
  /** Ops with a webgpu kernel / ops listed in WEBGPU_LEFT_OUT, when the runtime was made. */
  readonly kernels?: { readonly webgpu: number; readonly leftOut: number };
  /** Device checks: upload and read back, copies between cpu(0) and gpu(0). */
  readonly checks: readonly CheckResult[];
  readonly conformance?: ConformanceSummary;
  readonly timings: Readonly<Record<string, number>>;
}
