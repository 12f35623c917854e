/**
 * The np_creation golden cases (tools/golden/ops/np_creation.py, NumPy 1.24.2) on gpu(0) through
 * the conformance runner, as the webgpu conformance suite will run them once the family is listed
 * in golden.ts: the generators and tril/triu kernels of this folder and the `via` ops (fills, eye,
 * arange, diag) on the legacy webgpu kernels. Cases with dtypes WebGPU cannot hold are skipped by
 * the target; the coverage check asserts every op of the area has a webgpu kernel.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeFile, ndarrayTarget, runCase } from '@mx/conformance';
import { describe, expect, it } from 'vitest';
import { GPU, gpuTestEnv } from '../../../test-util/gpu.js';

const file = fileURLToPath(
  new URL('../../../../../conformance/src/__golden__/np_creation.json', import.meta.url),
);
const cases = decodeFile(JSON.parse(readFileSync(file, 'utf8')));
const env = await gpuTestEnv();

describe.skipIf(typeof env === 'string')('np_creation golden cases on webgpu', () => {
  it('every op of the area has a webgpu kernel', () => {
    if (typeof env === 'string') return;
    const reg = env.runtime.registry;
    const ops = [...new Set(cases.map((c) => reg.get(c.op).name))];
    expect(ops.filter((op) => !reg.backendsFor(reg.get(op)).includes('webgpu'))).toEqual([]);
  });

  it('every case matches NumPy (or is skipped for a dtype WebGPU cannot hold)', async () => {
    if (typeof env === 'string') return;
    const target = ndarrayTarget(env.runtime, GPU);
    const failures: string[] = [];
    let passed = 0;
    for (const c of cases) {
      const why = target.skip?.(c);
      if (why !== undefined) continue;
      const r = await runCase(target, c);
      if (r.status === 'pass') passed++;
      else failures.push(`${c.name}: ${r.status} ${r.reason ?? ''}`);
    }
    expect(failures).toEqual([]);
    expect(passed).toBeGreaterThan(80);
  }, 300_000);
});
