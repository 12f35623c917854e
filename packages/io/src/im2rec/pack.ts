/**
 * im2rec's packing step: every `.lst` whose path starts with the prefix becomes a `.rec` + `.idx`
 * pair beside it (MXIndexedRecordIO, keyed by the list's index). Each image is read from the root,
 * decoded with the `color` flag, center-cropped to a square and/or resized so that its shorter side
 * is `resize` (OpenCV's bilinear geometry, through image.host.imresize, as cv2.resize does it), then
 * encoded by `packImg`; `passThrough` packs the file's bytes untouched. As in im2rec, an image that
 * cannot be read, decoded or encoded is skipped with a warning and the run goes on. `numThread`
 * images are processed at once (sharp encodes on libuv's threads); records are written in list
 * order whatever the number, as im2rec's multi-process writer does.
 */
import { MXNetError } from '@mx/base';
import type { HostImage } from '../image/host-image.js';
import { imresize } from '../image/resize.js';
import { fixedCrop } from '../image/transforms.js';
import { MXIndexedRecordIO } from '../recordio/indexed.js';
import { type IRHeaderInit, pack } from '../recordio/irheader.js';
import { type LstItem, readLst } from './lst.js';
import { isDir, isFile, type NodeFsLike, type NodePathLike, nodeFsPath } from './node.js';
import { decodeWithFlag, encodeImage, type ImreadFlag, loadSharp } from './pack-img.js';

/** Options of im2rec's packing step (`--resize`, `--quality`, ...). */
export interface PackOptions {
  /** Pack the image files' bytes as they are (default false). */
  readonly passThrough?: boolean;
  /** Resize so that the shorter side is this many pixels (default 0: keep the size). */
  readonly resize?: number;
  /** Crop the centred square first (default false). */
  readonly centerCrop?: boolean;
  /** JPEG quality 1-100, or PNG compression 0-9 (default 95). */
  readonly quality?: number;
  /** Images processed at once (default 1). */
  readonly numThread?: number;
  /** OpenCV's imread flag: 1 color (default), 0 gray, -1 unchanged. */
  readonly color?: ImreadFlag;
  /** '.jpg' (default) or '.png'. */
  readonly encoding?: '.jpg' | '.png';
  /** Store all the labels of multi-label lines in the header (default false: the first only). */
  readonly packLabel?: boolean;
  /** Receives a message per skipped image or list line (default: console.warn). */
  readonly onWarning?: (message: string) => void;
  /** Called after each list item (`done` of `total`) of the list being packed. */
  readonly onProgress?: (done: number, total: number, lst: string) => void;
}

/** What packing one list produced. */
export interface PackResult {
  readonly lst: string;
  readonly rec: string;
  readonly idx: string;
  /** Records written. */
  readonly written: number;
  /** List items skipped (unreadable or undecodable images). */
  readonly skipped: number;
}

interface Resolved {
  readonly passThrough: boolean;
  readonly resize: number;
  readonly centerCrop: boolean;
  readonly quality: number;
  readonly numThread: number;
  readonly color: ImreadFlag;
  readonly encoding: '.jpg' | '.png';
  readonly packLabel: boolean;
}

function resolveOptions(o: PackOptions, op: string): Resolved {
  const r: Resolved = {
    passThrough: o.passThrough ?? false,
    resize: o.resize ?? 0,
    centerCrop: o.centerCrop ?? false,
    quality: o.quality ?? 95,
    numThread: o.numThread ?? 1,
    color: o.color ?? 1,
    encoding: o.encoding ?? '.jpg',
    packLabel: o.packLabel ?? false,
  };
  const params = { ...r };
  const bad = (what: string, hint?: string) => new MXNetError(what, { op, params, hint });
  if (!Number.isInteger(r.resize) || r.resize < 0)
    throw bad(`resize must be an integer >= 0, got ${r.resize}`);
  if (!Number.isInteger(r.quality)) throw bad(`quality must be an integer, got ${r.quality}`);
  if (!Number.isInteger(r.numThread) || r.numThread < 1) {
    throw bad(`num_thread must be a positive integer, got ${r.numThread}`);
  }
  if (r.color !== -1 && r.color !== 0 && r.color !== 1) throw bad(`color must be -1, 0 or 1, got ${r.color}`);
  if (r.encoding !== '.jpg' && r.encoding !== '.png') {
    throw bad(`encoding must be '.jpg' or '.png', got ${JSON.stringify(r.encoding)}`);
  }
  return r;
}

/** im2rec's transform: the centred square (`centerCrop`), then the shorter side to `resize`. */
export function im2recTransform(img: HostImage, resize: number, centerCrop: boolean): HostImage {
  let out = img;
  if (centerCrop) {
    const [h, w] = out.shape;
    out =
      h > w
        ? fixedCrop(out, 0, Math.floor((h - w) / 2), w, w)
        : fixedCrop(out, Math.floor((w - h) / 2), 0, h, h);
  }
  if (resize) {
    const [h, w] = out.shape;
    const [nw, nh] = h > w ? [resize, Math.floor((h * resize) / w)] : [Math.floor((w * resize) / h), resize];
    out = imresize(out, nw, nh, 1);
  }
  return out;
}

