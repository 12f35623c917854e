/**
 * The np_sort golden cases (tools/golden/ops/np_sort.py, NumPy 1.24.2) through an @mx runtime on
 * cpu-wasm with the conformance runner, as the conformance suite will run them once the family is
 * listed in golden.ts; plus the conformance gradient check on the where ops' cases.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeFile, gradCheckCase, ndarrayTarget, runCase } from '@mx/conformance';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuWasmBackend } from '../../../backend.js';

const file = fileURLToPath(
  new URL('../../../../../conformance/src/__golden__/np_sort.json', import.meta.url),
);
const cases = decodeFile(JSON.parse(readFileSync(file, 'utf8')));
const runtime = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => runtime.dispose());

describe('np_sort golden cases on cpu-wasm', () => {
  it('covers every op of the area, with errors', () => {
    const ops = new Set(cases.map((c) => c.op));
    for (const op of [
      '_npi_where',
      '_npi_where_lscalar',
      '_npi_where_rscalar',
      '_npi_where_scalar2',
      '_npi_unique',
    ])
      expect(ops.has(op), op).toBe(true);
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(2);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    const target = ndarrayTarget(runtime);
    const failures: string[] = [];
    for (const c of cases) {
      const r = await runCase(target, c);
      if (r.status !== 'pass') failures.push(`${c.name}: ${r.status} ${r.reason ?? ''}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('gradients of the where ops match central differences', async () => {
    const failures: string[] = [];
    const checked = new Set<string>();
    for (const c of cases) {
      if (!c.op.startsWith('_npi_where') || c.error !== undefined) continue;
      const r = await gradCheckCase(runtime, c);
      if (r.status === 'fail') failures.push(`${c.name}: ${r.reason}`);
      if (r.status === 'pass' && r.checked > 0) checked.add(c.op);
    }
    expect(failures).toEqual([]);
    expect([...checked].sort()).toEqual(['_npi_where', '_npi_where_lscalar', '_npi_where_rscalar']);
  }, 60_000);
});
