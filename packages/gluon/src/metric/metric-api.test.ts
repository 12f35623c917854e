/**
 * The metric API around the values: `create` names and options, CompositeEvalMetric, CustomMetric
 * and `np`, `updateDict`, subclasses that only define `update`, and the bad paths (mismatched counts
 * and shapes are MXNetErrors naming the shapes, and leave the metric unchanged).
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type NestedArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Accuracy,
  type AnyMetric,
  BinaryAccuracy,
  CompositeEvalMetric,
  CrossEntropy,
  CustomMetric,
  create,
  createMetricRegistry,
  EvalMetric,
  F1,
  type HostTensor,
  Loss,
  MAE,
  type MetricCommit,
  type MetricInput,
  np,
  PearsonCorrelation,
  TopKAccuracy,
} from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

/** Run `body` with arrays made from nested lists, disposing them after. */
async function withArrays(values: NestedArray[], body: (arrays: NDArray[]) => Promise<void>): Promise<void> {
  const arrays = values.map((v) => nd.array(v));
  try {
    await body(arrays);
  } finally {
    for (const a of arrays) a.dispose();
  }
}

async function once(metric: AnyMetric, label: NestedArray, pred: NestedArray): Promise<number> {
  await withArrays([label, pred], async ([l, p]) => metric.update([l as NDArray], [p as NDArray]));
  return metric.get()[1] as number;
}

const DOC_PRED = [
  [0.3, 0.7],
  [0, 1],
  [0.4, 0.6],
];

