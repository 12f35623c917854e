/**
 * The `.idx` text index of MXIndexedRecordIO: one `key\toffset\n` line per record, the offset of
 * its header in the `.rec`. Parsing follows MXNet's Python (`line.strip().split('\t')`, key through
 * `key_type`, offset through `int`); a repeated key keeps its last offset in the map and appears
 * twice in `keys`, as MXNet's dict and list do. Blank lines are skipped (MXNet would fail on them).
 */
import { MXNetError } from '@mx/base';

/** A record key: an integer (MXNet's default `key_type=int`) or a string (`key_type=str`). */
export type RecordIOKey = number | string;

/** How keys are read: `'int'` (default, as MXNet's `int`) or `'str'`. */
export type RecordIOKeyType = 'int' | 'str';

/** A parsed `.idx` file. */
export interface RecordIOIndex {
  /** Key → record offset. */
  readonly idx: Map<RecordIOKey, number>;
  /** Keys in file order (repeats included). */
  readonly keys: RecordIOKey[];
}

const INT = /^[+-]?\d+$/;

/** A key as `key_type` makes it: an integer (from a number or a decimal string) or a string. */
export function toKey(key: RecordIOKey, keyType: RecordIOKeyType, op: string): RecordIOKey {
  if (keyType === 'str') return String(key);
  const n = typeof key === 'number' ? key : INT.test(key.trim()) ? Number(key.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new MXNetError(`record key ${JSON.stringify(key)} is not an integer`, {
      op,
      params: { key, keyType },
      hint: "keys are integers with keyType 'int' (the default); pass keyType: 'str' for other keys",
    });
  }
  return n;
}

/** Parses the text of an `.idx` file (`name` is used in errors). */
export function parseRecordIOIndex(
  text: string,
  keyType: RecordIOKeyType = 'int',
  name = '<idx>',
): RecordIOIndex {
  const idx = new Map<RecordIOKey, number>();
  const keys: RecordIOKey[] = [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const line = raw.trim();
    if (line === '') continue;
    const fields = line.split('\t');
    const bad = (what: string): never => {
      throw new MXNetError(`${name}, line ${i + 1}: ${what}: ${JSON.stringify(raw.slice(0, 80))}`, {
        op: 'parseRecordIOIndex',
        params: { file: name, line: i + 1 },
        hint: 'an .idx line is "<key>\\t<byte offset>" as MXIndexedRecordIO.writeIdx (or im2rec) writes it',
      });
    };
    if (fields.length < 2) bad('expected a key and an offset separated by a tab');
    const off = (fields[1] as string).trim();
    const offset = INT.test(off) ? Number(off) : Number.NaN;
    if (!Number.isSafeInteger(offset) || offset < 0) bad('the offset is not a non-negative integer');
    let key: RecordIOKey;
    try {
      key = toKey(fields[0] as string, keyType, 'parseRecordIOIndex');
    } catch {
      key = bad('the key is not an integer (keyType "int")');
    }
    idx.set(key, offset);
    keys.push(key);
  }
  return { idx, keys };
}

/** One `.idx` line, as MXNet writes it (`'%s\t%d\n' % (str(key), pos)`). */
export function formatIndexLine(key: RecordIOKey, offset: number): string {
  return `${String(key)}\t${offset}\n`;
}
