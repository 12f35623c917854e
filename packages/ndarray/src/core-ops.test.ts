/**
 * Drift test for the generated files: re-renders src/core-ops.ts and docs/operators.md from the
 * registry (as scripts/gen-ops.ts does, formatted by biome like the script) and fails on the first
 * line that differs from the committed file.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry } from '@mx/ops';
import { expect, it } from 'vitest';
import { renderCoreOps, renderOperatorsDoc } from './codegen/op-decls.js';

const rootDir = fileURLToPath(new URL('../../..', import.meta.url));
const REGEN = 'run `pnpm --filter @mx/ndarray gen:ops`';

function firstDifference(file: string, expected: string, actual: string): string | undefined {
  if (expected === actual) return undefined;
  const e = expected.split('\n');
  const a = actual.split('\n');
  const i = e.findIndex((line, k) => line !== a[k]);
  const at = i < 0 ? e.length : i;
  return `${file} is stale (${REGEN}): line ${at + 1} should be ${JSON.stringify(e[at])}, is ${JSON.stringify(a[at])}`;
}

function biomeFormat(text: string, path: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${path}`], {
    input: text,
    cwd: rootDir,
    encoding: 'utf8',
  });
}

it('src/core-ops.ts and docs/operators.md are what the registry generates', () => {
  const registry = createOpRegistry();
  const backend = new CpuWasmBackend({ initialPages: 1 });
  try {
    backend.install(registry);
    const coreOps = biomeFormat(renderCoreOps(registry).coreOps, 'packages/ndarray/src/core-ops.ts');
    const committedOps = readFileSync(new URL('./core-ops.ts', import.meta.url), 'utf8');
    expect(firstDifference('src/core-ops.ts', coreOps, committedOps)).toBeUndefined();
    const doc = biomeFormat(renderOperatorsDoc(registry, [backend]), 'docs/operators.md');
    const committedDoc = readFileSync(new URL('../../../docs/operators.md', import.meta.url), 'utf8');
    expect(firstDifference('docs/operators.md', doc, committedDoc)).toBeUndefined();
  } finally {
    backend.dispose();
  }
});
