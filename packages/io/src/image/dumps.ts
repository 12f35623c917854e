/**
 * `Augmenter.dumps()` text, byte for byte as MXNet's Python writes it: `json.dumps([name, kwargs])`
 * with Python's default separators (", " and ": ") and Python's float repr (`1.0`, `1e-05`,
 * `1e+16`). JS numbers do not say whether MXNet would have held an int or a float, so each keyword
 * argument carries its kind.
 */

/** What `dumps()` returns: a JSON string, or MXNet's `[name, [child dumps]]` list for composites. */
export type AugmenterDump = string | readonly [string, readonly AugmenterDump[]];

/** A keyword argument value as MXNet stores it (tuples and arrays become lists). */
export type KwargValue = number | string | boolean | null | readonly KwargValue[];
/** `[name, value, kind]`: numbers of kind 'float' print as Python floats. */
export type Kwarg = readonly [name: string, value: KwargValue | undefined, kind: 'int' | 'float' | 'str'];

/** Python's `repr(float)`: the shortest round-trip digits, in Python's layout. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    return `${sign}${int}.${frac === '' ? '0' : frac}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = Math.abs(exp).toString().padStart(2, '0');
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
}

function formatValue(v: KwargValue | undefined, kind: Kwarg[2]): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return kind === 'float' || !Number.isInteger(v) ? pyFloat(v) : String(v);
  return `[${v.map((x) => formatValue(x, kind)).join(', ')}]`;
}

/** `json.dumps([name, {k: v, ...}])` as Python prints it. */
export function dumpsAugmenter(name: string, kwargs: readonly Kwarg[]): string {
  const body = kwargs.map(([k, v, kind]) => `${JSON.stringify(k)}: ${formatValue(v, kind)}`).join(', ');
  return `[${JSON.stringify(name)}, {${body}}]`;
}
