/**
 * @mx/conformance: the operator conformance suite. NumPy-generated golden cases for the registered
 * operators (generators in tools/golden/ops), a NumPy-allclose comparison, and a runner any backend
 * can point at its own adapter — ours run it on cpu-wasm, third-party backends import it the same
 * way (see README).
 */
export { type CompareOptions, type CompareResult, compareArrays, isClose, type Mismatch } from './compare.js';
export { decodeArray, decodeCase, decodeFile } from './decode.js';
export { type DescribeOptions, describeConformance, type TestApi } from './describe.js';
export {
  type GradCheckOptions,
  type GradCheckResult,
  gradCheckCase,
  gradCheckSkip,
  NOT_DERIVATIVES,
  RANDOM_SAMPLERS,
  SPARSE_INPUT_ONLY,
} from './gradcheck.js';
export { fromBFloat16Bits, fromFloat16Bits, toBFloat16Bits, toFloat16Bits } from './half.js';
export { listFamilies, loadCases } from './load.js';
export { ndarrayTarget } from './ndarray-target.js';
export {
  type CaseResult,
  type CaseStatus,
  type ConformanceReport,
  ConformanceSkip,
  formatReport,
  type RunOptions,
  runCase,
  runConformance,
  type StatusCounts,
  selectCases,
  summarize,
} from './runner.js';
export type {
  CaseArray,
  ConformanceCase,
  ConformanceTarget,
  RawArray,
  RawCase,
  RawCaseFile,
  RawScalar,
} from './types.js';
