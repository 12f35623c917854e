/**
 * The products lowered onto einsum (`_npi_matmul`, `_npi_dot`, `_npi_tensordot(_int_axes)`,
 * `_npi_kron`) and `_npi_trace` through an @mx runtime with the conformance runner: every
 * np_products golden case of theirs, the conformance gradient check on the forward cases (the
 * gradients go through MXNet's backward ops), and the GEMM lowering: a batched matmul is one
 * batch_dot call.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeFile, gradCheckCase, ndarrayTarget, runCase } from '@mx/conformance';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuWasmBackend } from '../../../backend.js';

const file = fileURLToPath(
  new URL('../../../../../conformance/src/__golden__/np_products.json', import.meta.url),
);
const LOWERED = /^(_backward)?_(npi|np)_(matmul|dot|tensordot|tensordot_int_axes|kron|trace)$/;
const cases = decodeFile(JSON.parse(readFileSync(file, 'utf8'))).filter((c) => LOWERED.test(c.op));
const runtime = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => runtime.dispose());

describe('einsum-lowered products on cpu-wasm', () => {
  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(cases.length).toBeGreaterThan(50);
    const target = ndarrayTarget(runtime);
    const failures: string[] = [];
    for (const c of cases) {
      const r = await runCase(target, c);
      if (r.status !== 'pass') failures.push(`${c.name}: ${r.status} ${r.reason ?? ''}`);
    }
    expect(failures).toEqual([]);
  });

  it('gradients of the forward ops match central differences', async () => {
    const failures: string[] = [];
    const checked = new Set<string>();
    for (const c of cases.filter((x) => !x.op.startsWith('_backward') && x.error === undefined)) {
      const r = await gradCheckCase(runtime, c);
      if (r.status === 'fail') failures.push(`${c.name}: ${r.reason}`);
      if (r.status === 'pass' && r.checked > 0) checked.add(c.op);
    }
    expect(failures).toEqual([]);
    expect([...checked].sort()).toEqual([
      '_npi_dot',
      '_npi_kron',
      '_npi_matmul',
      '_npi_tensordot',
      '_npi_tensordot_int_axes',
      '_npi_trace',
    ]);
  }, 120_000);

  it('a batched matmul is one batch_dot call', async () => {
    const reg = runtime.registry;
    const kernel = reg.kernel(reg.get('batch_dot'), 'cpu-wasm') as { compute: (...a: unknown[]) => void };
    const real = kernel.compute;
    let calls = 0;
    Object.defineProperty(kernel, 'compute', {
      value: (...a: unknown[]) => {
        calls++;
        return real(...a);
      },
      configurable: true,
    });
    try {
      const a = runtime.nd.ones([4, 8, 16]);
      const b = runtime.nd.ones([4, 16, 2]);
      const [c] = runtime.invoke('_npi_matmul', [a, b]);
      expect((await c?.array()) as number[][][]).toEqual(
        Array.from({ length: 4 }, () => Array.from({ length: 8 }, () => [16, 16])),
      );
      expect(calls).toBe(1);
      for (const x of [a, b, c]) x?.dispose();
    } finally {
      Object.defineProperty(kernel, 'compute', { value: real, configurable: true });
    }
  });
});
