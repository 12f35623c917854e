/**
 * The op × backend × dtype table (docs/backend-coverage.md), rendered from registries: cpu-wasm's
 * and webgpu's kernels are installed into one registry (webgpu without a device, see
 * `describeWebGpuKernels`), and each op's row lists the dtypes each backend computes it in, or why
 * webgpu leaves it out. A test renders it again and fails when the committed file is stale.
 */
import { CPU_WASM_COMPUTE_DTYPES, CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry, type OpRegistry } from '@mx/ops';
import { describeWebGpuKernels, WEBGPU_DTYPES } from '../src/backend.js';
import { WEBGPU_LEFT_OUT } from '../src/kernels/index.js';

function dtypesOf(registry: OpRegistry, op: string, backend: string, all: readonly string[]): string {
  const o = registry.get(op);
  if (!registry.backendsFor(o).includes(backend)) return '';
  const k = registry.kernel(o, backend);
  const list = k?.dtypes ?? all;
  return list.join(', ');
}

export function renderCoverage(): string {
  const registry = createOpRegistry();
  new CpuWasmBackend({ initialPages: 1, workers: 0 }).install(registry);
  describeWebGpuKernels(registry);
  const rows: string[] = [];
  let both = 0;
  let cpuOnly = 0;
  for (const op of registry.list()) {
    const cpu = dtypesOf(registry, op.name, 'cpu-wasm', CPU_WASM_COMPUTE_DTYPES);
    const gpu = dtypesOf(registry, op.name, 'webgpu', WEBGPU_DTYPES);
    if (cpu === '' && gpu === '') continue;
    if (cpu !== '' && gpu !== '') both++;
    if (cpu !== '' && gpu === '') cpuOnly++;
    const why = WEBGPU_LEFT_OUT[op.name];
    const gpuCell = gpu !== '' ? gpu : why !== undefined ? `— (${why})` : '—';
    rows.push(`| \`${op.name}\` | ${cpu || '—'} | ${gpuCell} |`);
  }
  return `# Operator coverage by backend

Generated from the operator registry by \`packages/webgpu/scripts/gen-coverage.ts\` (do not edit;
\`pnpm --filter @mx/webgpu gen:coverage\`). Each cell lists the dtypes the backend's kernel computes
the op in; webgpu also computes in float16 where the adapter has \`shader-f16\` and the kernel allows it.
Ops that only move data also accept the storage dtypes of their backend. ${both} ops run on both
backends; ${cpuOnly} run on cpu-wasm only${cpuOnly > 0 ? ' (each with the reason)' : ''}.

| Operator | cpu-wasm | webgpu |
| --- | --- | --- |
${rows.join('\n')}
`;
}
