/**
 * Every loss against float64 references from tools/golden/gluon/loss.py (PyTorch's losses where
 * they are MXNet's definition, MXNet's formula in torch otherwise): per-sample values and the
 * gradient of their sum with respect to the first input, eagerly and hybridized. Then values from
 * MXNet's own tests (test_numpy_loss.py, test_loss.py), use inside a training step, and the bad
 * inputs: mismatched shapes and options outside MXNet's choices.
 */
import { readFileSync } from 'node:fs';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import type { HybridBlock } from '../block/hybrid-block.js';
import { Dense } from '../nn/basic.js';
import * as loss from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 3 });
const { nd } = rt;
afterAll(() => rt.dispose());

interface Arr {
  readonly shape: number[];
  readonly dtype: 'float32' | 'int32';
  readonly data: number[];
}
interface Case {
  readonly loss: keyof typeof loss;
  readonly options: Record<string, unknown>;
  readonly args: (Arr | null)[];
  readonly out: Arr;
  readonly grad: Arr;
}
const golden = JSON.parse(readFileSync(new URL('../__golden__/loss.json', import.meta.url), 'utf8')) as {
  cases: Case[];
};

type AnyLoss = loss.Loss & { forward(...args: (NDArray | undefined)[]): NDArray };
const exported = new Map<string, unknown>(Object.entries(loss));
function make(name: Case['loss'], options: Record<string, unknown>): AnyLoss {
  const Ctor = exported.get(name) as new (o: Record<string, unknown>) => AnyLoss;
  return new Ctor(options);
}

function toArray(a: Arr): NDArray {
  const values = a.dtype === 'int32' ? Int32Array.from(a.data) : Float32Array.from(a.data);
  return nd.array(values, { shape: a.shape });
}

/** |actual - expected| <= atol + rtol·|expected| element-wise, with the first failure named. */
function expectClose(actual: NDArray, expected: Arr, what: string, rtol = 1e-5, atol = 1e-6): void {
  expect(actual.shape, `${what} shape`).toEqual(expected.shape);
  const got = actual.dataSync() as Float32Array;
  for (let i = 0; i < expected.data.length; i++) {
    const e = expected.data[i] as number;
    const g = got[i] as number;
    if (!(Math.abs(g - e) <= atol + rtol * Math.abs(e))) {
      expect.fail(`${what}[${i}] = ${g}, expected ${e} (rtol ${rtol}, atol ${atol})`);
    }
  }
}

/** Runs one golden case; returns nothing, every array it made is disposed by the scope. */
async function runCase(c: Case, hybridize: boolean): Promise<void> {
  await rt.scope(async () => {
    const fn = make(c.loss, c.options);
    if (hybridize) fn.hybridize();
    const args = c.args.map((a) => (a === null ? undefined : toArray(a)));
    const x = (args[0] as NDArray).attachGrad();
    const out = rt.autograd.record(() => fn.forward(...args));
    out.backward();
    if (hybridize) expect(fn.cachedOp, 'ran as a CachedOp').toBeDefined();
    expectClose(out, c.out, 'loss');
    expectClose(x.grad as NDArray, c.grad, 'grad');
    // SDMLLoss has a child loss, and the eager initialization pass of block/trace.ts runs that
    // hybridized child on its own, building its CachedOp too: every block's cache is dropped.
    if (hybridize) fn.apply((b) => (b as HybridBlock).clearCache());
  });
}

const label = (c: Case, i: number) =>
  `${i}: ${c.loss}(${JSON.stringify(c.options)}) on ${c.args.map((a) => (a === null ? '-' : `(${a.shape.join(',')})`)).join(' ')}`;

describe('losses against PyTorch / MXNet-formula references', () => {
  it('covers every loss class', () => {
    const covered = new Set(golden.cases.map((c) => c.loss));
    const classes = [...exported].filter(
      ([k, v]) =>
        typeof v === 'function' && v !== loss.Loss && !['SigmoidBCELoss', 'SoftmaxCELoss'].includes(k),
    );
    expect(classes.map(([k]) => k).filter((k) => !covered.has(k as Case['loss']))).toEqual([]);
  });

  it.each(golden.cases.map((c, i) => [label(c, i), c] as const))('%s', async (_, c) => {
    await nd.leakCheck(() => runCase(c, false));
  });

  // Hybridized blocks take NDArrays only, so cases that leave an argument out run eagerly only.
  it.each(
    golden.cases.map((c, i) => [label(c, i), c] as const).filter(([, c]) => c.args.every((a) => a !== null)),
  )('hybridized %s', async (_, c) => {
    await nd.leakCheck(() => runCase(c, true));
  });
});

