/**
 * Parameter schemas (MXNet's `dmlc::Parameter` structs, in TypeScript).
 *
 * An op declares its parameters once, as a schema object of field specs; from it we get the parsed
 * TypeScript type (`ParamsOf<S>`), parsing from typed values (`{ axis: 1 }`) and from MXNet's
 * string form (`{ axis: '1', shape: '(2, 3)', keepdims: 'True', dtype: 'None' }` — what symbol JSON
 * attrs hold), formatting back to strings, and docs in MXNet's `ParamFieldInfo` style. Error texts
 * are MXNet's (`Cannot find argument 'k', Possible Arguments: ...`, `Invalid Parameter format for k
 * expect int but value='x'`, `value 5 for Parameter k exceed bound [0,3]`, `Invalid Input: 'v',
 * valid values are: {...}`), because users search for them; each carries the op and its params.
 *
 * Keys are MXNet's (snake_case: `transpose_a`, `num_hidden`) since symbol JSON depends on them.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';

/** One field of a parameter struct. `T` is the parsed value type. */
export interface ParamSpec<T> {
  /** MXNet's type text in docs and messages: `int`, `float`, `boolean`, `Shape(tuple)`, `int or None`... */
  readonly typeName: string;
  /** True when the field has no default (MXNet: `Required parameter k of <type> is not presented`). */
  readonly required: boolean;
  /** Value when absent (undefined for required fields). */
  readonly default: T | undefined;
  readonly doc: string;
  /**
   * Parse a typed value or MXNet's string form; throws a plain message (the caller adds the op
   * context) for bad input.
   */
  parse(value: unknown, key: string): T;
  /** MXNet's string form (what symbol JSON stores). */
  format(value: T): string;
  /** Docs line, e.g. `float, optional, default=0.01` (MXNet `ParamFieldInfo.type_info_str`). */
  info(): string;
  /**
   * TypeScript type text of the typed values `parse` accepts (`number`, `'relu' | 'tanh'`,
   * `number | readonly number[]`, `DTypeName | null`...): what the declaration generator of
   * `@mx/ndarray` writes for the field.
   */
  readonly tsType: string;
  /** Every accepted typed value when they form a small set (booleans, enums, dtypes; null for None). */
  readonly choices: readonly (string | boolean | null)[] | undefined;
}

export type ParamSchema = Readonly<Record<string, ParamSpec<unknown>>>;
export type ParamsOf<S extends ParamSchema> = {
  readonly [K in keyof S]: S[K] extends ParamSpec<infer T> ? T : never;
};

interface CommonOptions<T> {
  readonly default?: T;
  readonly doc?: string;
}

/** The TypeScript description of a field's typed values (see ParamSpec.tsType / choices). */
interface TsShape {
  readonly tsType: string;
  readonly choices?: readonly (string | boolean | null)[];
}

/** A parse failure inside one field; `parseParams` turns it into an MXNetError with op context. */
class FieldError extends Error {}

function bad(key: string, typeName: string, value: unknown): FieldError {
  return new FieldError(
    `Invalid Parameter format for ${key} expect ${typeName} but value='${displayValue(value)}'`,
  );
}

function displayValue(v: unknown): string {
  if (Array.isArray(v)) return `(${v.map(displayValue).join(', ')}${v.length === 1 ? ',' : ''})`;
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}

function formatNumber(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Number.POSITIVE_INFINITY) return 'inf';
  if (v === Number.NEGATIVE_INFINITY) return '-inf';
  return String(v);
}

function makeSpec<T>(
  typeName: string,
  opts: CommonOptions<T>,
  parse: (value: unknown, key: string) => T,
  format: (value: T) => string,
  check: ((value: T, key: string) => void) | undefined,
  ts: TsShape,
): ParamSpec<T> {
  const required = !('default' in opts) || opts.default === undefined;
  return {
    typeName,
    tsType: ts.tsType,
    choices: ts.choices,
    required,
    default: opts.default,
    doc: opts.doc ?? '',
    parse: check
      ? (value, key) => {
          const v = parse(value, key);
          check(v, key);
          return v;
        }
      : parse,
    format,
    info: () =>
      required ? `${typeName}, required` : `${typeName}, optional, default=${format(opts.default as T)}`,
  };
}

