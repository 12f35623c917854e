/**
 * docs/cuda-coverage.md: which ops cuda-native runs, in which dtypes, and why the others are left
 * out — rendered from registries (cpu-wasm's kernels and cuda-native's, installed without a device
 * by `describeCudaKernels`). A test renders it again and fails when the committed file is stale.
 */
import { CPU_WASM_COMPUTE_DTYPES, CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry, type OpRegistry } from '@mx/ops';
import { CUDA, describeCudaKernels } from '../src/backend.js';
import { CUDA_DTYPES } from '../src/cuda-c.js';
import { CUDA_LEFT_OUT } from '../src/kernels/index.js';

function dtypesOf(registry: OpRegistry, op: string, backend: string, all: readonly string[]): string {
  const o = registry.get(op);
  if (!registry.backendsFor(o).includes(backend)) return '';
  return (registry.kernel(o, backend)?.dtypes ?? all).join(', ');
}

export function renderCudaCoverage(): string {
  const registry = createOpRegistry();
  new CpuWasmBackend({ initialPages: 1, workers: 0 }).install(registry);
  describeCudaKernels(registry);
  const rows: string[] = [];
  let both = 0;
  let cpuOnly = 0;
  for (const op of registry.list()) {
    const cpu = dtypesOf(registry, op.name, 'cpu-wasm', CPU_WASM_COMPUTE_DTYPES);
    const gpu = dtypesOf(registry, op.name, CUDA, CUDA_DTYPES);
    if (cpu === '' && gpu === '') continue;
    if (cpu !== '' && gpu !== '') both++;
    if (cpu !== '' && gpu === '') cpuOnly++;
    const why = CUDA_LEFT_OUT[op.name];
    rows.push(
      `| \`${op.name}\` | ${cpu || '—'} | ${gpu !== '' ? gpu : why !== undefined ? `— (${why})` : '—'} |`,
    );
  }
  return `# Operator coverage: cuda-native

Generated from the operator registry by \`packages/cuda-native/scripts/gen-coverage.ts\` (do not edit;
\`pnpm --filter @mx/cuda-native gen:coverage\`). Each cell lists the dtypes the backend's kernel computes
the op in. ${both} ops have a CUDA kernel; ${cpuOnly} run on cpu-wasm only (each with the reason).
Every CUDA kernel's source is generated from the conformance cases and compiled with nvcc and NVRTC
in CI, and run on the CPU by a g++ emulation of CUDA's execution model against the golden values;
the conformance suite also passed on an NVIDIA H100 (see the package README).

| Operator | cpu-wasm | cuda |
| --- | --- | --- |
${rows.join('\n')}
`;
}
