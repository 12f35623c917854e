/**
 * The `mx-im2rec` command (MXNet's tools/im2rec.py): `--list` makes `.lst` files from an image
 * folder, otherwise the lists are packed into `.rec` + `.idx`. Arguments follow im2rec's argparse
 * definition (flags, `--exts` taking one or more values, `--opt=value`, unique prefixes of long
 * options); a bad command line prints the usage and gives exit code 1, as argparse does (2 there).
 * `im2recMain(argv, io)` returns the exit code instead of exiting, so it can be tested and embedded;
 * `bin/mx-im2rec.js` calls it. A progress line is drawn on stderr when it is a TTY.
 */
import { MXNetError } from '@mx/base';
import { DEFAULT_EXTS, makeList } from './lst.js';
import { type PackOptions, packLists } from './pack.js';

/** im2rec's parsed command line. */
export interface Im2recArgs {
  readonly prefix: string;
  readonly root: string;
  readonly list: boolean;
  readonly exts: readonly string[];
  readonly chunks: number;
  readonly trainRatio: number;
  readonly testRatio: number;
  readonly recursive: boolean;
  readonly shuffle: boolean;
  readonly passThrough: boolean;
  readonly resize: number;
  readonly centerCrop: boolean;
  readonly quality: number;
  readonly numThread: number;
  readonly color: -1 | 0 | 1;
  readonly encoding: '.jpg' | '.png';
  readonly packLabel: boolean;
}

type Kind = 'flag' | 'int' | 'float' | 'list' | 'choice';
interface Spec {
  readonly key: keyof Im2recArgs;
  readonly kind: Kind;
  readonly choices?: readonly string[];
  readonly help: string;
}

const SPECS: Record<string, Spec> = {
  '--list': {
    key: 'list',
    kind: 'flag',
    help: 'make image list(s) from ROOT into PREFIX.lst (else pack PREFIX*.lst)',
  },
  '--exts': { key: 'exts', kind: 'list', help: `accepted extensions (default ${DEFAULT_EXTS.join(' ')})` },
  '--chunks': { key: 'chunks', kind: 'int', help: 'number of chunks (default 1)' },
  '--train-ratio': {
    key: 'trainRatio',
    kind: 'float',
    help: 'fraction of images for training (default 1.0)',
  },
  '--test-ratio': { key: 'testRatio', kind: 'float', help: 'fraction of images for testing (default 0)' },
  '--recursive': { key: 'recursive', kind: 'flag', help: 'walk sub-folders, one label per folder' },
  '--no-shuffle': {
    key: 'shuffle',
    kind: 'flag',
    help: 'keep the listing order (default: shuffled, seed 100)',
  },
  '--pass-through': { key: 'passThrough', kind: 'flag', help: 'pack the files as they are' },
  '--resize': { key: 'resize', kind: 'int', help: 'resize the shorter side to this (default 0: keep)' },
  '--center-crop': { key: 'centerCrop', kind: 'flag', help: 'crop the centred square first' },
  '--quality': {
    key: 'quality',
    kind: 'int',
    help: 'JPEG quality 1-100, or PNG compression 0-9 (default 95)',
  },
  '--num-thread': { key: 'numThread', kind: 'int', help: 'images encoded at once (default 1)' },
  '--color': {
    key: 'color',
    kind: 'choice',
    choices: ['-1', '0', '1'],
    help: '1 color (default), 0 gray, -1 as stored (with alpha)',
  },
  '--encoding': {
    key: 'encoding',
    kind: 'choice',
    choices: ['.jpg', '.png'],
    help: '.jpg (default) or .png',
  },
  '--pack-label': { key: 'packLabel', kind: 'flag', help: 'store all the labels of multi-label lines' },
};

/** The usage text (`mx-im2rec --help`). */
export function im2recUsage(): string {
  const rows = Object.entries(SPECS).map(([name, s]) => {
    const arg =
      s.kind === 'flag'
        ? ''
        : s.kind === 'list'
          ? ' EXT [EXT ...]'
          : s.choices
            ? ` {${s.choices.join(',')}}`
            : ' N';
    return `  ${`${name}${arg}`.padEnd(28)} ${s.help}`;
  });
  return [
    'usage: mx-im2rec [options] PREFIX ROOT',
    '',
    'Create an image list (--list) or pack the images of PREFIX*.lst into .rec + .idx record files.',
    '',
    '  PREFIX                       prefix of the .lst / .rec / .idx files',
    '  ROOT                         folder holding the images',
    '  -h, --help                   show this help',
    ...rows,
    '',
  ].join('\n');
}

