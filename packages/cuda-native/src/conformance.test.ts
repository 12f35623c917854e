/**
 * The golden conformance suite (the same cases cpu-wasm and webgpu pass) on gpu(0) through the
 * NDArray runtime, one test per op — on a machine with a CUDA device. Without one (CI, this
 * machine) it is skipped with createCudaBackend's reason; the kernels are still generated from
 * every case and compiled there (each family's test), and the coverage test below always runs.
 *
 * `MX_CONFORMANCE_FAMILY=shape` / `MX_CONFORMANCE_OP=dot,batch_dot` run a subset while working.
 */
import { describeConformance } from '@mx/conformance';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CUDA, describeCudaKernels } from './backend.js';
import { CUDA_LEFT_OUT } from './kernels/index.js';
import { cudaTarget, cudaTestEnv } from './test-util/gpu.js';

const env = await cudaTestEnv();
if (typeof env === 'string') console.warn(`@mx/cuda-native conformance: skipping: ${env}`);

const list = (v: string | undefined): string[] | undefined => (v ? v.split(',') : undefined);

if (typeof env !== 'string') {
  const target = cudaTarget(env.runtime);
  describeConformance(
    target,
    { describe, it },
    {
      family: list(process.env.MX_CONFORMANCE_FAMILY),
      op: list(process.env.MX_CONFORMANCE_OP),
      timeout: 300_000,
    },
  );
}

describe('cuda coverage', () => {
  it('has a kernel or a reasoned entry for every op cpu-wasm runs', () => {
    const reg = createOpRegistry();
    new CpuWasmBackend({ workers: 0 }).install(reg);
    describeCudaKernels(reg);
    const problems: string[] = [];
    for (const o of reg.list()) {
      const backends = reg.backendsFor(o);
      const onGpu = backends.includes(CUDA);
      const left = CUDA_LEFT_OUT[o.name] !== undefined;
      if (backends.includes('cpu-wasm') && !onGpu && !left)
        problems.push(`${o.name}: no cuda kernel and no reason`);
      if (onGpu && left) problems.push(`${o.name}: has a cuda kernel but is listed as left out`);
    }
    for (const name of Object.keys(CUDA_LEFT_OUT)) {
      if (!reg.has(name)) problems.push(`${name}: listed as left out but not an op`);
    }
    expect(problems).toEqual([]);
  });
});
