/**
 * Image datasets of MXNet's gluon.data.vision: ImageFolderDataset (one subfolder per class),
 * ImageListDataset (a `.lst` file or a list of `[label, path]`) and ImageRecordDataset (a RecordIO
 * `.rec` of packed images, over RecordFileDataset).
 *
 * Design: decoding is asynchronous here (sharp in Node, the canvas in browsers) while `get(i)` is
 * synchronous, as MXNet's `__getitem__` and the DataLoader expect. So the datasets are made by an
 * async `load(...)` factory that lists the files as MXNet does and decodes every image once, up
 * front; `get(i)` then returns `[image, label]` with the image an (H, W, C) uint8 host array
 * `{ data, shape, dtype }` (flag 0: C = 1, flag 1: RGB). The cost is memory (all decoded pixels
 * are held); in exchange samples are plain data.
 *
 * DataLoader workers: each worker loads the dataset itself, calling the same `load(...)` of
 * @mx/gluon (an `'instance'` spec: the DataLoader's `workerModule`, else the built package, see
 * gluon-entry.ts) — so it reads and decodes the files
 * when it starts (before its first batch, within the loader's `timeout`), and a file that changed
 * and no longer decodes fails that worker's first batch, naming the file. The `transform` option
 * goes along when it can describe itself. Where workers cannot read the files again (browsers, or
 * Node without the built package) or the source cannot be sent (InMemoryFiles), the decoded images
 * are sent to the workers instead (and a browser's workers import only the transforms, from the
 * DataLoader's `workerModule`).
 *
 * Labels: a number for one label; a float32 host array `(n,)` for several (MXNet: NDArrays).
 */
import { MXNetError, nodeBuiltin } from '@mx/base';
import { image, recordio } from '@mx/io';
import type { HostArray } from '@mx/ndarray';
import { applyTransform, checkIndex, Dataset, type Transform } from '../dataset.js';
import { gluonEntry, gluonInstance } from '../gluon-entry.js';
import { RecordFileDataset, type RecordFileSource } from '../record-dataset.js';
import { transformSpecOf, type WorkerDatasetSpec } from '../worker-spec.js';

/** A label: one number, or several as a float32 host array. */
export type ImageLabel = number | HostArray;

/** Options shared by the image datasets. */
export interface ImageDatasetOptions {
  /** 1 (default): decode to RGB (3 channels); 0: to gray (1 channel). */
  readonly flag?: 0 | 1;
  /** Called as `transform(image, label)` on every sample read (MXNet's `transform`). */
  readonly transform?: Transform;
  /** Decoder: 'auto' (default), 'sharp' or 'canvas' (see @mx/io's imdecode). */
  readonly backend?: 'auto' | 'sharp' | 'canvas';
}

interface NodeFs {
  readdirSync(path: string): string[];
  statSync(path: string): { isDirectory(): boolean };
  readFileSync(path: string, encoding?: 'utf8'): Uint8Array | string;
}
interface NodePath {
  join(...parts: string[]): string;
  extname(p: string): string;
  resolve(p: string): string;
}

/** How a worker loads the same dataset: `data.vision.<cls.name>.load(...args)` of @mx/gluon. */
interface Reload {
  readonly cls: Function;
  readonly name: string;
  readonly args: readonly unknown[];
}

/** The options a worker's `load` gets (the transform travels as its own spec). */
function loadOptions(options: ImageDatasetOptions): ImageDatasetOptions {
  return { flag: options.flag ?? 1, backend: options.backend ?? 'auto' };
}

const builtin = <T>(id: string, op: string): T => nodeBuiltin<T>(id, op);

function readBytes(fs: NodeFs, path: string, op: string): Uint8Array {
  try {
    return fs.readFileSync(path) as Uint8Array;
  } catch (e) {
    throw new MXNetError(`cannot read ${path}`, { op, cause: e });
  }
}

