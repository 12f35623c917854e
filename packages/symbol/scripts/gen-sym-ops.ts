/**
 * Generates src/symbol/sym-ops.ts — the typed `sym.<Op>` members — from the operator registry
 * (run with `npx tsx packages/symbol/scripts/gen-sym-ops.ts`). The registry is the one a default
 * Runtime has (core ops + the cpu-wasm backend's), as for @mx/ndarray's generated `nd` surface,
 * whose params types the file imports. The rendering lives in src/symbol/codegen.ts (pure); the
 * drift test in src/symbol/sym-ops.test.ts renders again and fails when the committed file is stale.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry } from '@mx/ops';
import { renderSymOps } from '../src/symbol/codegen.js';

const registry = createOpRegistry();
const backend = new CpuWasmBackend({ initialPages: 1 });
backend.install(registry);
const target = fileURLToPath(new URL('../src/symbol/sym-ops.ts', import.meta.url));
writeFileSync(target, renderSymOps(registry));
backend.dispose();
const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
execFileSync(process.execPath, [biome, 'format', '--write', target], {
  cwd: fileURLToPath(new URL('../../..', import.meta.url)),
  stdio: 'inherit',
});
console.log(`${registry.names().length} op names, ${registry.list().length} ops`);