const INT_RE = /^\s*[+-]?\d+\s*$/;
const FLOAT_RE = /^\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)\s*$/i;

function parseIntValue(value: unknown, key: string, typeName: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (
    typeof value === 'bigint' &&
    value >= BigInt(Number.MIN_SAFE_INTEGER) &&
    value <= BigInt(Number.MAX_SAFE_INTEGER)
  )
    return Number(value);
  if (typeof value === 'string' && INT_RE.test(value)) {
    const n = Number(value.trim());
    if (Number.isSafeInteger(n)) return n;
  }
  throw bad(key, typeName, value);
}

function parseFloatValue(value: unknown, key: string, typeName: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && FLOAT_RE.test(value)) {
    const t = value.trim().toLowerCase();
    if (t.endsWith('nan')) return Number.NaN;
    if (t.includes('inf')) return t.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    return Number(t);
  }
  throw bad(key, typeName, value);
}

interface NumberOptions extends CommonOptions<number> {
  /** Inclusive bounds (MXNet `set_range`). */
  readonly range?: readonly [number, number];
  /** Inclusive lower bound (MXNet `set_lower_bound`). */
  readonly lowerBound?: number;
}

function rangeCheck(opts: NumberOptions): ((v: number, key: string) => void) | undefined {
  const { range, lowerBound } = opts;
  if (range) {
    return (v, key) => {
      if (!(v >= range[0] && v <= range[1]))
        throw new FieldError(
          `value ${formatNumber(v)} for Parameter ${key} exceed bound [${range[0]},${range[1]}]`,
        );
    };
  }
  if (lowerBound !== undefined) {
    return (v, key) => {
      if (!(v >= lowerBound))
        throw new FieldError(
          `value ${formatNumber(v)} for Parameter ${key} should be greater equal to ${lowerBound}`,
        );
    };
  }
  return undefined;
}

const NUMBER: TsShape = { tsType: 'number' };

/** `'a' | 'b'` for a set of names. */
const unionOf = (values: readonly string[]) => values.map((v) => `'${v}'`).join(' | ');

function int(opts: NumberOptions = {}): ParamSpec<number> {
  return makeSpec('int', opts, (v, k) => parseIntValue(v, k, 'int'), formatNumber, rangeCheck(opts), NUMBER);
}

function float(opts: NumberOptions = {}): ParamSpec<number> {
  return makeSpec(
    'float',
    opts,
    (v, k) => parseFloatValue(v, k, 'float'),
    formatNumber,
    rangeCheck(opts),
    NUMBER,
  );
}

function double(opts: NumberOptions = {}): ParamSpec<number> {
  return makeSpec(
    'double',
    opts,
    (v, k) => parseFloatValue(v, k, 'double'),
    formatNumber,
    rangeCheck(opts),
    NUMBER,
  );
}

function bool(opts: CommonOptions<boolean> = {}): ParamSpec<boolean> {
  return makeSpec(
    'boolean',
    opts,
    (v, k) => {
      if (typeof v === 'boolean') return v;
      if (v === 0 || v === 1) return v === 1;
      if (typeof v === 'string') {
        const t = v.trim().toLowerCase();
        if (t === 'true' || t === '1') return true;
        if (t === 'false' || t === '0') return false;
      }
      throw bad(k, 'boolean', v);
    },
    (v) => (v ? '1' : '0'),
    undefined,
    { tsType: 'boolean', choices: [false, true] },
  );
}

function string(opts: CommonOptions<string> = {}): ParamSpec<string> {
  return makeSpec(
    'string',
    opts,
    (v, k) => {
      if (typeof v === 'string') return v;
      throw bad(k, 'string', v);
    },
    (v) => v,
    undefined,
    { tsType: 'string' },
  );
}

