/**
 * Type-checks the installed typings as a consumer would, with `skipLibCheck: false` so every
 * published `.d.ts`/`.d.cts` is checked, not just used. Each profile compiles an ESM file
 * (`import * as` each package → `index.d.ts`) and a CommonJS file (`import x = require(...)` →
 * `index.d.cts`) under `module: nodenext`, plus the examples where they fit:
 * - `node`: lib es2022 and Node's types, no DOM (a Node program): every package but @mx/webgpu,
 *   and the Node form of every example that does not import @mx/webgpu;
 * - `es2022`: lib es2022 alone (no host types at all): the same packages;
 * - `dom`: lib es2022 + dom, no Node types (a browser program): every package, @mx/webgpu included.
 * @mx/webgpu's API is written in the standard WebGPU types (GPUDevice, GPUBuffer, ...), which a
 * program gets from TypeScript's lib "dom"/"webworker" (TypeScript 6 declares WebGPU there) or
 * from @webgpu/types, so it is checked in the `dom` profile only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import type { Example } from './examples.js';
import { REPO_ROOT } from './workspace.js';

export interface TypingsProfile {
  readonly name: 'node' | 'es2022' | 'dom';
  readonly lib: readonly string[];
  readonly nodeTypes: boolean;
  /** Packages whose entries are imported. */
  readonly packages: readonly string[];
  /** Examples compiled as modules (their Node form). */
  readonly examples: readonly Example[];
}

export interface TypingsResult {
  readonly profile: TypingsProfile['name'];
  readonly files: number;
  readonly diagnostics: readonly string[];
  readonly ms: number;
}

const GPU_PACKAGES = new Set(['@mx/webgpu']);

/** The three profiles for `packages` (names) and `examples`. */
export function typingsProfiles(packages: readonly string[], examples: readonly Example[]): TypingsProfile[] {
  const hostFree = packages.filter((p) => !GPU_PACKAGES.has(p));
  const nodeExamples = examples.filter((e) => ![...GPU_PACKAGES].some((p) => e.code.includes(`'${p}'`)));
  return [
    { name: 'node', lib: ['es2022'], nodeTypes: true, packages: hostFree, examples: nodeExamples },
    { name: 'es2022', lib: ['es2022'], nodeTypes: false, packages: hostFree, examples: [] },
    { name: 'dom', lib: ['es2022', 'dom'], nodeTypes: false, packages, examples: [] },
  ];
}

const ident = (pkg: string): string => pkg.replace(/^@mx\//, '').replace(/[^a-zA-Z0-9]/g, '_');

/** Write the profile's files under `scratch/typings-<name>/` and type-check them. */
export function checkTypings(scratch: string, profile: TypingsProfile): TypingsResult {
  const t = performance.now();
  const dir = join(scratch, `typings-${profile.name}`);
  mkdirSync(dir, { recursive: true });
  const esm = profile.packages.map((p) => `import * as ${ident(p)} from '${p}';`);
  const cjs = profile.packages.map((p) => `import ${ident(p)} = require('${p}');`);
  const use = `export const all = [${profile.packages.map(ident).join(', ')}];\n`;
  const files = [join(dir, 'entries.mts'), join(dir, 'entries.cts')];
  writeFileSync(files[0] as string, `${esm.join('\n')}\n${use}`);
  writeFileSync(files[1] as string, `${cjs.join('\n')}\n${use}`);
  for (const ex of profile.examples) {
    const file = join(dir, `example-${ex.slug}.mts`);
    writeFileSync(file, `${ex.code}\nexport {};\n`);
    files.push(file);
  }
  const typeRoots = profile.nodeTypes
    ? [dirname(dirname(createRequire(join(REPO_ROOT, 'package.json')).resolve('@types/node/package.json')))]
    : [];
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: profile.lib.map((l) => `lib.${l}.d.ts`),
    types: profile.nodeTypes ? ['node'] : [],
    typeRoots,
  };
  const program = ts.createProgram(files, options);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (d.file === undefined || d.start === undefined) return message;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${relative(scratch, d.file.fileName)}:${line + 1}:${character + 1}: ${message}`;
  });
  return { profile: profile.name, files: files.length, diagnostics, ms: performance.now() - t };
}
