/**
 * The string mini-language of `x.get('1:5, ..., ::-1')`: Python's subscript syntax for basic
 * indices, so keys can be copied from NumPy code. A hand-written scanner (no regex backtracking,
 * linear in the input) because it runs on user input and is fuzzed: bad input is always an
 * MXNetError naming the column. `formatIndex` is its inverse for the forms it accepts.
 *
 *   index := '' | item (',' item)* [',']        a trailing comma or several items make a tuple
 *   item  := '...' | 'None' | 'newaxis' | 'np.newaxis' | 'True' | 'False' | int | slice
 *   slice := [int] ':' [int] [':' [int]]
 *   int   := ['+' | '-'] digit+                  (spaces allowed around every token, as Python)
 */
import { MXNetError } from '@mx/base';
import { ellipsis, type Index, type IndexItem, isSliceIndex, type SliceIndex } from './types.js';

type BasicItem = number | boolean | SliceIndex | null | typeof ellipsis;

const WORDS: ReadonlyArray<readonly [string, BasicItem]> = [
  ['np.newaxis', null],
  ['newaxis', null],
  ['None', null],
  ['True', true],
  ['False', false],
  ['...', ellipsis],
];

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): MXNetError {
    const shown = this.text.length > 80 ? `${this.text.slice(0, 77)}...` : this.text;
    return new MXNetError(
      `invalid index string ${JSON.stringify(shown)}: ${what} at column ${this.pos + 1}`,
      {
        op: 'np.ndarray indexing',
        hint: "write Python subscript syntax, e.g. '1:5, ..., ::-1', 'None, 0' or '::2,'",
      },
    );
  }

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] as string)) this.pos++;
  }

  peek(): string {
    return this.text[this.pos] ?? '';
  }

  /** An optional signed integer; null when none starts here. */
  int(): number | null {
    this.skipSpace();
    const start = this.pos;
    const negative = this.peek() === '-';
    if (negative || this.peek() === '+') {
      this.pos++;
      this.skipSpace();
    }
    const digits = this.pos;
    while (this.peek() >= '0' && this.peek() <= '9') this.pos++;
    if (this.pos === digits) {
      if (digits !== start) throw this.fail('expected digits after the sign');
      return null;
    }
    const value = Number(this.text.slice(digits, this.pos));
    if (!Number.isSafeInteger(value)) {
      this.pos = start;
      throw this.fail('integer out of range');
    }
    return negative && value !== 0 ? -value : value;
  }

  item(): BasicItem {
    this.skipSpace();
    for (const [word, value] of WORDS) {
      if (this.text.startsWith(word, this.pos)) {
        const after = this.text[this.pos + word.length] ?? '';
        if (word === '...' || !/[A-Za-z0-9_.]/.test(after)) {
          this.pos += word.length;
          return value;
        }
      }
    }
    const start = this.int();
    this.skipSpace();
    if (this.peek() !== ':') {
      if (start === null)
        throw this.fail(
          this.pos < this.text.length ? `unexpected ${JSON.stringify(this.peek())}` : 'expected an index',
        );
      return start;
    }
    this.pos++;
    const stop = this.int();
    this.skipSpace();
    let step: number | null = null;
    if (this.peek() === ':') {
      this.pos++;
      step = this.int();
    }
    return { kind: 'slice', start, stop, step };
  }
}

/**
 * Parses `'1:5, ..., ::-1'` into an index (a tuple when there is a comma, else one item; `''` is
 * the empty tuple). Throws MXNetError with the column of the first bad character.
 */
export function parseIndex(text: string): Index {
  const sc = new Scanner(text);
  sc.skipSpace();
  if (sc.pos === text.length) return [];
  const items: IndexItem[] = [];
  let comma = false;
  for (;;) {
    items.push(sc.item());
    sc.skipSpace();
    if (sc.pos === text.length) break;
    if (sc.peek() !== ',') throw sc.fail(`expected ',' but found ${JSON.stringify(sc.peek())}`);
    sc.pos++;
    comma = true;
    sc.skipSpace();
    if (sc.pos === text.length) break;
  }
  return comma ? items : (items[0] as IndexItem);
}

function formatItem(item: IndexItem): string {
  if (item === null) return 'None';
  if (item === ellipsis) return '...';
  if (typeof item === 'boolean') return item ? 'True' : 'False';
  if (typeof item === 'number' && Number.isInteger(item)) return String(item);
  if (isSliceIndex(item)) {
    const part = (v: number | null) => (v === null ? '' : String(v));
    return `${part(item.start)}:${part(item.stop)}${item.step === null ? '' : `:${item.step}`}`;
  }
  throw new MXNetError('only integers, slices, None, ... and scalar booleans have a string form', {
    op: 'np.ndarray indexing',
    hint: 'pass index arrays as IndexArray or nested JS arrays, not in the string form',
  });
}

/** The string form of a basic index; `parseIndex(formatIndex(i))` gives `i` back. */
export function formatIndex(index: Index): string {
  if (!Array.isArray(index)) return formatItem(index as IndexItem);
  const items = (index as readonly IndexItem[]).map(formatItem);
  return items.length === 1 ? `${items[0]},` : items.join(', ');
}