/** One of a fixed set of names (MXNet `add_enum`). */
function enumOf<const E extends string>(values: readonly E[], opts: CommonOptions<E> = {}): ParamSpec<E> {
  const typeName = `{${values.map((v) => `'${v}'`).join(', ')}}`;
  const set = new Set<string>(values);
  const spec = makeSpec<E>(
    typeName,
    opts,
    (v) => {
      const t = typeof v === 'string' ? v.trim().replace(/^'(.*)'$/, '$1') : v;
      if (typeof t === 'string' && set.has(t)) return t as E;
      throw new FieldError(`Invalid Input: '${displayValue(v)}', valid values are: ${typeName}`);
    },
    (v) => v,
    undefined,
    { tsType: unionOf(values), choices: values },
  );
  return {
    ...spec,
    info: () => (spec.required ? `${typeName}, required` : `${typeName},optional, default='${opts.default}'`),
  };
}

/** Split MXNet's tuple text `(2, 3)`, `[2,3]`, `()`, `(2,)`, or a bare `2`; null when malformed. */
function splitTuple(text: string): string[] | null {
  const t = text.trim();
  let body: string;
  if ((t.startsWith('(') && t.endsWith(')')) || (t.startsWith('[') && t.endsWith(']'))) body = t.slice(1, -1);
  else if (t.length > 0 && !/[()[\]]/.test(t)) body = t;
  else return null;
  const parts = body.split(',').map((s) => s.trim());
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.some((p) => p === '')) return null;
  return parts;
}

/** A tuple of values (MXNet `Tuple<T>`), e.g. `tuple(P.int())` for `axes=(0, 2)`. */
function tuple<T>(
  item: ParamSpec<T>,
  opts: CommonOptions<readonly T[]> = {},
  typeName = `tuple of <${item.typeName}>`,
) {
  return makeSpec<readonly T[]>(
    typeName,
    opts,
    (v, k) => {
      let parts: unknown[] | null = null;
      if (Array.isArray(v)) parts = v;
      else if (typeof v === 'number' || typeof v === 'bigint') parts = [v];
      else if (typeof v === 'string') parts = splitTuple(v);
      if (parts === null) throw bad(k, typeName, v);
      try {
        return Object.freeze(parts.map((p) => item.parse(p, k)));
      } catch (e) {
        if (e instanceof FieldError) throw bad(k, typeName, v);
        throw e;
      }
    },
    (v) => `(${v.map((x) => item.format(x)).join(', ')}${v.length === 1 ? ',' : ''})`,
    undefined,
    // A bare value is taken as a 1-tuple (MXNet's `axis=1` for a tuple field).
    { tsType: `${item.tsType} | readonly ${item.tsType.includes(' ') ? `(${item.tsType})` : item.tsType}[]` },
  );
}

/** A shape (MXNet `TShape`): a tuple of ints, text `(2, 3)`. Negative codes are left to the op. */
function shape(opts: CommonOptions<readonly number[]> = {}): ParamSpec<readonly number[]> {
  return tuple(int(), opts, 'Shape(tuple)');
}

/** `dmlc::optional<T>`: the value or null, text `None`. */
function optional<T>(item: ParamSpec<T>, opts: CommonOptions<T | null> = {}): ParamSpec<T | null> {
  const typeName = `${item.typeName} or None`;
  const withDefault: CommonOptions<T | null> = 'default' in opts ? opts : { ...opts, default: null };
  return makeSpec<T | null>(
    typeName,
    withDefault,
    (v, k) => {
      if (v === null || (typeof v === 'string' && v.trim() === 'None')) return null;
      try {
        return item.parse(v, k);
      } catch (e) {
        if (e instanceof FieldError && !e.message.startsWith('Invalid Parameter format')) throw e;
        if (e instanceof FieldError) throw bad(k, typeName, v);
        throw e;
      }
    },
    (v) => (v === null ? 'None' : item.format(v)),
    undefined,
    { tsType: `${item.tsType} | null`, ...(item.choices ? { choices: [...item.choices, null] } : {}) },
  );
}

const DTYPE_NAMES = Object.keys(DType) as DTypeName[];