describe('create, composite and custom metrics', () => {
  it("knows MXNet's names and aliases", () => {
    const names: [string, string][] = [
      ['acc', 'accuracy'],
      ['Accuracy', 'accuracy'],
      ['top_k_acc', 'top_k_accuracy_5'],
      ['ce', 'cross-entropy'],
      ['nll_loss', 'nll-loss'],
      ['pearsonr', 'pearsonr'],
      ['composite', 'composite'],
      ['torch', 'torch'],
      ['mpd', ''],
    ];
    for (const [n, display] of names) {
      if (display === '') {
        expect(() => create(n)).toThrow(/not registered/);
        continue;
      }
      expect(create(n, n.startsWith('top') ? { topK: 5 } : {}).name).toBe(display);
    }
    expect(createMetricRegistry().names()).toEqual(
      expect.arrayContaining([
        'f1',
        'fbeta',
        'mcc',
        'mae',
        'mse',
        'rmse',
        'perplexity',
        'loss',
        'pcc',
        'custommetric',
      ]),
    );
  });

  it('CompositeEvalMetric: add, getMetric, lists, getNameValue, global stats', async () => {
    const c = new CompositeEvalMetric(['acc']);
    c.add(new F1());
    expect(c.getMetric(1)).toBeInstanceOf(F1);
    expect(() => c.getMetric(2)).toThrow(/Metric index 2 is out of range 0 and 2/);
    await withArrays([[0, 1, 1], DOC_PRED], async ([l, p]) => c.update([l as NDArray], [p as NDArray]));
    const [names, values] = c.get();
    expect(names).toEqual(['accuracy', 'f1']);
    expect(values[0]).toBeCloseTo(2 / 3, 12);
    expect(values[1]).toBeCloseTo(0.8, 12);
    expect(c.getNameValue().map(([n]) => n)).toEqual(['accuracy', 'f1']);
    c.resetLocal();
    expect(c.get()[1].every(Number.isNaN)).toBe(true);
    expect(c.getGlobal()[1][0]).toBeCloseTo(2 / 3, 12);
    expect(c.getGlobalNameValue()[1]?.[1]).toBeCloseTo(0.8, 12);
  });

  it("CustomMetric: a value or [sum, count] per pair; MXNet's default names", async () => {
    const custom = create(async (label: NDArray, pred: NDArray) => {
      const s = await nd.scope(async () => (await nd.subtract(label, pred).abs().sum().item()) as number);
      return [s, label.size] as const;
    });
    expect(custom.name).toBe('custom(<lambda>)');
    await nd.leakCheck(async () => {
      await withArrays(
        [
          [1, 2, 3],
          [1.5, 2, 2],
        ],
        async ([l, p]) => custom.update([l as NDArray], [p as NDArray]),
      );
    });
    expect(custom.get()[1]).toBeCloseTo(0.5, 6);
    function meanError(label: HostTensor, pred: HostTensor): number {
      return (
        label.data.reduce((s, x, i) => s + Math.abs(x - (pred.data[i] as number)), 0) / label.data.length
      );
    }
    const host = np(meanError);
    expect(host.name).toBe('meanError');
    await withArrays([[1, 2, 3], [1.5, 2, 2], [0], [4]], async ([l1, p1, l2, p2]) =>
      host.update([l1, l2] as NDArray[], [p1, p2] as NDArray[]),
    );
    expect(host.get()[1]).toBeCloseTo((0.5 + 4) / 2, 6);
    expect(() => host.getConfig()).toThrow(/CustomMetric cannot be serialized/);
    const extra = new CustomMetric(() => 1, { allowExtraOutputs: true, name: 'one' });
    await withArrays([[1], [1], [2]], async ([l, p, state]) =>
      extra.update([l as NDArray], [p, state] as NDArray[]),
    );
    expect(extra.get()).toEqual(['one', 1]);
    const strict = new CustomMetric(() => 1);
    await withArrays([[1], [1], [2]], async ([l, p, state]) =>
      expect(strict.update([l as NDArray], [p, state] as NDArray[])).rejects.toThrow(/Shape of labels 1/),
    );
    const bad = new CustomMetric(() => 'x' as unknown as number, { name: 'bad' });
    await withArrays([[1], [1]], async ([l, p]) =>
      expect(bad.update(l as NDArray, p as NDArray)).rejects.toThrow(/returned x/),
    );
  });

  it('updateDict picks labels and outputs by name', async () => {
    const m = new Accuracy({ outputNames: ['softmax_output'], labelNames: ['softmax_label'] });
    await withArrays([[0, 1, 1], DOC_PRED, [[9, 9]]], async ([l, p, other]) => {
      await m.updateDict(
        { softmax_label: l as NDArray },
        new Map([
          ['state', other as NDArray],
          ['softmax_output', p as NDArray],
        ]),
      );
      await expect(m.updateDict({ label: l as NDArray }, { softmax_output: p as NDArray })).rejects.toThrow(
        /no label named 'softmax_label'/,
      );
      const c = new CompositeEvalMetric(
        [m, new MAE({ labelNames: ['softmax_label'], outputNames: ['reg'] })],
        {
          labelNames: ['softmax_label'],
        },
      );
      c.reset();
      await c.updateDict(
        { softmax_label: l as NDArray },
        { softmax_output: p as NDArray, reg: l as NDArray },
      );
      expect(c.get()[1]).toEqual([expect.closeTo(2 / 3, 12), 0]);
    });
    expect(m.get()[1]).toBeCloseTo(2 / 3, 12);
  });

  it('a subclass that only defines update works alone and inside a composite', async () => {
    class Count extends EvalMetric {
      constructor() {
        super('count');
      }
      override async update(_l: MetricInput | null, preds: MetricInput | null): Promise<void> {
        const ps = Array.isArray(preds) ? preds : [preds];
        this.accumulate(ps.length, 1);
      }
    }
    const c = new CompositeEvalMetric([new Count(), 'loss']);
    await withArrays([[1, 2]], async ([p]) => c.update(null, [p as NDArray]));
    expect(c.get()).toEqual([
      ['count', 'loss'],
      [1, 1.5],
    ]);
    class Nothing extends EvalMetric {}
    await expect(new Nothing('n').update(null, null)).rejects.toThrow(/implements neither stage nor update/);
    const staged: MetricCommit = await new Loss().stage(null, []);
    await staged();
  });
});