/** The header im2rec packs for a list item. */
export function headerOf(item: LstItem, packLabel: boolean): IRHeaderInit {
  const label = item.labels.length > 1 && packLabel ? item.labels : (item.labels[0] as number);
  return { flag: 0, label, id: item.index, id2: 0 };
}

type Sharp = Awaited<ReturnType<typeof loadSharp>>;

async function encodeItem(
  item: LstItem,
  root: string,
  o: Resolved,
  io: { fs: NodeFsLike; path: NodePathLike; sharp: Sharp | undefined },
  warn: (m: string) => void,
): Promise<Uint8Array | null> {
  const file = io.path.join(root, item.path);
  const header = headerOf(item, o.packLabel);
  let bytes: Uint8Array;
  try {
    bytes = io.fs.readFileSync(file);
  } catch (e) {
    warn(`skipped ${item.path} (index ${item.index}): cannot read ${file}: ${(e as Error).message}`);
    return null;
  }
  if (o.passThrough) return pack(header, bytes);
  try {
    const img = await decodeWithFlag(bytes, o.color, 'im2rec', io.sharp);
    const ready = im2recTransform(img, o.resize, o.centerCrop);
    return pack(header, await encodeImage(ready, o.quality, o.encoding, 'im2rec', io.sharp));
  } catch (e) {
    warn(`skipped ${item.path} (index ${item.index}): ${(e as Error).message}`);
    return null;
  }
}

/**
 * Packs the images of one `.lst` (paths relative to `root`) into `<list name>.rec` and `.idx` in
 * the list's folder. Malformed list lines and unusable images are skipped with a warning.
 */
export async function packList(lst: string, root: string, options: PackOptions = {}): Promise<PackResult> {
  const op = 'im2rec.packList';
  const o = resolveOptions(options, op);
  const { fs, path } = nodeFsPath(op);
  if (!isDir(fs, root)) {
    throw new MXNetError(`the image root '${root}' is not a directory`, {
      op,
      params: { root },
      hint: 'pass the folder the .lst paths are relative to',
    });
  }
  const warn = options.onWarning ?? ((m: string) => console.warn(m));
  const { items, warnings } = readLst(lst, { fs, path });
  for (const w of warnings) warn(w);
  const stem = path.basename(lst).replace(/\.lst$/, '');
  const rec = path.join(path.dirname(lst), `${stem}.rec`);
  const idx = path.join(path.dirname(lst), `${stem}.idx`);
  const io = { fs, path, sharp: o.passThrough ? undefined : await loadSharp(op) };
  const record = new MXIndexedRecordIO(idx, rec, 'w');
  let written = 0;
  let done = 0;
  try {
    const window: Array<Promise<Uint8Array | null>> = [];
    const flush = async (item: LstItem) => {
      const s = await window.shift();
      if (s) {
        record.writeIdx(item.index, s);
        written++;
      }
      options.onProgress?.(++done, items.length, lst);
    };
    for (let i = 0; i < items.length; i++) {
      window.push(encodeItem(items[i] as LstItem, root, o, io, warn));
      if (window.length >= o.numThread) await flush(items[done] as LstItem);
    }
    while (window.length) await flush(items[done] as LstItem);
  } finally {
    record.close();
  }
  return { lst, rec, idx, written, skipped: items.length - written };
}

/**
 * The lists im2rec packs for `prefix`: the `.lst` files in the prefix's folder (the prefix itself
 * when it is a folder) whose full path starts with the resolved prefix, sorted.
 */
export function findLists(prefix: string): string[] {
  const op = 'im2rec.findLists';
  const { fs, path } = nodeFsPath(op);
  const full = path.resolve(prefix);
  const dir = isDir(fs, full) ? full : path.dirname(full);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    throw new MXNetError(`cannot list the folder '${dir}' of the prefix '${prefix}'`, { op, cause: e });
  }
  return names
    .map((n) => path.join(dir, n))
    .filter((f) => f.startsWith(full) && f.endsWith('.lst') && isFile(fs, f))
    .sort();
}

/**
 * im2rec without `--list`: packs every list {@link findLists} finds for `prefix`. No list is an
 * MXNetError (im2rec prints a line and exits with 0).
 */
export async function packLists(
  prefix: string,
  root: string,
  options: PackOptions = {},
): Promise<PackResult[]> {
  const lists = findLists(prefix);
  if (!lists.length) {
    throw new MXNetError(`found no .lst file with the prefix '${prefix}'`, {
      op: 'im2rec',
      params: { prefix },
      hint: 'create the list first (mx-im2rec --list PREFIX ROOT), or pass the prefix the .lst names start with',
    });
  }
  const out: PackResult[] = [];
  for (const lst of lists) out.push(await packList(lst, root, options));
  return out;
}
