/**
 * MXNet's `.lst` image lists (tools/im2rec.py): one line per image, `index \t label(s) \t path`,
 * labels written with Python's `'%f'` (6 decimals, round-half-even on the exact binary value).
 * Listing walks the image root as im2rec does (sorted names; with `recursive`, one label per
 * folder that holds images, numbered in walk order), shuffles with Python's `random.seed(100)`
 * + `random.shuffle` (so the lists equal MXNet's under Python 3), and splits into chunks and
 * train / val / test lists. Reading skips malformed lines with a warning, as im2rec does.
 */
import { MXNetError } from '@mx/base';
import { ImageRandom } from '../image/random.js';
import { isDir, isFile, type NodeFsLike, type NodePathLike, nodeFsPath } from './node.js';

/** One image of a list: its record id, its path relative to the image root and its labels. */
export interface LstItem {
  readonly index: number;
  readonly path: string;
  readonly labels: readonly number[];
}

/** im2rec's default image extensions (compared with the lower-cased extension). */
export const DEFAULT_EXTS: readonly string[] = ['.jpeg', '.jpg', '.png'];

/** Options of {@link listImages}. */
export interface ListImagesOptions {
  /** Walk sub-folders, one label per folder (default false: the root's images, label 0). */
  readonly recursive?: boolean;
  /** Accepted extensions, with the dot (default `.jpeg .jpg .png`). */
  readonly exts?: readonly string[];
}

/** What {@link listImages} found: the images in walk order and, recursive, each folder's label. */
export interface ImageListing {
  readonly items: LstItem[];
  /** `[folder relative to the root ('.' for the root), label]`, in label order. */
  readonly classes: Array<readonly [string, number]>;
}

/** Python's ordering of `str` (by code point; JS's default sort compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Python's `os.path.splitext(name)[1]`: the last dot's suffix, leading dots not counting. */
export function extensionOf(name: string): string {
  let start = 0;
  while (name[start] === '.') start++;
  const dot = name.lastIndexOf('.');
  return dot > start ? name.slice(dot) : '';
}

function requireRoot(fs: NodeFsLike, root: string, op: string): void {
  if (!isDir(fs, root)) {
    throw new MXNetError(`the image root '${root}' is not a directory`, {
      op,
      params: { root },
      hint: 'pass the folder that holds the images (the .lst paths are relative to it)',
    });
  }
}

/**
 * Lists the images under `root` as im2rec's `list_image`: without `recursive`, the files of the
 * root with an accepted extension, sorted, label 0; with it, a top-down walk (sub-folders and files
 * sorted, links followed, link cycles walked once) where each folder holding images gets the next
 * label. Indices are 0, 1, ... in that order.
 */
export function listImages(root: string, options: ListImagesOptions = {}): ImageListing {
  const op = 'im2rec.listImages';
  const { fs, path } = nodeFsPath(op);
  requireRoot(fs, root, op);
  const exts = new Set(options.exts ?? DEFAULT_EXTS);
  const accept = (dir: string, name: string) =>
    exts.has(extensionOf(name).toLowerCase()) && isFile(fs, path.join(dir, name));
  const items: LstItem[] = [];
  const classes: Array<readonly [string, number]> = [];
  if (!options.recursive) {
    for (const name of fs.readdirSync(root).sort(compareCodePoints)) {
      if (accept(root, name)) items.push({ index: items.length, path: name, labels: [0] });
    }
    return { items, classes };
  }
  const seen = new Set<string>();
  const walk = (dir: string): void => {
    const real = fs.realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    const names = fs.readdirSync(dir).sort(compareCodePoints);
    let label: number | undefined;
    for (const name of names) {
      if (!accept(dir, name)) continue;
      if (label === undefined) {
        label = classes.length;
        classes.push([path.relative(root, dir) || '.', label]);
      }
      items.push({ index: items.length, path: path.relative(root, path.join(dir, name)), labels: [label] });
    }
    for (const name of names) if (isDir(fs, path.join(dir, name))) walk(path.join(dir, name));
  };
  walk(root);
  return { items, classes };
}

