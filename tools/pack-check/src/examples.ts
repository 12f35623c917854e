/**
 * The README examples the pack check runs against the installed tarballs, and their three forms.
 *
 * Sources: every ```ts run block of a package README (expected output from its `// → text`
 * comments, as @mx/test-kit reads them), plus the root README's "NDArray in a few lines" (expected
 * output from its trailing comments; in Node the saved file is then checked against MXNet's list
 * format and loaded back) and "Training in a few lines" (a fragment: it gets a runtime and a batch
 * of random inputs before it and checks after it that the gradients have the parameters' shapes,
 * that the first loss is ln(10) for near-zero weights and that the SGD step lowered it).
 *
 * Forms: TypeScript types are stripped with esbuild; ESM keeps top-level await; CommonJS gets its
 * imports turned into `require` calls and its body wrapped in an async function; the browser form is
 * the ESM one, minus statements that need Node files (saving to a path) or skipped with the reason
 * when the example cannot run without them. Printing goes through a `console.log` replacement that
 * formats arguments like @mx/test-kit (strings as is, other values as JSON).
 */
import { readmeExamples } from '@mx/test-kit';
import { transform } from 'esbuild';

export interface Example {
  /** Where it comes from, e.g. `packages/ndarray/README.md #2`. */
  readonly id: string;
  /** File-name slug, e.g. `ndarray-2`. */
  readonly slug: string;
  /** The TypeScript module run in Node (ESM and CommonJS). */
  readonly code: string;
  /** The printed lines the run must produce, in order. */
  readonly expected: readonly string[];
  /** The browser form's source and what was left out of it, or why it does not run there. */
  readonly browser:
    | { readonly code: string; readonly expected: readonly string[]; readonly note?: string }
    | { readonly skip: string };
}