/** A command-line error (usage printed, exit code 1). */
export class Im2recUsageError extends Error {
  override readonly name = 'Im2recUsageError';
}

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

function lookup(name: string): [string, Spec] {
  const exact = SPECS[name];
  if (exact) return [name, exact];
  const hits = Object.keys(SPECS).filter((k) => k.startsWith(name));
  if (hits.length === 1) return [hits[0] as string, SPECS[hits[0] as string] as Spec];
  throw new Im2recUsageError(
    hits.length
      ? `ambiguous option: ${name} could match ${hits.join(', ')}`
      : `unrecognized argument: ${name}`,
  );
}

function convert(name: string, spec: Spec, value: string): unknown {
  if (spec.kind === 'int') {
    if (!/^\s*[+-]?\d+\s*$/.test(value)) throw new Im2recUsageError(`${name}: invalid int value: '${value}'`);
    return Number(value);
  }
  if (spec.kind === 'float') {
    const n = Number(value);
    if (value.trim() === '' || Number.isNaN(n))
      throw new Im2recUsageError(`${name}: invalid float value: '${value}'`);
    return n;
  }
  if (spec.choices && !spec.choices.includes(value)) {
    throw new Im2recUsageError(
      `${name}: invalid choice: '${value}' (choose from ${spec.choices.join(', ')})`,
    );
  }
  return spec.key === 'color' ? Number(value) : value;
}

/** Parses im2rec's command line; `'help'` for -h/--help. Throws {@link Im2recUsageError}. */
export function parseIm2recArgs(argv: readonly string[]): Im2recArgs | 'help' {
  const out: Record<string, unknown> = {
    list: false,
    exts: [...DEFAULT_EXTS],
    chunks: 1,
    trainRatio: 1,
    testRatio: 0,
    recursive: false,
    shuffle: true,
    passThrough: false,
    resize: 0,
    centerCrop: false,
    quality: 95,
    numThread: 1,
    color: 1,
    encoding: '.jpg',
    packLabel: false,
  };
  const positional: string[] = [];
  const isOption = (a: string | undefined) =>
    a?.startsWith('-') === true && a !== '-' && !NEGATIVE_NUMBER.test(a);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') return 'help';
    if (!isOption(arg)) {
      positional.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw new Im2recUsageError(`unrecognized argument: ${arg}`);
    const eq = arg.indexOf('=');
    const [name, spec] = lookup(eq < 0 ? arg : arg.slice(0, eq));
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    if (spec.kind === 'flag') {
      if (inline !== undefined) throw new Im2recUsageError(`${name}: ignored explicit argument '${inline}'`);
      out[spec.key] = spec.key !== 'shuffle';
      continue;
    }
    if (spec.kind === 'list') {
      const values = inline !== undefined ? [inline] : [];
      while (inline === undefined && i + 1 < argv.length && !isOption(argv[i + 1]))
        values.push(argv[++i] as string);
      if (!values.length) throw new Im2recUsageError(`${name}: expected at least one argument`);
      out[spec.key] = values;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= argv.length || isOption(argv[i + 1]))
        throw new Im2recUsageError(`${name}: expected one argument`);
      value = argv[++i] as string;
    }
    out[spec.key] = convert(name, spec, value);
  }
  if (positional.length < 2) {
    const missing = ['PREFIX', 'ROOT'].slice(positional.length).join(', ');
    throw new Im2recUsageError(`the following arguments are required: ${missing}`);
  }
  if (positional.length > 2)
    throw new Im2recUsageError(`unrecognized arguments: ${positional.slice(2).join(' ')}`);
  return {
    ...(out as Omit<Im2recArgs, 'prefix' | 'root'>),
    prefix: positional[0] as string,
    root: positional[1] as string,
  };
}

/** Where `im2recMain` writes (defaults: the process's streams). */
export interface Im2recIO {
  readonly stdout?: { write(s: string): unknown };
  readonly stderr?: { write(s: string): unknown; readonly isTTY?: boolean };
}

