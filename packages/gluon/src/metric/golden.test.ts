/**
 * Every metric over several batches against NumPy (tools/golden/gluon/init_metric.py): the running
 * value after each update, the local value after `resetLocal` next to the global one, and no array
 * left behind (nd.leakCheck). Metrics are built with `create(name, kwargs)` from MXNet's snake_case
 * keyword arguments, as the golden file records them.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type NestedArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/metric.json' with { type: 'json' };
import { CompositeEvalMetric, create } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

interface Batch {
  labels: NestedArray[];
  preds: NestedArray[];
}

function arrays(batch: Batch): { labels: NDArray[]; preds: NDArray[]; dispose: () => void } {
  const labels = batch.labels.map((l) => nd.array(l));
  const preds = batch.preds.map((p) => nd.array(p));
  return {
    labels,
    preds,
    dispose: () => {
      for (const a of [...labels, ...preds]) a.dispose();
    },
  };
}

/** |a - b| <= 1e-9 relative (both sides are float64 from float32 inputs). */
function expectClose(actual: number, expected: number, what: string): void {
  expect(Number.isFinite(actual), what).toBe(true);
  expect(Math.abs(actual - expected), what).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
}

describe('metrics against NumPy', () => {
  for (const c of golden.cases) {
    const title = `${c.metric} ${JSON.stringify(c.options)}`;

    it(`${title}: running value after each update`, async () => {
      await nd.leakCheck(async () => {
        const metric = create(c.metric, c.options);
        expect(Number.isNaN(metric.get()[1])).toBe(true);
        for (const [i, batch] of (c.batches as Batch[]).entries()) {
          const b = arrays(batch);
          await metric.update(b.labels, b.preds);
          b.dispose();
          expectClose(metric.get()[1] as number, c.expected[i] as number, `${title} after batch ${i}`);
          expectClose(metric.getGlobal()[1] as number, c.expected[i] as number, `${title} global ${i}`);
        }
        metric.reset();
        expect(Number.isNaN(metric.get()[1])).toBe(true);
        expect(Number.isNaN(metric.getGlobal()[1])).toBe(true);
      });
    });

    if (c.batches.length >= 2) {
      it(`${title}: resetLocal keeps the global statistics`, async () => {
        const metric = create(c.metric, c.options);
        const last = c.batches.length - 1;
        for (const [i, batch] of (c.batches as Batch[]).entries()) {
          if (i === last) metric.resetLocal();
          const b = arrays(batch);
          await metric.update(b.labels, b.preds);
          b.dispose();
        }
        expectClose(metric.get()[1] as number, c.each[last] as number, `${title} local`);
        expectClose(metric.getGlobal()[1] as number, c.expected[last] as number, `${title} global`);
      });
    }
  }

  it('CompositeEvalMetric(acc, f1) returns both, batch after batch', async () => {
    const composite = create(golden.composite.metrics) as CompositeEvalMetric;
    expect(composite).toBeInstanceOf(CompositeEvalMetric);
    for (const [i, batch] of (golden.composite.batches as Batch[]).entries()) {
      const b = arrays(batch);
      await composite.update(b.labels, b.preds);
      b.dispose();
      const [names, values] = composite.get();
      expect(names).toEqual(['accuracy', 'f1']);
      values.forEach((v, k) => {
        expectClose(v, golden.composite.expected[i]?.[k] as number, `composite ${i}.${k}`);
      });
    }
  });
});
