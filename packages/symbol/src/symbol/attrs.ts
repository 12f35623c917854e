/**
 * How the Symbol API turns what a user passes into MXNet's string attributes.
 *
 * MXNet's Python front end sends every op keyword as `str(value)` (the string-kwargs path), so a
 * saved graph holds `True`, `(5, 5)`, `None` and `0.1`, and only the keys the user gave. We write
 * the same text from TypeScript values. The C API then renames MXNet's hidden keys (`lr_mult` →
 * `__lr_mult__`, kHiddenKeys in `c_api_symbolic.cc`) and rejects the deprecated `<arg>_lr_mult`
 * spelling; both rules live here, for op calls and for `setAttr`, as the C API has them.
 */
import { MXNetError } from '@mx/base';
import { HIDDEN_KEYS } from '@mx/graph';

/** MXNet's hidden attribute keys (`kHiddenKeys`): stored on nodes as `__key__`. */
export { HIDDEN_KEYS };

/** The stored forms of the hidden keys (`kReplacedHiddenKeys`). */
const REPLACED_HIDDEN_KEYS: ReadonlySet<string> = new Set(HIDDEN_KEYS.map((k) => `__${k}__`));

/** True for `__ctx_group__`, `__lr_mult__`...: listed again without underscores by `listAttr`. */
export function isReplacedHiddenKey(key: string): boolean {
  return REPLACED_HIDDEN_KEYS.has(key);
}

/**
 * Python's `str()` of a float: the shortest digits (as JavaScript's), in scientific notation when
 * the exponent is below -4 or at least 16, with a two-digit exponent (`1e-05`, `1.5e+16`).
 */
function pyFloatText(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Number.POSITIVE_INFINITY) return 'inf';
  if (v === Number.NEGATIVE_INFINITY) return '-inf';
  const [mantissa, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 16)
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

/** Python's `str()` of a number passed from Python: integral values as ints, others as floats. */
function pyNumber(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : pyFloatText(v);
}

/** Python's `str(float(v))`: integral values get `.0` (`2` → `2.0`), as MXNet writes `-1.0`. */
export function pyFloat(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e16 ? `${v}.0` : pyFloatText(v);
}

/**
 * Python's `str()` of the value a user would have passed from Python: booleans `True`/`False`,
 * null `None`, arrays as tuples `(5, 5)` / `(5,)` / `()`, integral numbers as ints and others as
 * Python floats (`0.1`, `1e-05`; a TypeScript number does not remember whether it was written `2`
 * or `2.0`, so `2.0` is written `2`), strings as they are.
 */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null) return 'None';
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    const items = value.map(pyStr);
    return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
  }
  throw new MXNetError(`cannot write ${describeValue(value)} as an attribute value`, {
    hint: 'attribute values are strings, numbers, booleans, null or arrays of those',
  });
}

/** A short description of a value for error messages (`a number`, `an NDArray`, `an object`). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
    return ctor && ctor !== 'Object' ? `a ${ctor}` : 'an object';
  }
  return `a ${typeof value}`;
}

function deprecated(key: string, hidden: string, value: string): MXNetError {
  const arg = key.slice(0, key.length - hidden.length - 1) || 'the';
  return new MXNetError(`setting variable attributes with ${key} is deprecated`, {
    hint: `set it on the variable and pass that as the ${arg} input: w = sym.var(name, { attr: { ${hidden}: '${value}' } })`,
  });
}

/**
 * The stored key of an op keyword (`MXSymbolCreateAtomicSymbol`): a key starting with a hidden key
 * becomes `__key__`; one ending with it (`weight_lr_mult`) is MXNet's deprecated form and throws.
 */
export function opAttrKey(key: string, value: string): string {
  for (const k of HIDDEN_KEYS) {
    const pos = key.lastIndexOf(k);
    if (pos === 0) return `__${key}__`;
    if (pos > 0 && pos === key.length - k.length) throw deprecated(key, k, value);
  }
  return key;
}

/**
 * The stored key of `setAttr` / `var({ attr })` (`MXSymbolSetAttr`): exactly a hidden key becomes
 * `__key__`; a key ending with one (`weight_lr_mult`) is the deprecated form and throws.
 */
export function setAttrKey(key: string, value: string): string {
  for (const k of HIDDEN_KEYS) {
    const pos = key.lastIndexOf(k);
    if (pos === 0 && key.length === k.length) return `__${key}__`;
    if (pos >= 0 && pos + k.length === key.length) throw deprecated(key, k, value);
  }
  return key;
}

/** Attribute values must be strings (MXNet: "Set Attr only accepts string values"). */
export function checkStringAttrs(attrs: Readonly<Record<string, unknown>>, what: string): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v !== 'string') {
      throw new MXNetError(`${what} only accepts string values; ${k} is ${describeValue(v)}`, {
        params: attrs,
        hint: `write the value as a string: { ${k}: '${String(v)}' }`,
      });
    }
  }
}
