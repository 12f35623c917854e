/**
 * The golden conformance suite (the same cases cpu-wasm passes) on gpu(0), through the NDArray
 * runtime: one test per op. Cases with dtypes WebGPU cannot hold (float64, int64, int8, uint8…)
 * are skipped by the target with that reason; ops listed in a family's `left-out.ts` are skipped
 * with theirs. The coverage test keeps those lists honest: every op cpu-wasm runs has a webgpu
 * kernel or an entry, and no entry names an op that has a kernel.
 *
 * `MX_CONFORMANCE_FAMILY=shape` / `MX_CONFORMANCE_OP=dot,batch_dot` run a subset while working.
 */
import { describeConformance, ndarrayTarget } from '@mx/conformance';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { describeWebGpuKernels, WEBGPU } from './backend.js';
import { WEBGPU_LEFT_OUT } from './kernels/index.js';
import { GPU, gpuTestEnv } from './test-util/gpu.js';

const env = await gpuTestEnv();
if (typeof env === 'string') console.warn(`@mx/webgpu conformance: skipping: ${env}`);

const list = (v: string | undefined): string[] | undefined => (v ? v.split(',') : undefined);
const family = list(process.env.MX_CONFORMANCE_FAMILY);
const op = list(process.env.MX_CONFORMANCE_OP);

if (typeof env !== 'string') {
  const { runtime } = env;
  const base = ndarrayTarget(runtime, GPU);
  const target = {
    ...base,
    skip: (c: Parameters<NonNullable<typeof base.skip>>[0]) => {
      const name = runtime.registry.has(c.op) ? runtime.registry.get(c.op).name : c.op;
      const why = WEBGPU_LEFT_OUT[name];
      return why !== undefined ? `not on webgpu: ${why}` : base.skip?.(c);
    },
  };
  describeConformance(target, { describe, it }, { family, op, timeout: 300_000 });
}

describe('webgpu coverage', () => {
  it('has a kernel or a reasoned entry for every op cpu-wasm runs', () => {
    const reg = createOpRegistry();
    new CpuWasmBackend({ workers: 0 }).install(reg);
    describeWebGpuKernels(reg);
    const problems: string[] = [];
    for (const o of reg.list()) {
      const backends = reg.backendsFor(o);
      const onGpu = backends.includes(WEBGPU);
      const left = WEBGPU_LEFT_OUT[o.name] !== undefined;
      if (backends.includes('cpu-wasm') && !onGpu && !left)
        problems.push(`${o.name}: no webgpu kernel and no reason`);
      if (onGpu && left) problems.push(`${o.name}: has a webgpu kernel but is listed as left out`);
    }
    for (const name of Object.keys(WEBGPU_LEFT_OUT)) {
      if (!reg.has(name)) problems.push(`${name}: listed as left out but not an op`);
    }
    expect(problems).toEqual([]);
  });
});
