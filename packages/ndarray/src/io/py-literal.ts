/**
 * A parser for the small Python literal subset an `.npy` header uses (NumPy reads it with
 * `ast.literal_eval`): dicts, tuples, lists, strings, integers (a Python 2 `L` suffix allowed),
 * True/False/None. Parsing properly, instead of searching for substrings as MXNet's cnpy does,
 * keeps structured descriptors such as bfloat16's `[('bfloat16', '<u2')]` and odd spacing working,
 * while what Python would refuse (leading zeros, non-Python whitespace) is refused here too.
 * Errors are plain messages; the npy reader wraps them with the file name.
 */

export type PyValue =
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'none' }
  | { readonly kind: 'tuple' | 'list'; readonly items: readonly PyValue[] }
  | { readonly kind: 'dict'; readonly entries: ReadonlyMap<string, PyValue> };

/** Thrown for malformed input; `offset` is the character position. */
export class PyLiteralError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} at character ${offset}`);
    this.offset = offset;
  }
}

const CLOSERS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/** Parses `text` as one Python literal (surrounding whitespace allowed). */
export function parsePyLiteral(text: string): PyValue {
  let i = 0;
  // Python's whitespace between tokens (no Unicode spaces, no vertical tab).
  const skip = (): void => {
    while (i < text.length && ' \t\n\r\f'.includes(text[i] as string)) i++;
  };
  const fail = (message: string): never => {
    throw new PyLiteralError(message, i);
  };

  const parseString = (): PyValue => {
    const quote = text[i] as string;
    i++;
    let out = '';
    while (i < text.length && text[i] !== quote) {
      const c = text[i] as string;
      if (c === '\\') {
        const e = text[i + 1];
        if (e === undefined) fail('unterminated escape');
        out += e === 'n' ? '\n' : e === 't' ? '\t' : e === '0' ? '\0' : (e as string);
        i += 2;
      } else {
        out += c;
        i++;
      }
    }
    if (i >= text.length) fail('unterminated string');
    i++;
    return { kind: 'str', value: out };
  };

  const parseNumber = (): PyValue => {
    // Python's decimal literal: no leading zeros except for zero itself (`03` is a SyntaxError).
    const re = /[+-]?(?:0+|[1-9]\d*)[lL]?(?![\w])/y;
    re.lastIndex = i;
    const m = re.exec(text);
    if (m === null) return fail('expected a number');
    i += m[0].length;
    const value = Number.parseInt(m[0], 10);
    if (!Number.isSafeInteger(value)) fail(`integer ${m[0]} is out of range`);
    return { kind: 'int', value };
  };

  const parseSequence = (open: string): PyValue => {
    const close = CLOSERS[open] as string;
    i++;
    const items: PyValue[] = [];
    const keys: string[] = [];
    let sawComma = false;
    for (;;) {
      skip();
      if (text[i] === close) {
        i++;
        break;
      }
      if (open === '{') {
        const key = parseValue();
        if (key.kind !== 'str') fail('dict keys must be strings');
        skip();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        keys.push((key as { value: string }).value);
      }
      items.push(parseValue());
      skip();
      if (text[i] === ',') {
        sawComma = true;
        i++;
      } else if (text[i] !== close) {
        fail(`expected ',' or '${close}'`);
      }
    }
    if (open === '{') {
      const entries = new Map<string, PyValue>();
      for (const [j, k] of keys.entries()) entries.set(k, items[j] as PyValue);
      return { kind: 'dict', entries };
    }
    // `(x)` without a comma is just x in parentheses.
    if (open === '(' && items.length === 1 && !sawComma) return items[0] as PyValue;
    return { kind: open === '(' ? 'tuple' : 'list', items };
  };

  const parseValue = (): PyValue => {
    skip();
    const c = text[i];
    if (c === undefined) return fail('unexpected end of input');
    if (c === "'" || c === '"') return parseString();
    if (c === '(' || c === '[' || c === '{') return parseSequence(c);
    if (/[\d+-]/.test(c)) return parseNumber();
    const wordRe = /[A-Za-z_]\w*/y;
    wordRe.lastIndex = i;
    const word = wordRe.exec(text);
    if (word !== null) {
      i += word[0].length;
      if (word[0] === 'True') return { kind: 'bool', value: true };
      if (word[0] === 'False') return { kind: 'bool', value: false };
      if (word[0] === 'None') return { kind: 'none' };
      i -= word[0].length;
      return fail(`unexpected name "${word[0]}"`);
    }
    return fail(`unexpected character ${JSON.stringify(c)}`);
  };

  const v = parseValue();
  skip();
  if (i !== text.length) fail('unexpected text after the literal');
  return v;
}
