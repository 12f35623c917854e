/**
 * The runner itself: verdicts for passing, wrong, crashing and skipped cases, error-case rules,
 * filtering, per-family counts, and describeConformance's registration, using the NDArray runtime
 * on cpu-wasm as the target and deliberately broken wrappers around it.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { describeConformance, type TestApi } from './describe.js';
import { loadCases } from './load.js';
import { ndarrayTarget } from './ndarray-target.js';
import { ConformanceSkip, formatReport, runCase, runConformance } from './runner.js';
import type { CaseArray, ConformanceCase, ConformanceTarget } from './types.js';

const good = ndarrayTarget(createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 0 }));
const outputCase = loadCases('init').find((c) => c.name === '_ones/float32/2x3')!;
const errorCase = loadCases('init').find((c) => c.name === '_arange/error/step0')!;

function wrap(
  invoke: ConformanceTarget['invoke'],
  extra: Partial<ConformanceTarget> = {},
): ConformanceTarget {
  return { name: 'broken', invoke, ...extra };
}

describe('runConformance', () => {
  it('passes the whole init family on cpu-wasm', async () => {
    const report = await runConformance(good, { family: 'init' });
    expect(report.counts.fail, formatReport(report)).toBe(0);
    expect(report.counts.skip).toBe(0);
    expect(report.counts.pass).toBe(loadCases('init').length);
    expect(report.byFamily.init).toEqual(report.counts);
  });

  it('fails wrong values with the mismatch', async () => {
    const off = wrap(async (op, ins, p) => {
      const out = await good.invoke(op, ins, p);
      const d = Float32Array.from(out[0]!.data as Float32Array);
      d[4] = 1.5;
      return [{ ...out[0]!, data: d }];
    });
    const r = await runCase(off, outputCase);
    expect(r.status).toBe('fail');
    expect(r.reason).toContain('output 0: 1 of 6 elements differ');
    expect(r.reason).toContain('at [1, 1]: 1.5 vs expected 1');
  });

  it('fails wrong dtype, shape and missing outputs', async () => {
    const asF64 = wrap(async () => [
      { shape: [2, 3], dtype: 'float64', data: new Float64Array(6).fill(1) } as CaseArray,
    ]);
    expect((await runCase(asF64, outputCase)).reason).toContain('dtype float64, expected float32');
    const flat = wrap(async () => [
      { shape: [6], dtype: 'float32', data: new Float32Array(6).fill(1) } as CaseArray,
    ]);
    expect((await runCase(flat, outputCase)).reason).toContain('shape (6,), expected (2, 3)');
    const none = wrap(async () => []);
    expect((await runCase(none, outputCase)).reason).toContain('returned 0 outputs, expected 1');
  });

  it('fails a crash on an output case, naming the error', async () => {
    const crash = wrap(async () => {
      throw new TypeError('boom');
    });
    const r = await runCase(crash, outputCase);
    expect(r).toMatchObject({ status: 'fail', reason: 'threw TypeError: boom' });
  });

  it('checks error cases: MXNetError with the expected text, nothing else', async () => {
    expect((await runCase(good, errorCase)).status).toBe('pass');
    const ok = wrap(async () => [{ shape: [1], dtype: 'float32', data: new Float32Array(1) } as CaseArray]);
    expect((await runCase(ok, errorCase)).reason).toContain('succeeded; expected an MXNetError containing');
    const plain = wrap(async () => {
      throw new Error('Range does not support step=0');
    });
    expect((await runCase(plain, errorCase)).reason).toContain('expected an MXNetError');
    const other = wrap(async () => {
      throw new MXNetError('something else', { op: '_arange' });
    });
    expect((await runCase(other, errorCase)).reason).toContain(
      'MXNetError without "Range does not support step=0"',
    );
    const sync = wrap(() => {
      throw new MXNetError('Range does not support step=0, received 0');
    });
    expect((await runCase(sync, errorCase)).status).toBe('pass');
  });

  it('skips by case field, backend list, target hook and ConformanceSkip', async () => {
    const c: ConformanceCase = { ...outputCase, skip: 'known issue' };
    expect(await runCase(good, c)).toMatchObject({ status: 'skip', reason: 'known issue' });
    const only: ConformanceCase = { ...outputCase, backends: ['webgpu'] };
    expect(await runCase(good, only)).toMatchObject({ status: 'skip', reason: 'only for webgpu' });
    const picky = wrap(good.invoke, { skip: (x) => (x.op === '_ones' ? 'no ones here' : undefined) });
    expect(await runCase(picky, outputCase)).toMatchObject({ status: 'skip', reason: 'no ones here' });
    const lazy = wrap(async () => {
      throw new ConformanceSkip('float32 not supported');
    });
    expect(await runCase(lazy, outputCase)).toMatchObject({
      status: 'skip',
      reason: 'float32 not supported',
    });
  });

  it('filters by family, op and predicate, and counts per family', async () => {
    const report = await runConformance(good, {
      op: ['_eye', '_linspace'],
      filter: (c) => !c.name.includes('error'),
    });
    expect(new Set(report.results.map((r) => r.op))).toEqual(new Set(['_eye', '_linspace']));
    expect(report.results.every((r) => !r.name.includes('error'))).toBe(true);
    expect(report.byFamily.init!.pass).toBe(report.results.length);
    const custom = await runConformance(good, { cases: [outputCase, errorCase] });
    expect(custom.counts).toEqual({ pass: 2, fail: 0, skip: 0 });
    expect(formatReport(custom)).toContain('conformance on cpu-wasm: 2 pass, 0 fail, 0 skip');
  });

  it('leaves the backend usable after every error case', async () => {
    const errors = loadCases('init').filter((c) => c.error !== undefined);
    for (const c of errors) await runCase(good, c);
    expect((await runCase(good, outputCase)).status).toBe('pass');
  });
});

describe('describeConformance', () => {
  it('registers one test per op under its family, and a failing test lists its failing cases', async () => {
    const tree: string[] = [];
    const tests = new Map<string, () => Promise<void>>();
    const skipped: string[] = [];
    const path: string[] = [];
    const it = Object.assign(
      (name: string, fn: () => Promise<void>) => {
        tree.push([...path, name].join(' > '));
        tests.set(name, fn);
      },
      { skip: (name: string) => skipped.push(name) },
    );
    const api: TestApi = {
      describe: (name, fn) => {
        path.push(name);
        fn();
        path.pop();
      },
      it,
    };
    const broken = wrap(
      async (op, ins, p) => {
        if (op === '_eye') return [];
        return good.invoke(op, ins, p);
      },
      { skip: (c) => (c.op === 'ones_like' ? 'not here' : undefined) },
    );
    describeConformance(broken, api, { family: 'init' });
    expect(tree).toContain(
      `conformance on broken > init > _zeros (${loadCases('init').filter((c) => c.op === '_zeros').length} cases)`,
    );
    expect(skipped.some((n) => n.startsWith('ones_like'))).toBe(true);
    const zeros = [...tests.entries()].find(([n]) => n.startsWith('_zeros'))![1];
    await zeros();
    const eye = [...tests.entries()].find(([n]) => n.startsWith('_eye'))![1];
    await expect(eye()).rejects.toThrow(
      /_eye: \d+ of \d+ cases failed\n- _eye\/3x0\/k0\/float32: returned 0 outputs/,
    );
  });
});