describe("values from MXNet's tests", () => {
  // test_numpy_loss.py::test_loss_np_ndarray: sums of the per-sample losses.
  const output = [1, 2, 3, 4];
  const target = [1, 3, 5, 7];
  const weighting = [0.5, 1, 0.5, 1];
  const sum = (name: Case['loss'], options: Record<string, unknown>, sw?: number[], third?: number[]) =>
    rt.scope(() => {
      const fn = make(name, options);
      const args = [nd.array(output), nd.array(target)];
      if (third !== undefined) args.push(nd.array(third));
      if (sw !== undefined) args.push(nd.array(sw));
      return (fn.forward(...args).dataSync() as Float32Array).reduce((a, b) => a + b, 0);
    });

  it('matches test_loss_np_ndarray', async () => {
    await nd.leakCheck(async () => {
      expect(await sum('L1Loss', {})).toBeCloseTo(6, 5);
      expect(await sum('L1Loss', { weight: 0.5 })).toBeCloseTo(3, 5);
      expect(await sum('L1Loss', {}, weighting)).toBeCloseTo(5, 5);
      expect(await sum('L2Loss', {})).toBeCloseTo(7, 5);
      expect(await sum('L2Loss', { weight: 0.25 })).toBeCloseTo(1.75, 5);
      expect(await sum('L2Loss', {}, weighting)).toBeCloseTo(6, 5);
      expect(await sum('HuberLoss', {})).toBeCloseTo(4.5, 5);
      expect(await sum('HuberLoss', { weight: 0.25 })).toBeCloseTo(1.125, 5);
      expect(await sum('HuberLoss', {}, weighting)).toBeCloseTo(3.75, 5);
      expect(await sum('HingeLoss', { margin: 10 })).toBeCloseTo(13, 5);
      expect(await sum('HingeLoss', { margin: 8, weight: 0.25 })).toBeCloseTo(2.25, 5);
      expect(await sum('HingeLoss', { margin: 7 }, weighting)).toBeCloseTo(4, 5);
      expect(await sum('SquaredHingeLoss', { margin: 10 })).toBeCloseTo(97, 4);
      expect(await sum('SquaredHingeLoss', { margin: 8, weight: 0.25 })).toBeCloseTo(13.25, 4);
      expect(await sum('SquaredHingeLoss', { margin: 7 }, weighting)).toBeCloseTo(19, 4);
      const negative = target.map((v) => -v);
      expect(await sum('TripletLoss', { margin: 10 }, undefined, negative)).toBeCloseTo(6, 5);
      expect(await sum('TripletLoss', { margin: 8, weight: 0.25 }, undefined, negative)).toBeCloseTo(1, 5);
      expect(await sum('TripletLoss', { margin: 7 }, weighting, negative)).toBeCloseTo(1.5, 5);
    });
  });

  it('matches the softmax cross-entropy and CTC values of test_numpy_loss.py / test_loss.py', async () => {
    await nd.leakCheck(() =>
      rt.scope(() => {
        const ce = new loss.SoftmaxCELoss();
        const pred = nd.array([
          [0, 2],
          [1, 4],
        ]);
        const lab = nd.array([0, 1]);
        const plain = Array.from(ce.forward(pred, lab).dataSync() as Float32Array);
        expect(plain[0]).toBeCloseTo(2.12692809, 6);
        expect(plain[1]).toBeCloseTo(0.04858733, 6);
        const w = Array.from(ce.forward(pred, lab, nd.array([[0.5], [1]])).dataSync() as Float32Array);
        expect(w[0]).toBeCloseTo(1.06346405, 6);
        expect(w[1]).toBeCloseTo(0.04858733, 6);
        const ctcLabel = nd.array([
          [1, 0, -1, -1],
          [2, 1, 1, -1],
        ]);
        const ctc = Array.from(
          new loss.CTCLoss().forward(nd.ones([2, 20, 4]), ctcLabel).dataSync() as Float32Array,
        );
        expect(ctc[0]).toBeCloseTo(18.82820702, 4);
        expect(ctc[1]).toBeCloseTo(16.50581741, 4);
      }),
    );
  });
});

describe('losses in training and as blocks', () => {
  it('backpropagates through a layer into its parameters', async () => {
    await nd.leakCheck(async () => {
      const net = new Dense(1, { inUnits: 3 });
      net.initialize(undefined, { runtime: rt });
      const xs = [1, 2, 3, -1, 0.5, 2];
      const ys = [0.5, -1];
      await rt.scope(() => {
        const out = rt.autograd.record(() =>
          new loss.L2Loss().forward(net.forward(nd.array(xs, { shape: [2, 3] })) as NDArray, nd.array(ys)),
        );
        out.backward();
      });
      // d/dw Σ ½ (w·x - y)² = Σ (w·x - y) x (the bias starts at 0), from the weights read back.
      const w = Array.from(net.weight.data().dataSync() as Float32Array);
      const resid = ys.map((y, r) => w.reduce((s, wk, k) => s + wk * (xs[r * 3 + k] as number), 0) - y);
      const expected = w.map((_, k) => resid.reduce((s, e, r) => s + e * (xs[r * 3 + k] as number), 0));
      const g = Array.from(net.weight.grad().dataSync() as Float32Array);
      for (const [k, v] of g.entries()) expect(v).toBeCloseTo(expected[k] as number, 5);
      for (const p of net.collectParams().values()) p.dispose();
    });
  });

  it("prints as MXNet's repr", () => {
    expect(String(new loss.L2Loss())).toBe('L2Loss(batch_axis=0, w=1.0)');
    expect(String(new loss.L1Loss({ batchAxis: 1, weight: 0.5 }))).toBe('L1Loss(batch_axis=1, w=0.5)');
    expect(String(new loss.SoftmaxCELoss())).toBe('SoftmaxCrossEntropyLoss(batch_axis=0, w=None)');
    expect(String(new loss.CTCLoss({ labelLayout: 'TN' }))).toBe('CTCLoss(batch_axis=1, w=None)');
    expect(loss.SigmoidBCELoss).toBe(loss.SigmoidBinaryCrossEntropyLoss);
  });
});