/** Examples that read @mx/io's embedded data files (node:fs) cannot run in a page. */
const NEEDS_NODE_FILES = /\b(mnistTrainIter|mnistValIter|embeddedMnist)\s*\(/;
/** Examples importing Node built-ins (temporary folders for checkpoint files) cannot run in a page. */
const NODE_BUILTINS = /from\s+'node:[a-z_/]+'/;
/** A statement saving to a path: dropped from the browser form (it prints nothing). */
const SAVE_TO_PATH = /^\s*await nd\.save\(\s*'[^']*'.*$\n?/gm;

function browserForm(code: string, expected: readonly string[]): Example['browser'] {
  if (NEEDS_NODE_FILES.test(code)) {
    return { skip: "reads @mx/io's embedded MNIST files, which needs node:fs" };
  }
  if (NODE_BUILTINS.test(code)) return { skip: 'imports Node built-ins (files on disk)' };
  const withoutSave = code.replace(SAVE_TO_PATH, '');
  return withoutSave === code
    ? { code, expected }
    : { code: withoutSave, expected, note: 'nd.save to a path left out (needs node:fs)' };
}

/** The ```ts run blocks of a package README (read as @mx/test-kit reads them for the package tests). */
export function packageReadmeExamples(dir: string, markdown: string): Example[] {
  const name = dir.split('/').pop() as string;
  return readmeExamples(markdown).map(({ index, code, expected }) => ({
    id: `${dir}/README.md #${index}`,
    slug: `${name}-${index}`,
    code,
    expected,
    browser: browserForm(code, expected),
  }));
}

/** The first ```ts block under a `## heading` of the root README, or an error naming the heading. */
function sectionCode(markdown: string, heading: string): string {
  const at = markdown.indexOf(`\n## ${heading}\n`);
  const next = markdown.indexOf('\n## ', at + 1);
  const section = at < 0 ? '' : markdown.slice(at, next < 0 ? undefined : next);
  const m = /```ts\n([\s\S]*?)```/.exec(section);
  if (m === null)
    throw new Error(`README.md: no \`\`\`ts block under "## ${heading}" (the pack check runs it)`);
  return m[1] as string;
}

/**
 * Expected output of the root README's `console.log(...); // [6, 15]` lines: the comment up to an
 * explanation after ": ", with the spaces a reader's formatting adds removed from JSON values.
 */
export function trailingCommentOutputs(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/^\s*console\.log\(.*\);\s*\/\/\s*(.*)$/gm)) {
    const comment = (m[1] as string).split(/:\s/)[0]?.trim() ?? '';
    out.push(/^[[{"\d-]/.test(comment) ? comment.replace(/\s+/g, '') : comment);
  }
  return out;
}

/** After the NDArray snippet (Node): the saved file in MXNet's legacy list format, loaded back. */
const NDARRAY_EPILOGUE = `
// pack check: arrays.params is MXNet's list format (u64 0x112, u64 0, u64 N=2, then two dense
// float32 records of 4+4+(4+2*8)+8+4 header bytes plus data (24 and 16 bytes), then K=2 names).
const { readFileSync } = await import('node:fs');
const saved = readFileSync('arrays.params');
console.log(String(saved.length), saved.readBigUInt64LE(0).toString(16), String(saved.readBigUInt64LE(8)), String(saved.readBigUInt64LE(16)));
const back = (await nd.load('arrays.params')) as Record<string, typeof y>;
console.log(Object.keys(back).sort(), await back.y?.array());
`;
/** 24 header + 64 + 56 record bytes + 8 + (8 + 1) * 2 name bytes = 170. */
const NDARRAY_EPILOGUE_EXPECTED = ['170 112 0 2', '["x","y"] [[14,32],[32,77]]'];

const TRAINING_PRELUDE = `import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';

// pack check: a runtime and a batch (64 random "images" in [0, 1), labels 0..9) for the fragment.
const { nd, autograd } = createRuntime({ backends: [new CpuWasmBackend()] });
const x = nd._random_uniform({ low: 0, high: 1, shape: [64, 784] });
const label = nd.array(Array.from({ length: 64 }, (_, i) => i % 10));
`;
const TRAINING_EPILOGUE = `
// pack check: gradients shaped like the parameters; with weights ~N(0, 0.01^2) the logits are
// near zero, so the first loss is close to ln(10); one SGD step on this batch lowers it.
const after = nd.negative(nd.mean(nd.pick(nd.log_softmax(nd.FullyConnected(x, w, b, { num_hidden: 10 })), label)));
const [l0, l1] = [Number(await loss.item()), Number(await after.item())];
console.log(w.grad?.shape, b.grad?.shape);
console.log(Math.abs(l0 - Math.log(10)) < 0.1, l1 < l0);
`;
const TRAINING_EXPECTED = ['[10,784] [10]', 'true true'];

/** The two examples of the root README. */
export function rootReadmeExamples(markdown: string): Example[] {
  const ndarray = sectionCode(markdown, 'NDArray in a few lines');
  const ndExpected = trailingCommentOutputs(ndarray);
  if (!/await nd\.save\('arrays\.params'/.test(ndarray)) {
    throw new Error(
      "README.md: the NDArray example no longer saves to 'arrays.params' (update the pack check)",
    );
  }
  const training = `${TRAINING_PRELUDE}\n${sectionCode(markdown, 'Training in a few lines')}${TRAINING_EPILOGUE}`;
  return [
    {
      id: 'README.md: NDArray in a few lines',
      slug: 'root-ndarray',
      code: `${ndarray}${NDARRAY_EPILOGUE}`,
      expected: [...ndExpected, ...NDARRAY_EPILOGUE_EXPECTED],
      browser: browserForm(ndarray, ndExpected),
    },
    {
      id: 'README.md: Training in a few lines',
      slug: 'root-training',
      code: training,
      expected: TRAINING_EXPECTED,
      browser: browserForm(training, TRAINING_EXPECTED),
    },
  ];
}

/** Marks the lines the examples print in a Node run's stdout. */
export const PRINT_MARK = '\u241e';

const FORMAT = `(args) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')`;
const NODE_PRELUDE = `const __mxFormat = ${FORMAT};
console.log = (...args) => { process.stdout.write('${PRINT_MARK}' + __mxFormat(args) + '\\n'); };
`;
const BROWSER_PRELUDE = `const __mxFormat = ${FORMAT};
console.log = (...args) => { globalThis.__mxPrinted.push(__mxFormat(args)); };
`;

/** Split a module's leading import statements from its body. */
export function splitImports(code: string): { imports: string; body: string } {
  const imports: string[] = [];
  const body = code.replace(/^import\b[^;]*;[ \t]*$\n?/gm, (s) => {
    imports.push(s.trimEnd());
    return '';
  });
  return { imports: imports.join('\n'), body };
}

export type ModuleForm = 'esm' | 'cjs' | 'browser';

/** The JavaScript of one form of an example (types stripped by esbuild). */
export async function exampleModule(code: string, form: ModuleForm): Promise<string> {
  const { imports, body } = splitImports(code);
  const prelude = form === 'browser' ? BROWSER_PRELUDE : NODE_PRELUDE;
  const source =
    form === 'cjs'
      ? `${imports}\n${prelude}async function __mxMain() {\n${body}\n}\n__mxMain().catch((e) => {\n  console.error(e);\n  process.exitCode = 1;\n});\n`
      : `${imports}\n${prelude}${body}`;
  const out = await transform(source, {
    loader: 'ts',
    format: form === 'cjs' ? 'cjs' : 'esm',
    target: 'es2022',
    sourcefile: `example.${form === 'cjs' ? 'cts' : 'mts'}`,
  });
  return out.code;
}
