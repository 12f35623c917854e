/**
 * The table of np's elementwise functions (NumPy ufuncs): for each NumPy name the MXNet 2.0 op it
 * runs on two arrays, on an array and a JS scalar, and on a scalar and an array (the reversed op;
 * comparisons mirror: `2 < x` is `x > 2`), and the rule giving the result dtype from the promoted
 * operand dtype (`same`, `float`: integers give the default float, `bool`, `int`: integers/bool
 * only). ufunc.ts turns each row into a function, so a new ufunc is one line here.
 */
import type { ResultRule } from './ufunc-dtypes.js';

export interface BinaryRow {
  readonly op: string;
  readonly scalar: string;
  readonly rscalar: string;
  readonly rule: ResultRule;
}

export interface UnaryRow {
  readonly op: string;
  readonly rule: ResultRule;
}

const row = (stem: string, rule: ResultRule, rstem?: string): BinaryRow => ({
  op: `_npi_${stem}`,
  scalar: `_npi_${stem}_scalar`,
  rscalar: rstem === undefined ? `_npi_${stem}_scalar` : `_npi_${rstem}_scalar`,
  rule,
});

/** NumPy binary ufuncs (camelCase names) and their ops. */
export const BINARY_UFUNCS = {
  add: row('add', 'same'),
  subtract: row('subtract', 'same', 'rsubtract'),
  multiply: row('multiply', 'same'),
  trueDivide: row('true_divide', 'float', 'rtrue_divide'),
  floorDivide: row('floor_divide', 'same', 'rfloor_divide'),
  remainder: row('mod', 'same', 'rmod'),
  power: row('power', 'same', 'rpower'),
  maximum: row('maximum', 'same'),
  minimum: row('minimum', 'same'),
  fmax: row('fmax', 'same'),
  fmin: row('fmin', 'same'),
  fmod: row('fmod', 'same', 'rfmod'),
  copysign: row('copysign', 'float', 'rcopysign'),
  arctan2: row('arctan2', 'float', 'rarctan2'),
  hypot: row('hypot', 'float'),
  ldexp: row('ldexp', 'float', 'rldexp'),
  logaddexp: row('logaddexp', 'float'),
  equal: row('equal', 'bool'),
  notEqual: row('not_equal', 'bool'),
  greater: row('greater', 'bool', 'less'),
  greaterEqual: row('greater_equal', 'bool', 'less_equal'),
  less: row('less', 'bool', 'greater'),
  lessEqual: row('less_equal', 'bool', 'greater_equal'),
  logicalAnd: row('logical_and', 'bool'),
  logicalOr: row('logical_or', 'bool'),
  logicalXor: row('logical_xor', 'bool'),
  bitwiseAnd: row('bitwise_and', 'int'),
  bitwiseOr: row('bitwise_or', 'int'),
  bitwiseXor: row('bitwise_xor', 'int'),
  leftShift: row('bitwise_left_shift', 'int', 'rbitwise_left_shift'),
  rightShift: row('bitwise_right_shift', 'int', 'rbitwise_right_shift'),
  gcd: row('gcd', 'int'),
  lcm: row('lcm', 'int'),
} as const satisfies Record<string, BinaryRow>;

const un = (stem: string, rule: ResultRule): UnaryRow => ({ op: `_npi_${stem}`, rule });

/** NumPy unary ufuncs and their ops. */
export const UNARY_UFUNCS = {
  negative: un('negative', 'same'),
  positive: un('copy', 'same'),
  absolute: un('absolute', 'same'),
  fabs: un('absolute', 'float'),
  sign: un('sign', 'same'),
  square: un('square', 'same'),
  reciprocal: un('reciprocal', 'same'),
  rint: un('rint', 'float'),
  fix: un('fix', 'float'),
  floor: un('floor', 'float'),
  ceil: un('ceil', 'float'),
  trunc: un('trunc', 'float'),
  exp: un('exp', 'float'),
  expm1: un('expm1', 'float'),
  log: un('log', 'float'),
  log2: un('log2', 'float'),
  log10: un('log10', 'float'),
  log1p: un('log1p', 'float'),
  sqrt: un('sqrt', 'float'),
  cbrt: un('cbrt', 'float'),
  sin: un('sin', 'float'),
  cos: un('cos', 'float'),
  tan: un('tan', 'float'),
  arcsin: un('arcsin', 'float'),
  arccos: un('arccos', 'float'),
  arctan: un('arctan', 'float'),
  sinh: un('sinh', 'float'),
  cosh: un('cosh', 'float'),
  tanh: un('tanh', 'float'),
  arcsinh: un('arcsinh', 'float'),
  arccosh: un('arccosh', 'float'),
  arctanh: un('arctanh', 'float'),
  degrees: un('degrees', 'float'),
  radians: un('radians', 'float'),
  rad2deg: un('rad2deg', 'float'),
  deg2rad: un('deg2rad', 'float'),
  logicalNot: un('logical_not', 'bool'),
  isnan: un('isnan', 'bool'),
  isinf: un('isinf', 'bool'),
  isposinf: un('isposinf', 'bool'),
  isneginf: un('isneginf', 'bool'),
  isfinite: un('isfinite', 'bool'),
  invert: un('bitwise_not', 'int'),
} as const satisfies Record<string, UnaryRow>;
