/**
 * Every differentiable operator's gradient, checked numerically (central differences in float64)
 * on its golden cases through autograd on cpu-wasm. Per op, its smallest checkable cases run
 * until three of them compared elements; the test fails when a check fails or when a
 * differentiable op has no case that could be checked.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, expect, it } from 'vitest';
import {
  gradCheckCase,
  gradCheckSkip,
  NOT_DERIVATIVES,
  RANDOM_SAMPLERS,
  SPARSE_INPUT_ONLY,
} from './gradcheck.js';
import { loadCases } from './load.js';
import type { ConformanceCase } from './types.js';

const runtime = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => runtime.dispose());

const PER_OP = 3;

it('every differentiable op has a numerically checked gradient', async () => {
  const byOp = new Map<string, ConformanceCase[]>();
  for (const c of loadCases()) {
    const op = runtime.registry.find(c.op);
    if (op === undefined || gradCheckSkip(runtime, c) !== undefined) continue;
    const list = byOp.get(op.name) ?? [];
    list.push(c);
    byOp.set(op.name, list);
  }
  const failures: string[] = [];
  const passed = new Set<string>();
  for (const [name, cases] of byOp) {
    const size = (c: ConformanceCase) => c.inputs.reduce((n, a) => n + a.data.length, 0);
    // The smallest non-empty cases, until PER_OP of them compared some elements (cases made of
    // kinks only, e.g. ties for max, compare none).
    const chosen = cases.filter((c) => size(c) > 0).sort((a, b) => size(a) - size(b));
    let good = 0;
    for (const c of chosen) {
      if (good >= PER_OP) break;
      const r = await gradCheckCase(runtime, c);
      if (r.status === 'fail') failures.push(`${c.family}/${c.name}: ${r.reason}`);
      if (r.status === 'pass' && r.checked > 0) {
        passed.add(name);
        good++;
      }
    }
  }
  const unchecked = runtime.registry
    .list()
    .filter((op) => {
      const g = runtime.registry.gradient(op);
      return (
        g !== undefined &&
        g !== 'zero' &&
        !op.def.isBackward &&
        !NOT_DERIVATIVES.has(op.name) &&
        !SPARSE_INPUT_ONLY.has(op.name) &&
        !RANDOM_SAMPLERS.has(op.name)
      );
    })
    .map((op) => op.name)
    .filter((n) => !passed.has(n));
  console.log(
    `gradient checks: ${passed.size} ops passed, ${failures.length} failures, ${unchecked.length} unchecked`,
  );
  expect(failures).toEqual([]);
  expect(unchecked).toEqual([]);
}, 600_000);