/** Expects an MXNetError whose message contains every fragment. */
function expectMXNetError(fn: () => unknown, ...fragments: string[]): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(isMXNetError(caught), String(caught)).toBe(true);
  for (const f of fragments) expect((caught as Error).message).toContain(f);
}

describe('bad input', () => {
  it('names the loss and both shapes when pred and label cannot match', async () => {
    await nd.leakCheck(() =>
      rt.scope(() => {
        const p = nd.zeros([4, 5]);
        expectMXNetError(() => new loss.L2Loss().forward(p, nd.zeros([4, 4])), 'L2Loss', '(4, 4)', '(4, 5)');
        expectMXNetError(
          () => new loss.HingeLoss().forward(p, nd.zeros([21])),
          'HingeLoss',
          '(21,)',
          '(4, 5)',
        );
        expectMXNetError(
          () => new loss.SoftmaxCELoss().forward(p, nd.zeros([5])),
          'SoftmaxCrossEntropyLoss',
          '(5,)',
          '(4, 5)',
          'expected (4,)',
        );
        expectMXNetError(
          () => new loss.SoftmaxCELoss({ sparseLabel: false }).forward(p, nd.zeros([4])),
          'SoftmaxCrossEntropyLoss',
          '(4,)',
        );
        expectMXNetError(
          () => new loss.KLDivLoss().forward(p, nd.zeros([4, 3])),
          'KLDivLoss',
          '(4, 3)',
          '(4, 5)',
        );
        expectMXNetError(
          () => new loss.TripletLoss().forward(p, nd.zeros([4, 5]), nd.zeros([3, 5])),
          'TripletLoss',
          'negative',
          '(3, 5)',
        );
        expectMXNetError(
          () => new loss.CosineEmbeddingLoss().forward(p, nd.zeros([4, 5]), nd.zeros([3])),
          'CosineEmbeddingLoss',
          '(3,)',
        );
        expectMXNetError(
          () => new loss.SDMLLoss().forward(nd.zeros([1, 3]), nd.zeros([1, 3])),
          'SDMLLoss',
          '2 samples',
        );
        expectMXNetError(() => new loss.SDMLLoss().forward(p, nd.zeros([4, 4])), 'SDMLLoss', '(4, 4)');
      }),
    );
  });

  it('refuses sample weights that do not broadcast and batch axes out of range', async () => {
    await nd.leakCheck(() =>
      rt.scope(() => {
        const p = nd.zeros([4, 5]);
        expectMXNetError(
          () => new loss.L1Loss().forward(p, p, nd.ones([5, 1])),
          'L1Loss',
          'sampleWeight',
          '(5, 1)',
        );
        expectMXNetError(
          () => new loss.SigmoidBCELoss().forward(p, p, undefined, nd.ones([1, 3])),
          'posWeight',
          '(1, 3)',
        );
        expectMXNetError(() => new loss.L1Loss({ batchAxis: 2 }).forward(p, p), 'L1Loss', 'batchAxis 2');
        expectMXNetError(() => new loss.SoftmaxCELoss({ axis: 3 }).forward(p, nd.zeros([4])), 'axis 3');
      }),
    );
  });

  it('checks CTC shapes', async () => {
    await nd.leakCheck(() =>
      rt.scope(() => {
        const ctc = new loss.CTCLoss();
        expectMXNetError(() => ctc.forward(nd.zeros([2, 20]), nd.zeros([2, 3])), 'CTCLoss', '3 dimensions');
        expectMXNetError(
          () => ctc.forward(nd.zeros([2, 20, 4]), nd.zeros([3, 3])),
          'CTCLoss',
          'batch sizes',
          '(3, 3)',
        );
      }),
    );
  });

  it("rejects options MXNet's asserts reject", () => {
    expectMXNetError(
      () => new loss.LogisticLoss({ labelFormat: 'unsigned' as 'binary' }),
      'labelFormat',
      'unsigned',
    );
    expectMXNetError(() => new loss.CTCLoss({ layout: 'NCT' as 'NTC' }), 'layout', 'NCT');
    expectMXNetError(() => new loss.CTCLoss({ labelLayout: 'NN' as 'NT' }), 'labelLayout', 'NN');
    expectMXNetError(() => new loss.L1Loss({ weight: '2' as unknown as number }), 'weight must be a number');
    expectMXNetError(() => new loss.L1Loss({ batchAxis: 0.5 }), 'batchAxis');
    expectMXNetError(() => new loss.HuberLoss({ rho: 0 }), 'rho');
    expectMXNetError(() => new loss.SDMLLoss({ smoothingParameter: 1 }), 'smoothingParameter');
  });
});
