/**
 * Generates, from the operator registry (run with `pnpm --filter @mx/ndarray gen:ops`):
 * - src/core-ops.ts: the params interface of every core op and a typed member of `nd` for every
 *   core op name and alias (inputs, typed params, outputs, docs), so `nd.dot(a, b, { transpose_b:
 *   true })` is checked by the compiler and documented on hover;
 * - ../../docs/operators.md: every op with its aliases, inputs, parameters (MXNet's docs strings)
 *   and the backends that run it.
 * The rendering lives in src/codegen/ (pure), which the drift test in src/core-ops.test.ts runs
 * again to fail when a committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry } from '@mx/ops';
import { renderCoreOps, renderOperatorsDoc } from '../src/codegen/op-decls.js';

const registry = createOpRegistry();
const backends = [new CpuWasmBackend({ initialPages: 1 })];
for (const b of backends) b.install(registry);

const { coreOps, notes } = renderCoreOps(registry);
writeFileSync(fileURLToPath(new URL('../src/core-ops.ts', import.meta.url)), coreOps);
writeFileSync(
  fileURLToPath(new URL('../../../docs/operators.md', import.meta.url)),
  renderOperatorsDoc(registry, backends),
);
for (const n of notes) console.log(`approximate: ${n}`);
console.log(`${registry.names().length} op names, ${registry.list().length} ops`);
