/**
 * Option and argument checks shared by the optimizers, the updater and the registry. MXNet's Python
 * optimizers check little (a bad value shows up as NaNs several steps later); here every option is
 * checked where it is given, and every error is an MXNetError naming the optimizer, the option or
 * the parameter (index and name) and what to change.
 */
import { MXNetError } from '@mx/base';

/** A parameter's key: MXNet uses int indices, or strings (kvstore keys). */
export type ParamIndex = number | string;

/** Plain-object keys that are canonical non-negative integers are parameter indices (numbers). */
export function keyToIndex(key: string): ParamIndex {
  return /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
}

/** A Map from a Map or a plain object (integer-looking object keys become numbers). */
export function toIndexMap<V>(
  value: ReadonlyMap<ParamIndex, V> | Readonly<Record<string, V>> | undefined,
): Map<ParamIndex, V> {
  if (value === undefined || value === null) return new Map();
  if (value instanceof Map) return new Map(value);
  return new Map(Object.entries(value).map(([k, v]) => [keyToIndex(k), v as V]));
}

export interface NumberRule {
  readonly min?: number;
  /** `min` is excluded. */
  readonly minExclusive?: boolean;
  readonly max?: number;
  readonly maxExclusive?: boolean;
  readonly integer?: boolean;
}

/** A finite number within the rule's bounds, or an MXNetError naming the option. */
export function checkNumber(op: string, name: string, value: unknown, rule: NumberRule = {}): number {
  const bad = (why: string, hint?: string): never => {
    throw new MXNetError(`option ${name} ${why}, got ${String(value)}`, {
      op,
      params: { [name]: value },
      hint,
    });
  };
  if (typeof value !== 'number' || !Number.isFinite(value)) bad('must be a finite number');
  const v = value as number;
  if (rule.integer && !Number.isInteger(v)) bad('must be an integer');
  if (rule.min !== undefined && (rule.minExclusive ? v <= rule.min : v < rule.min)) {
    bad(`must be ${rule.minExclusive ? '>' : '>='} ${rule.min}`);
  }
  if (rule.max !== undefined && (rule.maxExclusive ? v >= rule.max : v > rule.max)) {
    bad(`must be ${rule.maxExclusive ? '<' : '<='} ${rule.max}`);
  }
  return v;
}

/** An optional number: `undefined`/`null` stay undefined. */
export function optionalNumber(
  op: string,
  name: string,
  value: unknown,
  rule: NumberRule = {},
): number | undefined {
  return value === undefined || value === null ? undefined : checkNumber(op, name, value, rule);
}

export function checkBool(op: string, name: string, value: unknown, dflt: boolean): boolean {
  if (value === undefined) return dflt;
  if (typeof value !== 'boolean') {
    throw new MXNetError(`option ${name} must be a boolean, got ${String(value)}`, {
      op,
      params: { [name]: value },
    });
  }
  return value;
}

/**
 * Refuse option keys the optimizer does not know (MXNet: "unexpected keyword argument"). A key whose
 * value is `undefined` counts as absent.
 */
export function checkKnownOptions(op: string, options: object, known: readonly string[]): void {
  const given = Object.entries(options).filter(([, v]) => v !== undefined);
  const unknown = given.map(([k]) => k).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw new MXNetError(`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, {
      op,
      params: Object.fromEntries(unknown.map((k) => [k, (options as Record<string, unknown>)[k]])),
      hint: `${op} accepts: ${[...known].sort().join(', ')}`,
    });
  }
}

/** `3 ('fc1_weight')` or `3`: how errors name a parameter. */
export function describeParam(index: ParamIndex, name: string | undefined): string {
  const idx = typeof index === 'string' ? `'${index}'` : String(index);
  return name === undefined ? `parameter ${idx}` : `parameter ${idx} (${name})`;
}