/** A dtype name (MXNet's `optional<int>` with the dtype enum). Null (`None`) only when allowed by default. */
function dtype(opts: CommonOptions<DTypeName | null> = {}): ParamSpec<DTypeName | null> {
  const names = opts.default === null ? ['None', ...DTYPE_NAMES] : DTYPE_NAMES;
  const typeName = `{${names.map((v) => `'${v}'`).join(', ')}}`;
  return makeSpec<DTypeName | null>(
    typeName,
    opts,
    (v) => {
      if ((v === null || v === 'None') && opts.default === null) return null;
      if (typeof v === 'string' && v in DType) return v as DTypeName;
      throw new FieldError(`Invalid Input: '${displayValue(v)}', valid values are: ${typeName}`);
    },
    (v) => (v === null ? 'None' : v),
    undefined,
    opts.default === null
      ? { tsType: 'DTypeName | null', choices: [...DTYPE_NAMES, null] }
      : { tsType: 'DTypeName', choices: DTYPE_NAMES },
  );
}

/** Field spec builders (MXNet field types). */
export const P = Object.freeze({
  int,
  float,
  double,
  bool,
  string,
  enum: enumOf,
  tuple,
  shape,
  optional,
  dtype,
});

/** An empty schema, for ops without parameters. */
export const NO_PARAMS: ParamSchema = Object.freeze({});

function isHiddenKey(k: string): boolean {
  return k.length > 4 && k.startsWith('__') && k.endsWith('__');
}

/** MXNet's `, in operator op(name="", k="v", ...)` suffix. */
function operatorSuffix(op: string, input: Readonly<Record<string, unknown>>): string {
  const kv = Object.entries(input)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `, ${k}="${displayValue(v)}"`)
    .join('');
  return `, in operator ${op}(name=""${kv})`;
}

/** Docs for every field, MXNet style: `name : type info\n    doc`. */
export function describeParams(schema: ParamSchema): string {
  return Object.entries(schema)
    .map(([k, s]) => `${k} : ${s.info()}${s.doc ? `\n    ${s.doc}` : ''}`)
    .join('\n');
}

/**
 * Parse `input` (typed values or MXNet strings) against `schema`: unknown keys, missing required
 * fields, malformed values and range/enum violations throw MXNetError with MXNet's text.
 * Hidden keys (`__x__`) are ignored; `undefined` values count as absent.
 */
export function parseParams<S extends ParamSchema>(
  schema: S,
  input: Readonly<Record<string, unknown>> | undefined,
  op: string,
): ParamsOf<S> {
  const out: Record<string, unknown> = {};
  const given = input ?? {};
  for (const key of Object.keys(given)) {
    if (given[key] === undefined || isHiddenKey(key)) continue;
    if (!(key in schema)) {
      throw new MXNetError(
        `Cannot find argument '${key}', Possible Arguments:\n----------------\n${describeParams(schema)}\n${operatorSuffix(op, given)}`,
        {
          op,
          params: given,
          hint: `valid parameters of ${op}: ${Object.keys(schema).join(', ') || '(none)'}`,
        },
      );
    }
  }
  for (const key of Object.keys(schema)) {
    const spec = schema[key] as ParamSpec<unknown>;
    const raw = given[key];
    if (raw === undefined) {
      if (spec.required) {
        throw new MXNetError(
          `Required parameter ${key} of ${spec.typeName} is not presented${operatorSuffix(op, given)}`,
          { op, params: given, hint: `pass ${key}` },
        );
      }
      out[key] = spec.default;
      continue;
    }
    try {
      out[key] = spec.parse(raw, key);
    } catch (e) {
      if (e instanceof FieldError) {
        throw new MXNetError(`${e.message}${operatorSuffix(op, given)}`, {
          op,
          params: given,
          hint: spec.info(),
        });
      }
      throw e;
    }
  }
  return Object.freeze(out) as ParamsOf<S>;
}

/** MXNet's string form of parsed params (symbol JSON `attrs`), every field included, keys sorted. */
export function formatParams<S extends ParamSchema>(schema: S, parsed: ParamsOf<S>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(schema).sort()) {
    const spec = schema[key] as ParamSpec<unknown>;
    out[key] = spec.format((parsed as Record<string, unknown>)[key]);
  }
  return out;
}