describe('bad input', () => {
  it('label / prediction count mismatch names both', async () => {
    await withArrays([[0, 1], [[0.1, 0.9]], [[0.2, 0.8]]], async ([l, p1, p2]) => {
      const acc = new Accuracy();
      const err = await acc.update([l as NDArray], [p1, p2] as NDArray[]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MXNetError);
      expect((err as MXNetError).message).toMatch(
        /Shape of labels 1 does not match shape of predictions 2 \(labels \[\(2,\)\], predictions \[\(1, 2\), \(1, 2\)\]\)/,
      );
      expect((err as MXNetError).shapes).toEqual([[2], [1, 2], [1, 2]]);
    });
  });

  it('shape mismatches are errors with both shapes, and leave the metric unchanged', async () => {
    const cases: [EvalMetric, NestedArray, NestedArray, RegExp][] = [
      [
        new Accuracy(),
        [0, 1, 1],
        [[0.2, 0.8]],
        /Shape of labels \(3,\) does not match shape of predictions \(1, 2\)/,
      ],
      [
        new MAE(),
        [[1, 2]],
        [[1, 2, 3]],
        /Shape of labels \(1, 2\) does not match shape of predictions \(1, 3\)/,
      ],
      [
        new PearsonCorrelation(),
        [1, 2],
        [[1, 2]],
        /Shape of labels \(2,\) does not match shape of predictions \(1, 2\)/,
      ],
      [new CrossEntropy(), [0, 1, 1], [[0.2, 0.8]], /shape mismatch: \(3,\) vs\. \(1, 2\)/],
      [
        new F1(),
        [0, 2],
        [
          [0.1, 0.9],
          [0.3, 0.7],
        ],
        /Wrong label for binary classification/,
      ],
      [
        new F1(),
        [0, 1],
        [
          [0.1, 0.2, 0.7],
          [0.3, 0.3, 0.4],
        ],
        /wrong for binary classification/,
      ],
      [
        new F1({ classType: 'multiclass' }),
        [0, 3],
        [
          [0.1, 0.9],
          [0.3, 0.7],
        ],
        /fewer classes than label/,
      ],
      [
        new F1({ classType: 'multilabel' }),
        [[0, 1]],
        [[0.1, 0.9, 0.2]],
        /does not match shape of predictions/,
      ],
      [new TopKAccuracy({ topK: 2 }), [1], [0.1, 0.5, 0.4], /must be \(batch, classes\)/],
      [
        new BinaryAccuracy({ threshold: [0.5, 0.5] }),
        [[0, 1, 1]],
        [[0.1, 0.9, 0.3]],
        /shape mismatch: 3 vs\. 2/,
      ],
    ];
    for (const [metric, label, pred, message] of cases) {
      const grid = [
        [0, 1],
        [1, 0],
      ];
      await withArrays(
        [
          [0, 1],
          [
            [0.2, 0.8],
            [0.9, 0.1],
          ],
          grid,
          label,
          pred,
        ],
        async ([gl, gp, g2, l, p]) => {
          const sameShape =
            metric instanceof BinaryAccuracy ||
            (metric instanceof F1 && metric.name === 'f1' && (label as unknown[]).length === 1);
          const good =
            metric instanceof PearsonCorrelation || metric instanceof MAE
              ? [gl, gl]
              : sameShape
                ? [g2, gp]
                : [gl, gp];
          await metric.update(good[0] as NDArray, good[1] as NDArray);
          const before = [metric.get()[1], metric.numInst, metric.globalNumInst];
          await expect(metric.update([good[0], l] as NDArray[], [good[1], p] as NDArray[])).rejects.toThrow(
            message,
          );
          expect([metric.get()[1], metric.numInst, metric.globalNumInst]).toEqual(before);
        },
      );
    }
  });

  it('a composite applies a bad batch to none of its children', async () => {
    const c = new CompositeEvalMetric(['acc', 'mcc']);
    await withArrays(
      [
        [0, 2],
        [
          [0.1, 0.9],
          [0.8, 0.2],
        ],
      ],
      async ([l, p]) => {
        await expect(c.update(l as NDArray, p as NDArray)).rejects.toThrow(/Wrong label for binary/);
      },
    );
    expect(c.getMetric(0).numInst).toBe(0);
  });

  it('F1 refuses a change in the number of classes, bad options', async () => {
    const f1 = new F1({ classType: 'multiclass' });
    await once(
      f1,
      [0, 1],
      [
        [0.9, 0.1],
        [0.2, 0.8],
      ],
    );
    await withArrays([[0], [[0.1, 0.2, 0.7]]], async ([l, p]) => {
      await expect(f1.update(l as NDArray, p as NDArray)).rejects.toThrow(/changed from 2 to 3/);
    });
    expect(() => new F1({ classType: 'multi' as 'multiclass' })).toThrow(/Wrong class_type multi/);
    expect(() => new F1({ average: 'weighted' as 'micro' })).toThrow(/average must be 'micro' or 'macro'/);
    expect(() => new TopKAccuracy({ topK: 1 })).toThrow(/Please use Accuracy if top_k is no more than 1/);
    expect(() => create('acc', { axes: 1 })).toThrow(/unexpected option 'axes'/);
    expect(() => create(new Accuracy(), { axis: 0 })).toThrow(/already an instance/);
    expect(() => create('{"name": "x"}')).toThrow(/needs a 'metric' name/);
    expect(() => create('[1, 2]')).toThrow(/must be \[name, \{kwargs\}\]/);
  });

  it('a failed array rejects the update and changes nothing', async () => {
    const acc = new Accuracy();
    const bad = nd._random_uniform({ low: 1, high: 0, shape: [3, 2] });
    await withArrays([[0, 1, 1]], async ([l]) => {
      await expect(acc.update(l as NDArray, bad)).rejects.toThrow(/low must be less or equal to high/);
    });
    bad.dispose();
    expect(acc.numInst).toBe(0);
    expect(String(acc)).toBe("EvalMetric: {'accuracy': NaN}");
  });
});
