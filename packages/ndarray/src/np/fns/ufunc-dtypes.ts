/**
 * Dtype decisions of np's ufuncs, kept apart from the op calls: the result dtype of a rule, the
 * dtype a backend computes it in (cpu-wasm computes in float32/float64/int32/int64/int8/uint8/bool;
 * float16 results compute in float32 and round once, as NumPy's half loops do), and NumPy's
 * `same_kind` casting check for `out=`.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';

/** How a ufunc's result dtype follows from the promoted operand dtype. */
export type ResultRule = 'same' | 'float' | 'bool' | 'int';

export const isFloat = (d: DTypeName): boolean => DType[d].kind === 'f';

const COMPUTE: ReadonlySet<DTypeName> = new Set([
  'float32',
  'float64',
  'int32',
  'int64',
  'int8',
  'uint8',
  'bool',
]);

/** The dtype an op computes `d` in (itself when the backends compute in it). */
export function computeDtype(d: DTypeName): DTypeName {
  if (COMPUTE.has(d)) return d;
  if (isFloat(d)) return 'float32';
  return d === 'int16' || d === 'uint16' ? 'int32' : 'int64';
}

/** The result dtype of `rule` for promoted dtype `r`. */
export function resultOf(rule: ResultRule, r: DTypeName, defaultFloat: DTypeName): DTypeName {
  if (rule === 'bool') return 'bool';
  if (rule === 'float' && !isFloat(r)) return defaultFloat;
  return r;
}

const KIND_ORDER: Readonly<Record<string, number>> = { b: 0, u: 1, i: 2, f: 3 };

/** NumPy's `same_kind` rule: a cast within a kind or to a higher kind (uint → int allowed, int → uint not). */
export function canCastSameKind(from: DTypeName, to: DTypeName): boolean {
  const a = DType[from].kind;
  const b = DType[to].kind;
  if (a === b) return true;
  if (a === 'i' && b === 'u') return false;
  return (KIND_ORDER[a] ?? 9) < (KIND_ORDER[b] ?? 9);
}

/** NumPy's `out=` casting error. */
export function castError(fn: string, from: DTypeName, to: DTypeName): MXNetError {
  return new MXNetError(
    `Cannot cast ufunc '${fn}' output from dtype('${from}') to dtype('${to}') with casting rule 'same_kind'`,
    {
      op: fn,
      dtypes: [from, to],
      hint: `give out= a dtype the result can be cast to (${from}), or cast the inputs`,
    },
  );
}
