/**
 * The two GEMM element types and the wasm op names that differ between them, so every generator
 * (micro-kernel, packing, driver) is written once for float32 (f32x4, the fast path) and float64
 * (f64x2).
 */
import { F32, F64 } from '../wasm/assembler.js';

export interface GemmType {
  readonly name: 'float32' | 'float64';
  /** Bytes per element. */
  readonly es: 4 | 8;
  /** log2(es), for address shifts. */
  readonly shift: 2 | 3;
  /** Elements per v128. */
  readonly lanes: 4 | 2;
  readonly v: 'f32x4' | 'f64x2';
  readonly s: 'f32' | 'f64';
  readonly splat: 'v128.load32_splat' | 'v128.load64_splat';
  readonly valType: typeof F32 | typeof F64;
}

export const GEMM_F32: GemmType = Object.freeze({
  name: 'float32',
  es: 4,
  shift: 2,
  lanes: 4,
  v: 'f32x4',
  s: 'f32',
  splat: 'v128.load32_splat',
  valType: F32,
});

export const GEMM_F64: GemmType = Object.freeze({
  name: 'float64',
  es: 8,
  shift: 3,
  lanes: 2,
  v: 'f64x2',
  s: 'f64',
  splat: 'v128.load64_splat',
  valType: F64,
});

export function gemmType(dtype: string): GemmType | undefined {
  return dtype === 'float32' ? GEMM_F32 : dtype === 'float64' ? GEMM_F64 : undefined;
}

/** A register tile: `mr` rows × `nr` columns of C kept in v128 accumulators (nr a multiple of lanes). */
export interface Tile {
  readonly mr: number;
  readonly nr: number;
}