/** Python's `sorted` on names (code point order). */
function sortedNames(names: readonly string[]): string[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Decodes `count` images, a few at a time, naming the failing one. */
async function decodeAll(
  count: number,
  bytesOf: (i: number) => Uint8Array,
  nameOf: (i: number) => string,
  options: ImageDatasetOptions,
  op: string,
): Promise<HostArray[]> {
  const flag = options.flag ?? 1;
  if (flag !== 0 && flag !== 1) {
    throw new MXNetError(`flag must be 1 (color) or 0 (gray), got ${String(flag)}`, { op, params: { flag } });
  }
  const decode = await image.host.imageDecoder(options.backend ?? 'auto', op);
  const out: HostArray[] = new Array(count);
  const batch = 8;
  for (let start = 0; start < count; start += batch) {
    const ids = Array.from({ length: Math.min(batch, count - start) }, (_, k) => start + k);
    await Promise.all(
      ids.map(async (i) => {
        let img: image.HostImage<Uint8Array>;
        try {
          img = await decode(bytesOf(i), { flag });
        } catch (e) {
          const why = e instanceof MXNetError ? e.reason : String(e);
          throw new MXNetError(`cannot decode ${nameOf(i)}: ${why}`, { op, cause: e });
        }
        out[i] = { data: img.data, shape: [...img.shape], dtype: 'uint8' };
      }),
    );
  }
  return out;
}

/** Decoded images with labels: the common body of the image datasets. */
abstract class DecodedImageDataset extends Dataset<unknown> {
  readonly #images: readonly HostArray[];
  readonly #labels: readonly ImageLabel[];
  readonly #transform: Transform | undefined;
  readonly #reload: Reload | undefined;

  protected constructor(
    images: HostArray[],
    labels: ImageLabel[],
    transform: Transform | undefined,
    reload: Reload | undefined,
  ) {
    super();
    this.#images = images;
    this.#labels = labels;
    this.#transform = transform;
    this.#reload = reload;
  }

  get length(): number {
    return this.#images.length;
  }

  /** `[image, label]`, or what `transform(image, label)` returns. */
  get(index: number): unknown {
    checkIndex(index, this.length, `${this.constructor.name}.get`);
    const sample = [this.#images[index], this.#labels[index]];
    return this.#transform === undefined ? sample : applyTransform(this.#transform, sample, false);
  }

  /** Loaded again in each worker, else the decoded images (see the file comment). */
  override workerSpec(): WorkerDatasetSpec {
    const r = this.#reload;
    // Where workers can read the files again (Node, with the built package); the module itself
    // is resolved by the DataLoader (its workerModule, else that built package).
    const entry = r !== undefined && this.constructor === r.cls ? gluonEntry() : undefined;
    const base: WorkerDatasetSpec =
      r !== undefined && entry !== undefined && 'url' in entry
        ? {
            ...gluonInstance(
              `data.vision.${r.name}.load`,
              r.args,
              `the ${r.name} (loaded again in each worker)`,
              false,
            ),
            length: this.length,
          }
        : {
            kind: 'arrays',
            sources: [
              { kind: 'list', items: this.#images },
              { kind: 'list', items: this.#labels },
            ],
          };
    if (this.#transform === undefined) return base;
    return { kind: 'transform', base, fn: transformSpecOf(this.#transform), first: false };
  }
}

const EXTS = ['.jpg', '.jpeg', '.png'];

/**
 * Images in class subfolders, `root/<class>/<image>.{jpg,jpeg,png}` (MXNet's ImageFolderDataset):
 * classes are the sorted subfolder names (`synsets[label]`), images sorted within each; other
 * files are skipped (MXNet warns). Sample `[image (H, W, C) uint8, label]`.
 */
export class ImageFolderDataset extends DecodedImageDataset {
  /** Class names: `synsets[i]` is the name of label `i`. */
  readonly synsets: readonly string[];
  /** `[path, label]` of every image, in sample order. */
  readonly items: readonly (readonly [string, number])[];

  private constructor(
    images: HostArray[],
    synsets: string[],
    items: [string, number][],
    transform: Transform | undefined,
    reload: Reload | undefined,
  ) {
    super(
      images,
      items.map((it) => it[1]),
      transform,
      reload,
    );
    this.synsets = synsets;
    this.items = items;
  }

  /** Lists `root` and decodes every image (Node). */
  static async load(root: string, options: ImageDatasetOptions = {}): Promise<ImageFolderDataset> {
    const op = 'ImageFolderDataset';
    const fs = builtin<NodeFs>('node:fs', op);
    const path = builtin<NodePath>('node:path', op);
    let folders: string[];
    try {
      folders = sortedNames(fs.readdirSync(root));
    } catch (e) {
      throw new MXNetError(`cannot list the folder ${root}`, {
        op,
        cause: e,
        hint: 'root must be a folder of class subfolders',
      });
    }
    const synsets: string[] = [];
    const items: [string, number][] = [];
    for (const folder of folders) {
      const dir = path.join(root, folder);
      if (!fs.statSync(dir).isDirectory()) continue;
      const label = synsets.length;
      synsets.push(folder);
      for (const name of sortedNames(fs.readdirSync(dir))) {
        if (EXTS.includes(path.extname(name).toLowerCase())) items.push([path.join(dir, name), label]);
      }
    }
    const images = await decodeAll(
      items.length,
      (i) => readBytes(fs, (items[i] as [string, number])[0], op),
      (i) => (items[i] as [string, number])[0],
      options,
      op,
    );
    const reload = {
      cls: ImageFolderDataset,
      name: 'ImageFolderDataset',
      args: [path.resolve(root), loadOptions(options)],
    };
    return new ImageFolderDataset(images, synsets, items, options.transform, reload);
  }
}

/** An entry of an in-memory image list: `[label, path]` or `[label1, ..., labelN, path]`. */
export type ImageListEntry = readonly [...(number | readonly number[])[], string];

function labelOf(values: readonly number[], what: string, op: string): ImageLabel {
  if (values.length === 0 || values.some((v) => typeof v !== 'number' || Number.isNaN(v))) {
    throw new MXNetError(`${what} needs numeric labels, got ${JSON.stringify(values)}`, { op });
  }
  if (values.length === 1) return values[0] as number;
  return { data: Float32Array.from(values), shape: [values.length], dtype: 'float32' };
}

/**
 * Images named by a list (MXNet's ImageListDataset): `imglist` is a `.lst` file under `root`
 * (`index\tlabel(s)\tpath` lines, as im2rec writes) or a list of `[label(s)..., path]`; paths are
 * relative to `root`. Sample `[image, label]`.
 */
export class ImageListDataset extends DecodedImageDataset {
  /** `[path, label]` of every image, in sample order. */
  readonly items: readonly (readonly [string, ImageLabel])[];

  private constructor(
    images: HostArray[],
    items: [string, ImageLabel][],
    transform: Transform | undefined,
    reload: Reload | undefined,
  ) {
    super(
      images,
      items.map((it) => it[1]),
      transform,
      reload,
    );
    this.items = items;
  }

  static async load(
    root: string,
    imglist: string | readonly ImageListEntry[],
    options: ImageDatasetOptions = {},
  ): Promise<ImageListDataset> {
    const op = 'ImageListDataset';
    const fs = builtin<NodeFs>('node:fs', op);
    const path = builtin<NodePath>('node:path', op);
    const items: [string, ImageLabel][] = [];
    if (typeof imglist === 'string') {
      const file = path.join(root, imglist);
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8') as string;
      } catch (e) {
        throw new MXNetError(`cannot read the list ${file}`, { op, cause: e });
      }
      text.split(/\r?\n/).forEach((line, n) => {
        if (line.trim() === '') return;
        const parts = line.trim().split('\t');
        if (parts.length < 3) {
          throw new MXNetError(
            `line ${n + 1} of ${file} is not 'index<TAB>label(s)<TAB>path': ${JSON.stringify(line)}`,
            {
              op,
            },
          );
        }
        const labels = parts.slice(1, -1).map(Number);
        items.push([
          path.join(root, parts[parts.length - 1] as string),
          labelOf(labels, `line ${n + 1} of ${file}`, op),
        ]);
      });
    } else if (Array.isArray(imglist)) {
      imglist.forEach((entry, n) => {
        const p = entry[entry.length - 1];
        if (!Array.isArray(entry) || entry.length < 2 || typeof p !== 'string') {
          throw new MXNetError(`imglist[${n}] must be [label(s)..., path], got ${JSON.stringify(entry)}`, {
            op,
          });
        }
        const labels = entry.slice(0, -1).flat() as number[];
        items.push([path.join(root, p), labelOf(labels, `imglist[${n}]`, op)]);
      });
    } else {
      throw new MXNetError('imglist must be the name of a .lst file or a list of [label, path]', { op });
    }
    const images = await decodeAll(
      items.length,
      (i) => readBytes(fs, (items[i] as [string, ImageLabel])[0], op),
      (i) => (items[i] as [string, ImageLabel])[0],
      options,
      op,
    );
    const reload = {
      cls: ImageListDataset,
      name: 'ImageListDataset',
      args: [path.resolve(root), imglist, loadOptions(options)],
    };
    return new ImageListDataset(images, items, options.transform, reload);
  }
}

/** The record source as a worker gets it: absolute paths or bytes; undefined for InMemoryFiles. */
function recordSource(filename: string | RecordFileSource): string | RecordFileSource | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const path = proc?.getBuiltinModule?.('node:path') as NodePath | undefined;
  const one = (x: unknown): unknown =>
    typeof x === 'string'
      ? (path?.resolve(x) ?? x)
      : x instanceof Uint8Array || x instanceof ArrayBuffer
        ? x
        : undefined;
  if (typeof filename === 'string') return one(filename) as string;
  const rec = one(filename.rec);
  const idx = one(filename.idx);
  return rec === undefined || idx === undefined ? undefined : ({ rec, idx } as RecordFileSource);
}

/**
 * The packed images of a RecordIO file (MXNet's ImageRecordDataset): each record is unpacked
 * (IRHeader, then the encoded image) and decoded. Sample `[image, header.label]`. The record file
 * is read once and closed.
 */
export class ImageRecordDataset extends DecodedImageDataset {
  /** The record file (its path, or a name for bytes given in memory). */
  readonly filename: string;

  private constructor(
    images: HostArray[],
    labels: ImageLabel[],
    filename: string,
    transform: Transform | undefined,
    reload: Reload | undefined,
  ) {
    super(images, labels, transform, reload);
    this.filename = filename;
  }

  /** `filename`: the `.rec` path (its `.idx` beside it), or `{ rec, idx }`. */
  static async load(
    filename: string | RecordFileSource,
    options: ImageDatasetOptions = {},
  ): Promise<ImageRecordDataset> {
    const op = 'ImageRecordDataset';
    const records = new RecordFileDataset(filename);
    try {
      const labels: ImageLabel[] = [];
      const payloads: Uint8Array[] = [];
      for (let i = 0; i < records.length; i++) {
        const [header, payload] = recordio.unpack(records.get(i));
        labels.push(
          typeof header.label === 'number' ? header.label : labelOf([...header.label], `record ${i}`, op),
        );
        payloads.push(payload);
      }
      const images = await decodeAll(
        payloads.length,
        (i) => payloads[i] as Uint8Array,
        (i) => `record ${i} (key ${String(records.keys[i])}) of ${records.filename}`,
        options,
        op,
      );
      const source = recordSource(filename);
      const reload =
        source === undefined
          ? undefined
          : { cls: ImageRecordDataset, name: 'ImageRecordDataset', args: [source, loadOptions(options)] };
      return new ImageRecordDataset(images, labels, records.filename, options.transform, reload);
    } finally {
      records.close();
    }
  }
}
