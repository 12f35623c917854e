/**
 * `_npi_searchsorted` on gpu(0) against the np_sort golden cases (tools/golden/ops/np_sort.py,
 * NumPy 1.24.2). WebGPU stores no int64, so the int64 cases whose inputs WebGPU holds (float32,
 * int32) run with the op's `dtype: 'int32'` and expect NumPy's positions as int32 — the values are
 * NumPy's, only the output dtype is relabelled. The bad-input cases run as they are, and req add
 * is checked by accumulating into an output that holds NumPy's positions. np.searchsorted on gpu(0)
 * searches in float32/int32 and returns int32 (no 64-bit storage there).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ConformanceCase, decodeFile, ndarrayTarget, runCase } from '@mx/conformance';
import { createNp } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { GPU, gpuTestEnv } from '../../../test-util/gpu.js';

const file = fileURLToPath(
  new URL('../../../../../conformance/src/__golden__/np_sort.json', import.meta.url),
);
const all = decodeFile(JSON.parse(readFileSync(file, 'utf8'))).filter((c) => c.op === '_npi_searchsorted');
const env = await gpuTestEnv();

/** A case with int32 output (NumPy's positions, relabelled), or undefined when WebGPU cannot hold it. */
function asInt32(c: ConformanceCase): ConformanceCase | undefined {
  if (c.error !== undefined) return c;
  if (!c.inputs.every((a) => a.dtype === 'float32' || a.dtype === 'int32')) return undefined;
  const outputs = (c.outputs ?? []).map((o) => ({
    ...o,
    dtype: 'int32' as const,
    data: Int32Array.from(o.data as ArrayLike<number | bigint>, Number),
  }));
  return { ...c, params: { ...c.params, dtype: 'int32' }, outputs };
}

describe.skipIf(typeof env === 'string')('_npi_searchsorted golden cases on webgpu', () => {
  it('every case WebGPU can hold matches NumPy (values, or the MXNetError text)', async () => {
    if (typeof env === 'string') return;
    const target = ndarrayTarget(env.runtime, GPU);
    const failures: string[] = [];
    let passed = 0;
    for (const c0 of all) {
      const c = asInt32(c0);
      if (c === undefined) continue;
      const r = await runCase(target, c);
      if (r.status === 'pass') passed++;
      else failures.push(`${c.name}: ${r.status} ${r.reason ?? ''}`);
    }
    expect(failures).toEqual([]);
    expect(passed).toBeGreaterThanOrEqual(40);
  }, 300_000);

  it('req add accumulates into the output', async () => {
    if (typeof env === 'string') return;
    const { nd } = env.runtime;
    const c = all.find((k) => k.name === '_npi_searchsorted/float32/17/(23,)/right') as ConformanceCase;
    const want = Array.from(c.outputs?.[0]?.data as ArrayLike<number | bigint>, Number);
    const [a, v] = c.inputs.map((x) => nd.array(x.data, { shape: x.shape, dtype: x.dtype, ctx: GPU }));
    const out = nd.array(want, { dtype: 'int32', ctx: GPU });
    if (a === undefined || v === undefined) throw new Error('the case has two inputs');
    env.runtime.invoke('_npi_searchsorted', [a, v], { side: 'right', dtype: 'int32' }, { out, req: 'add' });
    expect(Array.from((await out.data()) as Int32Array)).toEqual(want.map((x) => 2 * x));
    for (const x of [a, v, out]) x.dispose();
  });

  it('np.searchsorted on gpu(0): int32 positions, JS values searched in float32', async () => {
    if (typeof env === 'string') return;
    const { np } = createNp(env.runtime);
    const a = env.runtime.nd.array([1, 2, 2, 5, Number.NaN], { dtype: 'float32', ctx: GPU });
    // np.searchsorted(np.array([1, 2, 2, 5, nan], 'f4'), [2, 0, 9, nan, 2.5], side=...) in NumPy 1.24.2:
    const left = np.searchsorted(a, [2, 0, 9, Number.NaN, 2.5]);
    const right = np.searchsorted(a, [2, 0, 9, Number.NaN, 2.5], { side: 'right' });
    expect(left.dtype).toBe('int32');
    expect(Array.from((await left.data()) as Int32Array)).toEqual([1, 0, 4, 4, 3]);
    expect(Array.from((await right.data()) as Int32Array)).toEqual([3, 0, 4, 5, 3]);
    for (const x of [a, left, right]) x.dispose();
  });
});