/** Python's `'%f' % x`: fixed, 6 decimals, ties to even on the exact value; `nan`, `inf`, `-0.000000`. */
export function formatPyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const a = Math.abs(x);
  if (a === Number.POSITIVE_INFINITY) return `${sign}inf`;
  if (a >= 1e21) return `${sign}${BigInt(a).toString()}.000000`;
  // toFixed(100) is the exact decimal expansion for every double below 1e21 (at most 76 digits).
  const [whole, frac] = a.toFixed(100).split('.') as [string, string];
  const kept = BigInt(whole + frac.slice(0, 6));
  const rest = frac.slice(6).replace(/0+$/, '');
  const up = rest > '5' || (rest === '5' && kept % 2n === 1n);
  const digits = (up ? kept + 1n : kept).toString().padStart(7, '0');
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

/** One `.lst` line as im2rec writes it: `'%d\t' + '%f\t' per label + '%s\n'`. */
export function formatLstLine(item: LstItem): string {
  return `${item.index}\t${item.labels.map((l) => `${formatPyFloat(l)}\t`).join('')}${item.path}\n`;
}

const DIGITS = String.raw`\d+(?:_\d+)*`;
const PY_INT = new RegExp(`^[+-]?${DIGITS}$`);
const PY_FLOAT = new RegExp(
  `^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?)$`,
);
const PY_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** Python's `float(s)` on a stripped string, or undefined where Python raises. */
export function parsePyFloat(s: string): number | undefined {
  const special = PY_SPECIAL.exec(s);
  if (special) {
    if ((special[2] as string).toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  return PY_FLOAT.test(s) ? Number(s.replace(/_/g, '')) : undefined;
}

/** A parsed `.lst`: the items and a warning per skipped line. */
export interface ParsedLst {
  readonly items: LstItem[];
  readonly warnings: string[];
}

/**
 * Parses `.lst` text as im2rec's `read_list`: lines split on tabs, fields stripped; a line with
 * fewer than 3 fields, a non-integer index (or one beyond 2^53) or a label that is not a float is
 * skipped with a warning. Line ends may be `\n`, `\r\n` or `\r` (Python's universal newlines).
 */
export function parseLst(text: string, name = '<lst>'): ParsedLst {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const items: LstItem[] = [];
  const warnings: string[] = [];
  lines.forEach((raw, n) => {
    const where = `${name}:${n + 1}`;
    const fields = raw
      .trim()
      .split('\t')
      .map((f) => f.trim());
    if (fields.length < 3) {
      warnings.push(
        `${where}: skipped, ${fields.length} tab-separated field(s); a line is index, label(s), path: ${JSON.stringify(raw)}`,
      );
      return;
    }
    const first = fields[0] as string;
    const index = PY_INT.test(first) ? Number(first.replace(/_/g, '')) : Number.NaN;
    const labels = fields.slice(1, -1).map(parsePyFloat);
    const bad = labels.indexOf(undefined);
    if (!Number.isSafeInteger(index) || bad >= 0) {
      const what =
        bad >= 0
          ? `label ${JSON.stringify(fields[bad + 1])} is not a number`
          : `index ${JSON.stringify(first)} is not an integer`;
      warnings.push(`${where}: skipped, the ${what}`);
      return;
    }
    items.push({ index, path: fields[fields.length - 1] as string, labels: labels as number[] });
  });
  return { items, warnings };
}

/** Options of {@link makeList} (im2rec's `--list` options). */
export interface MakeListOptions extends ListImagesOptions {
  /** Output prefix: writes `<prefix>.lst`, or `<prefix>[_<chunk>]_{train,val,test}.lst`. */
  readonly prefix: string;
  /** The image root. */
  readonly root: string;
  /** Number of chunks (default 1). */
  readonly chunks?: number;
  /** Fraction of each chunk for training (default 1: no split). */
  readonly trainRatio?: number;
  /** Fraction of each chunk for testing (default 0). */
  readonly testRatio?: number;
  /** Shuffle the list (default true, as im2rec without `--no-shuffle`). */
  readonly shuffle?: boolean;
  /** Seed of Python's `random` for the shuffle (default 100, im2rec's). */
  readonly seed?: number;
}

/** What {@link makeList} did: the files written (with their item counts) and the folder labels. */
export interface MakeListResult {
  readonly files: Array<{ readonly path: string; readonly count: number }>;
  readonly classes: Array<readonly [string, number]>;
}

function checkListOptions(o: MakeListOptions, op: string): { chunks: number; train: number; test: number } {
  const chunks = o.chunks ?? 1;
  const train = o.trainRatio ?? 1;
  const test = o.testRatio ?? 0;
  const params = { chunks, train_ratio: train, test_ratio: test };
  if (!Number.isInteger(chunks) || chunks < 1) {
    throw new MXNetError(`chunks must be a positive integer, got ${String(chunks)}`, { op, params });
  }
  const ok = (r: number) => Number.isFinite(r) && r >= 0 && r <= 1;
  if (!ok(train) || !ok(test) || train + test > 1) {
    throw new MXNetError(
      `train_ratio (${train}) and test_ratio (${test}) must lie in [0, 1] with a sum <= 1`,
      {
        op,
        params,
        hint: 'the rest of each chunk after train and test goes to the _val list',
      },
    );
  }
  return { chunks, train, test };
}

/** The files im2rec's `make_list` writes for a (shuffled) list, with their contents. */
export function splitList(
  items: readonly LstItem[],
  prefix: string,
  chunks: number,
  trainRatio: number,
  testRatio: number,
): Array<{ path: string; items: LstItem[] }> {
  const out: Array<{ path: string; items: LstItem[] }> = [];
  const size = Math.ceil(items.length / chunks);
  for (let i = 0; i < chunks; i++) {
    const chunk = items.slice(i * size, (i + 1) * size);
    const base = prefix + (chunks > 1 ? `_${i}` : '');
    const sep = Math.trunc(size * trainRatio);
    const sepTest = Math.trunc(size * testRatio);
    if (trainRatio === 1) {
      out.push({ path: `${base}.lst`, items: chunk });
      continue;
    }
    if (testRatio) out.push({ path: `${base}_test.lst`, items: chunk.slice(0, sepTest) });
    if (trainRatio + testRatio < 1) out.push({ path: `${base}_val.lst`, items: chunk.slice(sepTest + sep) });
    out.push({ path: `${base}_train.lst`, items: chunk.slice(sepTest, sepTest + sep) });
  }
  return out;
}

/**
 * im2rec `--list`: lists the images of `root`, shuffles them (Python's generator seeded with
 * `seed`), and writes the `.lst` file(s) for `prefix` (see {@link splitList}).
 */
export function makeList(options: MakeListOptions): MakeListResult {
  const op = 'im2rec.makeList';
  const { chunks, train, test } = checkListOptions(options, op);
  const { fs, path } = nodeFsPath(op);
  const { items, classes } = listImages(options.root, options);
  if (options.shuffle ?? true) new ImageRandom(options.seed ?? 100).shuffle(items);
  const files = splitList(items, path.resolve(options.prefix), chunks, train, test);
  for (const f of files) writeLst(fs, f.path, f.items, op);
  return { files: files.map((f) => ({ path: f.path, count: f.items.length })), classes };
}

function writeLst(fs: NodeFsLike, file: string, items: readonly LstItem[], op: string): void {
  try {
    fs.writeFileSync(file, items.map(formatLstLine).join(''));
  } catch (e) {
    throw new MXNetError(`cannot write the list '${file}'`, {
      op,
      cause: e,
      hint: "check that the prefix's folder exists and is writable",
    });
  }
}

/** Reads and parses a `.lst` file (see {@link parseLst}). */
export function readLst(file: string, fsPath?: { fs: NodeFsLike; path: NodePathLike }): ParsedLst {
  const op = 'im2rec.readLst';
  const { fs } = fsPath ?? nodeFsPath(op);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new MXNetError(`cannot read the list '${file}'`, { op, cause: e, hint: 'check the path' });
  }
  return parseLst(text, file);
}
