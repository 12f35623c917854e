/**
 * JSON the way Python's `json.dumps` writes it (`", "` and `": "` separators, `NaN`/`Infinity`,
 * ASCII-only strings), so `Initializer.dumps()` gives MXNet's strings byte for byte where the values
 * allow. One known difference: JavaScript has one number type, so a Python float with an integral
 * value (`1.0`) comes out as `1`.
 */

function pyString(s: string): string {
  // JSON.stringify escapes quotes and control characters; Python also escapes every non-ASCII unit.
  return JSON.stringify(s).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function pyNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  return String(n);
}

/** Serialise plain data (numbers, strings, booleans, null, arrays, plain objects) as Python does. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (ArrayBuffer.isView(value)) return pythonJson(Array.from(value as unknown as ArrayLike<number>));
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${pyString(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  return pyString(String(value));
}

/** Parse JSON that may hold Python's `NaN`, `Infinity` and `-Infinity` outside strings. */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (first) {
    // Replace the bare Python constants by sentinels (only outside strings), then restore them.
    const marker = '\u2063pyconst:'; // an invisible separator: JSON text from dumps() never holds it
    let out = '';
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      if (inString) {
        out += ch;
        if (ch === '\\') out += text[++i] ?? '';
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') {
        inString = true;
        out += ch;
        continue;
      }
      const rest = text.slice(i);
      const m = /^(-?Infinity|NaN)/.exec(rest);
      if (m) {
        out += `"${marker}${m[1]}"`;
        i += (m[1] as string).length - 1;
        continue;
      }
      out += ch;
    }
    try {
      return JSON.parse(out, (_k, v) =>
        typeof v === 'string' && v.startsWith(marker) ? Number(v.slice(marker.length)) : v,
      );
    } catch {
      throw first;
    }
  }
}
