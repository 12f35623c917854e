/**
 * The code-generation context emitters share: the function being written and the module-level
 * helpers it may call (imported JS math, SIMD math functions built once per module). An interface,
 * so the op emitters (scalar-ops.ts, vector-ops.ts, vmath.ts) do not depend on the module builder.
 */
import type { FunctionBuilder } from '../wasm/assembler.js';
import type { BinaryImport, UnaryImport } from './js-math.js';

/** SIMD math functions with a vector implementation (v128 -> v128). */
export type VMathFn = 'exp' | 'log' | 'tanh' | 'erf';

export interface Gen {
  readonly f: FunctionBuilder;
  /** Function index of an imported float64 JS function. */
  importIndex(name: UnaryImport | BinaryImport): number;
  /** Function index of the SIMD `fn` for f32x4 or f64x2 (built on first use). */
  vmath(fn: VMathFn, kind: 'f32' | 'f64'): number;
  /**
   * Scalar exp/log/tanh/erf of f32/f64 run the SIMD function on a splat and take lane 0 instead of
   * calling JS Math: set where the module also has a SIMD body, so the scalar tail gives the same
   * bits as the body and the module imports nothing (the worker pool can then run it).
   */
  readonly scalarVMath?: boolean;
}
