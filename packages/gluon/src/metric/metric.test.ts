/**
 * MXNet's own expectations: tests/python/unittest/test_metric.py and the examples in
 * gluon/metric.py's docstrings (values MXNet printed from float32 math are compared to 6 digits),
 * and test_metrics' config round trip.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type NestedArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Accuracy,
  type AnyMetric,
  BinaryAccuracy,
  CrossEntropy,
  create,
  F1,
  Fbeta,
  MAE,
  MCC,
  MeanCosineSimilarity,
  MeanPairwiseDistance,
  MSE,
  PCC,
  PearsonCorrelation,
  Perplexity,
  RMSE,
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

describe("MXNet's documented values", () => {
  it('classification examples', async () => {
    expect(await once(new Accuracy(), [0, 1, 1], DOC_PRED)).toBeCloseTo(2 / 3, 12);
    expect(await once(new F1(), [0, 1, 1], DOC_PRED)).toBeCloseTo(0.8, 12);
    expect(await once(new Fbeta({ beta: 2 }), [0, 1, 1], DOC_PRED)).toBeCloseTo(0.9090909090909091, 12);
    expect(await once(new BinaryAccuracy({ threshold: 0.6 }), [0, 1, 0], [0.7, 1, 0.55])).toBeCloseTo(
      2 / 3,
      12,
    );
  });

  it('F1 / MCC on the "almost always positive" example', async () => {
    const [fp, fn, tp, tn] = [1000, 1, 10000, 1];
    const preds = [
      ...Array(fp).fill([0.3, 0.7]),
      ...Array(tn).fill([0.7, 0.3]),
      ...Array(fn).fill([0.7, 0.3]),
      ...Array(tp).fill([0.3, 0.7]),
    ];
    const labels = [...Array(fp + tn).fill(0), ...Array(fn + tp).fill(1)];
    expect(await once(new F1(), labels, preds)).toBeCloseTo(0.95233560306652054, 7);
    expect(await once(new MCC(), labels, preds)).toBeCloseTo(0.01917751877733392, 7);
  });

  it('regression and probability examples', async () => {
    const p = [3, -0.5, 2, 7];
    const l = [2.5, 0.0, 2, 8];
    expect(await once(new MAE(), l, p)).toBeCloseTo(0.5, 12);
    expect(await once(new MSE(), l, p)).toBeCloseTo(0.375, 12);
    expect(await once(new RMSE(), l, p)).toBeCloseTo(0.612372457981, 7);
    const mpd = await once(
      new MeanPairwiseDistance(),
      [
        [1, 0],
        [4, 2],
      ],
      [
        [1, 2],
        [3, 4],
      ],
    );
    expect(mpd).toBeCloseTo(2.1180338859558105, 6); // MXNet printed a float32 result
    const cos = await once(
      new MeanCosineSimilarity(),
      [
        [3, 4],
        [2, 2],
      ],
      [
        [1, 0],
        [1, 1],
      ],
    );
    expect(cos).toBeCloseTo(0.8, 7);
    expect(await once(new CrossEntropy(), [0, 1, 1], DOC_PRED)).toBeCloseTo(0.57159948348999023, 7);
    expect(await once(new Perplexity(), [0, 1, 1], DOC_PRED)).toBeCloseTo(1.7710976285155853, 6);
    const pr = await once(
      new PearsonCorrelation(),
      [
        [1, 0],
        [0, 1],
        [0, 1],
      ],
      DOC_PRED,
    );
    expect(pr).toBeCloseTo(0.42163704544016178, 7);
  });
});

describe('test_metric.py', () => {
  it('test_ce (probabilities and from_logits)', async () => {
    const pred = [
      [0.2, 0.3, 0.5],
      [0.6, 0.1, 0.3],
    ];
    const expected = -(Math.log(0.5) + Math.log(0.1)) / 2;
    expect(await once(create('ce'), [2, 1], pred)).toBeCloseTo(expected, 7);
    const logits = pred.map((r) => r.map(Math.log));
    expect(await once(create('ce', { from_logits: true }), [2, 1], logits)).toBeCloseTo(expected, 7);
  });

  it('test_acc_2d_label', async () => {
    const pred = [
      [0.3, 0.7],
      [0, 1],
      [0.4, 0.6],
      [0.8, 0.2],
      [0.3, 0.5],
      [0.6, 0.4],
    ];
    const label = [
      [0, 1, 1],
      [1, 0, 1],
    ];
    expect(await once(create('acc'), label, pred)).toBeCloseTo(2 / 6, 12);
  });

  it('test_loss_update: a list or a single array', async () => {
    const a = create('loss');
    const b = create('loss');
    await withArrays([DOC_PRED], async ([p]) => {
      await a.update(null, [p as NDArray]);
      await b.update(null, p as NDArray);
    });
    expect(a.get()[1]).toBe(b.get()[1]);
    expect(a.get()[1]).toBeCloseTo(3 / 6, 7);
  });

  it('test_binary_f1 (micro and macro)', async () => {
    for (const average of ['micro', 'macro'] as const) {
      const f1 = create('f1', { average });
      expect(Number.isNaN(f1.get()[1])).toBe(true);
      expect(
        await once(
          f1,
          [0, 0],
          [
            [0.9, 0.1],
            [0.8, 0.2],
          ],
        ),
      ).toBe(0);
      f1.reset();
      await withArrays(
        [
          [1, 0],
          [
            [0.1, 0.9],
            [0.5, 0.5],
          ],
          [1, 0],
          [
            [0.85, 0.15],
            [1, 0],
          ],
        ],
        async ([l1, p1, l2, p2]) => f1.update([l1, l2] as NDArray[], [p1, p2] as NDArray[]),
      );
      expect(f1.numInst).toBe(4);
      expect(f1.get()[1]).toBeCloseTo(2 / 3, 12);
      await withArrays([[0], [[0.6, 0.4]], [1], [[0.2, 0.8]]], async ([l1, p1, l2, p2]) =>
        f1.update([l1, l2] as NDArray[], [p1, p2] as NDArray[]),
      );
      expect(f1.numInst).toBe(6);
      expect(f1.get()[1]).toBeCloseTo(0.8, 12);
    }
  });

  it('test_multiclass_f1 and test_multilabel_f1 (sklearn values)', async () => {
    const mc = (average: string) => create('f1', { class_type: 'multiclass', average });
    const macro = mc('macro');
    const micro = mc('micro');
    expect(
      await once(
        macro,
        [0, 0],
        [
          [0.9, 0.1],
          [0.8, 0.2],
        ],
      ),
    ).toBe(0.5);
    expect(
      await once(
        micro,
        [0, 0],
        [
          [0.9, 0.1],
          [0.8, 0.2],
        ],
      ),
    ).toBe(1);
    for (const m of [macro, micro]) {
      m.reset();
      await withArrays(
        [
          [0, 2],
          [
            [1, 0, 0],
            [0, 1, 0],
          ],
          [1, 0, 0, 1],
          [
            [0, 0, 1],
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
          ],
        ],
        async ([l1, p1, l2, p2]) => m.update([l1, l2] as NDArray[], [p1, p2] as NDArray[]),
      );
      expect(m.numInst).toBe(6);
    }
    expect(macro.get()[1]).toBeCloseTo(0.26666666666666666, 7);
    expect(micro.get()[1]).toBeCloseTo(0.3333333333333333, 7);

    const ml = (average: string) => create('f1', { class_type: 'multilabel', average });
    const lmacro = ml('macro');
    const lmicro = ml('micro');
    expect(
      await once(
        lmacro,
        [
          [1, 1],
          [1, 1],
        ],
        [
          [0.9, 0.1],
          [0.8, 0.2],
        ],
      ),
    ).toBe(0.5);
    expect(
      await once(
        lmicro,
        [
          [1, 1],
          [1, 1],
        ],
        [
          [0.9, 0.1],
          [0.8, 0.2],
        ],
      ),
    ).toBeCloseTo(2 / 3, 12);
    for (const m of [lmacro, lmicro]) {
      m.reset();
      await withArrays(
        [
          [
            [1, 0, 1],
            [0, 0, 1],
          ],
          [
            [0.9, 0.4, 0.3],
            [0.2, 0.7, 0.8],
          ],
          [[0, 1, 1]],
          [[0.6, 0.6, 0.7]],
        ],
        async ([l1, p1, l2, p2]) => m.update([l1, l2] as NDArray[], [p1, p2] as NDArray[]),
      );
      expect(m.numInst).toBe(3);
    }
    expect(lmacro.get()[1]).toBeCloseTo(0.7111111111111111, 7);
    expect(lmicro.get()[1]).toBeCloseTo(0.7272727272727272, 7);
  });

  it('test_mcc', async () => {
    const mcc = create('mcc');
    expect(Number.isNaN(mcc.get()[1])).toBe(true);
    expect(
      await once(
        mcc,
        [0, 0],
        [
          [0.9, 0.1],
          [0.8, 0.2],
        ],
      ),
    ).toBe(0);
    mcc.reset();
    await withArrays(
      [
        [1, 0],
        [
          [0.1, 0.9],
          [0.5, 0.5],
        ],
        [1, 0],
        [
          [0.85, 0.15],
          [1, 0],
        ],
      ],
      async ([l1, p1, l2, p2]) => mcc.update([l1, l2] as NDArray[], [p1, p2] as NDArray[]),
    );
    expect(mcc.numInst).toBe(4);
    expect(mcc.get()[1]).toBeCloseTo(2 / Math.sqrt(1 * 2 * 2 * 3), 12);
    await withArrays([[0], [[0.6, 0.4]], [1], [[0.2, 0.8]]], async ([l1, p1, l2, p2]) =>
      mcc.update([l1, l2] as NDArray[], [p1, p2] as NDArray[]),
    );
    expect(mcc.numInst).toBe(6);
    expect(mcc.get()[1]).toBeCloseTo(6 / Math.sqrt(2 * 3 * 3 * 4), 12);
  });

  it('test_perplexity and test_single_array_input', async () => {
    const p = [
      [0.8, 0.2],
      [0.2, 0.8],
      [0, 1],
    ];
    const expected = Math.exp(-(Math.log(0.8) * 2 + Math.log(1)) / 3);
    expect(await once(create('perplexity', { axis: -1 }), [0, 1, 1], p)).toBeCloseTo(expected, 7);
    await withArrays([[[1, 2, 3, 4]], [[1.1, 2.1, 3.1, 4.1]]], async ([pred, label]) => {
      for (const [name, value] of [
        ['mse', 0.01],
        ['mae', 0.1],
        ['rmse', 0.1],
      ] as const) {
        const m = create(name);
        await m.update(label as NDArray, pred as NDArray);
        expect(m.get()[1]).toBeCloseTo(value, 6);
      }
    });
  });

  it('test_pcc: agrees with MCC and Pearson on a binary confusion matrix, order-independent', async () => {
    const cm = [
      [7, 3],
      [2, 5],
    ];
    const labels: number[] = [];
    const preds: number[][] = [];
    cm.forEach((row, i) => {
      row.forEach((count, j) => {
        for (let c = 0; c < count; c++) {
          labels.push(i);
          preds.push(j === 0 ? [1, 0] : [0, 1]);
        }
      });
    });
    const pcc = await once(new PCC(), labels, preds);
    expect(pcc).toBeCloseTo(await once(new MCC(), labels, preds), 12);
    expect(pcc).toBeCloseTo(
      await once(
        new PearsonCorrelation(),
        labels,
        preds.map((p) => ((p[1] as number) > (p[0] as number) ? 1 : 0)),
      ),
      12,
    );
    const one = new PCC();
    for (let i = labels.length - 1; i >= 0; i--) {
      await withArrays([[labels[i] as number], [preds[i] as number[]]], async ([l, p]) =>
        one.update(l as NDArray, p as NDArray),
      );
    }
    expect(one.get()[1]).toBeCloseTo(pcc, 12);
  });

  it('test_metrics: create(JSON of getConfig()) gives the same config', () => {
    const specs: [string, Record<string, unknown>][] = [
      ['acc', { axis: 0 }],
      ['f1', {}],
      ['mcc', {}],
      ['perplexity', { axis: -1 }],
      ['pearsonr', {}],
      ['pcc', {}],
      ['ce', {}],
      ['loss', {}],
      ['top_k_accuracy', { top_k: 3 }],
      ['fbeta', { beta: 2, class_type: 'multiclass' }],
      ['binaryaccuracy', { threshold: [0.2, 0.4] }],
    ];
    for (const [name, kwargs] of specs) {
      const m = create(name, kwargs);
      const again = create(JSON.stringify(m.getConfig()));
      expect(again.getConfig()).toEqual(m.getConfig());
      expect(again.name).toBe(m.name);
    }
    const composite = create(['acc', 'f1']);
    expect(create(JSON.stringify(composite.getConfig())).getConfig()).toEqual(composite.getConfig());
    expect(new Accuracy({ axis: 0 }).getConfig()).toEqual({
      axis: 0,
      metric: 'Accuracy',
      name: 'accuracy',
      output_names: null,
      label_names: null,
    });
  });
});