function processStreams(): Required<Im2recIO> {
  const proc = (globalThis as { process?: { stdout?: Im2recIO['stdout']; stderr?: Im2recIO['stderr'] } })
    .process;
  const sink = { write: (_s: string) => true };
  return { stdout: proc?.stdout ?? sink, stderr: proc?.stderr ?? sink };
}

/** What im2rec needs of cli-progress's SingleBar. */
interface ProgressBar {
  start(total: number, value: number, payload?: Record<string, unknown>): void;
  update(value: number, payload?: Record<string, unknown>): void;
  setTotal(total: number): void;
  stop(): void;
}
type BarFactory = (stream: Required<Im2recIO>['stderr']) => ProgressBar;

/**
 * cli-progress's bar, loaded when im2rec runs on a TTY (a computed specifier, so that browser
 * bundles of @mx/io never resolve it or its Node-only imports).
 */
async function loadBar(): Promise<BarFactory | undefined> {
  const specifier = 'cli-progress';
  try {
    const mod = (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as {
      default?: {
        SingleBar: new (o: object, preset: object) => ProgressBar;
        Presets: Record<string, object>;
      };
    } & { SingleBar?: new (o: object, preset: object) => ProgressBar; Presets?: Record<string, object> };
    const lib = mod.default ?? mod;
    const { SingleBar, Presets } = lib as Required<typeof mod>['default'];
    return (stream) =>
      new SingleBar(
        {
          stream,
          format: '{bar} {percentage}% | {value}/{total} images | {lst}',
          hideCursor: true,
          clearOnComplete: false,
        },
        Presets.shades_classic ?? {},
      );
  } catch {
    return undefined;
  }
}

/**
 * Progress on stderr: cli-progress's bar on a TTY (one per list), else one line per 1000 images,
 * as im2rec logs.
 */
function progressReporter(
  err: Required<Im2recIO>['stderr'],
  makeBar: BarFactory | undefined,
): PackOptions['onProgress'] {
  let bar: ProgressBar | undefined;
  let current = '';
  return (done, total, lst) => {
    const name = lst.split(/[\\/]/).pop() ?? lst;
    if (err.isTTY && makeBar !== undefined) {
      if (bar === undefined || lst !== current) {
        bar?.stop();
        bar = makeBar(err);
        current = lst;
        bar.start(total, done, { lst: name });
      } else bar.update(done, { lst: name });
      if (done === total) {
        bar.stop();
        bar = undefined;
      }
    } else if (done % 1000 === 0 || done === total) {
      err.write(`${lst}: ${done}/${total}\n`);
    }
  };
}

/**
 * Runs im2rec on a command line (without the program name) and resolves to the exit code:
 * 0 done, 1 for a bad command line (usage printed) or an MXNetError (its message printed).
 * Skipped images are reported on stderr and do not fail the run, as in im2rec.
 */
export async function im2recMain(argv: readonly string[], io: Im2recIO = {}): Promise<number> {
  const std = processStreams();
  const out = io.stdout ?? std.stdout;
  const err = io.stderr ?? std.stderr;
  let args: Im2recArgs | 'help';
  try {
    args = parseIm2recArgs(argv);
  } catch (e) {
    if (!(e instanceof Im2recUsageError)) throw e;
    err.write(`${im2recUsage()}mx-im2rec: error: ${e.message}\n`);
    return 1;
  }
  if (args === 'help') {
    out.write(im2recUsage());
    return 0;
  }
  try {
    if (args.list) {
      const { files, classes } = makeList(args);
      for (const [folder, label] of classes) out.write(`${folder} ${label}\n`);
      for (const f of files) out.write(`wrote ${f.path} (${f.count} images)\n`);
      return 0;
    }
    const results = await packLists(args.prefix, args.root, {
      ...args,
      onWarning: (m) => err.write(`warning: ${m}\n`),
      onProgress: progressReporter(err, err.isTTY ? await loadBar() : undefined),
    });
    for (const r of results) {
      out.write(`wrote ${r.rec} and ${r.idx} from ${r.lst}: ${r.written} records, ${r.skipped} skipped\n`);
    }
    return 0;
  } catch (e) {
    if (!(e instanceof MXNetError)) throw e;
    err.write(`mx-im2rec: error: ${e.message}\n`);
    return 1;
  }
}
