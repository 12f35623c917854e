/**
 * dmlc-core's `JSONWriter` (include/dmlc/json.h), reproduced so saved files match MXNet's byte for
 * byte. Its layout rules:
 *
 * - A scope (array or object) is multi-line or not. In a multi-line scope every item starts on a
 *   new line indented two spaces per open scope; items are separated by `", "` (so lines end in a
 *   comma and a space); a non-empty multi-line scope closes on its own line, one level out.
 * - Objects are multi-line by default; arrays of numbers or of small PODs (node entries) are on one
 *   line unless they have more than 10 items; string maps are multi-line with more than one key.
 * - Keys and values print as `"key": value`; strings escape only `\r \n \\ \t "` (everything else,
 *   control characters included, is written raw); numbers are plain decimal.
 * - No newline after the closing brace of the document.
 *
 * Deviation: dmlc writes object keys unescaped; we escape them like values, so a key containing a
 * quote still gives readable JSON (MXNet's own file would not load anywhere).
 */

/** dmlc's string escaping (`JSONWriter::WriteString`). */
export function dmlcString(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\r':
        out += '\\r';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\t':
        out += '\\t';
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += ch;
    }
  }
  return `${out}"`;
}

/** A streaming writer with dmlc's scope rules. */
export class DmlcJsonWriter {
  readonly #parts: string[] = [];
  readonly #multiLine: boolean[] = [];
  readonly #counts: number[] = [];

  /** dmlc `WriteSeperator`: newline and indentation inside a multi-line scope (or at top level). */
  #separator(): void {
    const depth = this.#multiLine.length;
    if (depth === 0 || this.#multiLine[depth - 1]) this.#parts.push(`\n${' '.repeat(depth * 2)}`);
  }

  #begin(open: string, multiLine: boolean): void {
    this.#parts.push(open);
    this.#multiLine.push(multiLine);
    this.#counts.push(0);
  }

  #end(close: string): void {
    const multiLine = this.#multiLine.pop();
    const count = this.#counts.pop();
    if (multiLine && count !== 0) this.#separator();
    this.#parts.push(close);
  }

  beginArray(multiLine: boolean): void {
    this.#begin('[', multiLine);
  }

  endArray(): void {
    this.#end(']');
  }

  beginObject(multiLine: boolean): void {
    this.#begin('{', multiLine);
  }

  endObject(): void {
    this.#end('}');
  }

  /** Start the next array item (dmlc `WriteArraySeperator`); write its value next. */
  item(): void {
    const top = this.#counts.length - 1;
    if (this.#counts[top] !== 0) this.#parts.push(', ');
    this.#counts[top] = (this.#counts[top] as number) + 1;
    this.#separator();
  }

  /** Write an object key (dmlc `WriteObjectKeyValue` up to the value); write the value next. */
  key(k: string): void {
    const top = this.#counts.length - 1;
    if ((this.#counts[top] as number) > 0) this.#parts.push(', ');
    this.#separator();
    this.#parts.push(`${dmlcString(k)}: `);
    this.#counts[top] = (this.#counts[top] as number) + 1;
  }

  string(s: string): void {
    this.#parts.push(dmlcString(s));
  }

  number(n: number): void {
    this.#parts.push(String(n));
  }

  /** An array of integers (dmlc `ArrayHandler` of a POD type: one line up to 10 items). */
  numbers(values: readonly number[]): void {
    this.beginArray(values.length > 10);
    for (const v of values) {
      this.item();
      this.number(v);
    }
    this.endArray();
  }

  /** A map of strings (dmlc `MapHandler`: multi-line with more than one key), in the given order. */
  stringMap(entries: readonly (readonly [string, string])[]): void {
    this.beginObject(entries.length > 1);
    for (const [k, v] of entries) {
      this.key(k);
      this.string(v);
    }
    this.endObject();
  }

  /** The text written so far. */
  toString(): string {
    return this.#parts.join('');
  }
}
