/**
 * Reductions taking their elementwise producers as prologue (fusion's fused reductions, built for
 * backends that compile them: cpu-wasm here) against the same executors without fusion: forward
 * values and every gradient of a training graph whose loss is mean((pred - label)^2) (and that loss
 * folded into one node when bound for inference), row sums of
 * a float64 product, max/min with NaN, the graphs where fusion must not apply, and planBind
 * reporting the fused graph when given the backend.
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { type Executor, planBind, simpleBind } from './index.js';
import { Builder } from './test-symbols.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], env: new Env() });
afterAll(() => rt.dispose());

function values(n: number, seed: number, scale = 1): Float64Array {
  const out = new Float64Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = ((x >>> 8) / 16777216 - 0.5) * 2 * scale;
  }
  return out;
}

const host = async (a: NDArray | undefined) => Array.from((await (a as NDArray).data()) as Float32Array);

function expectClose(got: readonly number[], want: readonly number[], what: string, rtol = 1e-5) {
  expect(got.length, what).toBe(want.length);
  const scale = Math.max(1e-30, ...want.filter(Number.isFinite).map(Math.abs));
  got.forEach((g, i) => {
    const w = want[i] as number;
    if (Number.isNaN(w)) expect(Number.isNaN(g), `${what}[${i}]`).toBe(true);
    else
      expect(Math.abs(g - w), `${what}[${i}] ${g} vs ${w}`).toBeLessThanOrEqual(rtol * (Math.abs(w) + scale));
  });
}

function fill(ex: Executor, shapes: Record<string, number[]>) {
  Object.entries(shapes).forEach(([name, shape], k) => {
    ex.argDict[name]?.set(
      values(
        shape.reduce((a, d) => a * d, 1),
        7 + k,
        1.5,
      ),
    );
  });
}

describe('fused reductions in executors', () => {
  it('trains a regression whose loss is mean((fc(x) - y)^2), and folds the loss for inference', async () => {
    await rt.leakCheck(async () => {
      const b = new Builder(rt.registry);
      const pred = b.layer('FullyConnected', 'fc', b.v('data'), { num_hidden: 6 });
      const diff = b.op('elemwise_sub', 'diff', [pred, b.v('label')]);
      const loss = b.op('mean', 'loss', [b.op('square', 'sq', [diff])], { axis: -1 });
      const sym = b.sym(loss);
      const shapes = { data: [5, 8], fc_weight: [6, 8], fc_bias: [6], label: [5, 6] };
      const grads = ['data', 'fc_weight', 'fc_bias'];
      const out: number[][][] = [];
      const counts: number[] = [];
      for (const fusion of [true, false]) {
        const ex = simpleBind(rt, sym, {
          shapes,
          gradReq: Object.fromEntries(grads.map((n) => [n, 'write'])),
          fusion,
        });
        fill(ex, shapes);
        ex.forward({ isTrain: true });
        ex.backward();
        out.push([await host(ex.outputs[0]), ...(await Promise.all(grads.map((n) => host(ex.gradDict[n]))))]);
        counts.push(ex.numNodes);
        if (fusion) {
          // sq's output is read only by the mean (its gradient reads only its shape, and gets diff):
          // square folds into the mean; diff stays a node, which square's gradient reads
          expect(ex.segments('forward').flat()).toEqual(['fc', 'diff', 'loss_fused']);
        }
        ex.dispose();
      }
      const [fused, plain] = out as [number[][], number[][]];
      fused.forEach((v, i) => {
        expectClose(v, plain[i] as number[], ['loss', ...grads][i] as string);
      });
      expect(counts[0]).toBeLessThan(counts[1] as number);
      // bound for inference, diff folds in too
      const inference = simpleBind(rt, sym, { shapes, gradReq: 'null' });
      expect(inference.segments('forward').flat()).toEqual(['fc', 'loss_fused']);
      fill(inference, shapes);
      inference.forward();
      expectClose(await host(inference.outputs[0]), (fused as number[][])[0] as number[], 'inference loss');
      inference.dispose();
    });
  });

  it('sums rows of a float64 product, and reduces max/min of a chain with NaN', async () => {
    await rt.leakCheck(async () => {
      const b = new Builder(rt.registry);
      const prod = b.op('elemwise_mul', 'm', [b.v('a'), b.op('exp', 'e', [b.v('b')])]);
      const shapes = { a: [3, 4, 9], b: [3, 4, 9] };
      for (const [op, attrs, dtype] of [
        ['sum', { axis: '(1, 2)' }, 'float64'],
        ['max', { axis: -1, keepdims: true }, 'float32'],
        ['min', {}, 'float32'],
      ] as const) {
        const sym = b.sym(b.op(op, 'r', [prod], attrs));
        const res: number[][] = [];
        for (const fusion of [true, false]) {
          const ex = simpleBind(rt, sym, { shapes, dtypes: { a: dtype, b: dtype }, gradReq: 'null', fusion });
          fill(ex, shapes);
          if (op !== 'sum') {
            const a = values(108, 3, 1.5);
            a[40] = Number.NaN;
            ex.argDict.a?.set(a);
          }
          ex.forward();
          if (fusion) expect(ex.segments('forward').flat(), op).toEqual(['r_fused']);
          res.push(Array.from((await (ex.outputs[0] as NDArray).data()) as Float64Array));
          ex.dispose();
        }
        expectClose(res[0] as number[], res[1] as number[], op, dtype === 'float64' ? 1e-12 : 1e-5);
        if (op === 'sum') {
          // and the definition, in float64 on the host: one sum of a·exp(b) per leading index
          const [a, bv] = [values(108, 7, 1.5), values(108, 8, 1.5)];
          const want = [0, 1, 2].map((i) => {
            let s = 0;
            for (let j = 36 * i; j < 36 * i + 36; j++) s += (a[j] as number) * Math.exp(bv[j] as number);
            return s;
          });
          expectClose(res[0] as number[], want, 'sum vs float64 definition', 1e-12);
        }
        // a[40] is in row 4 of the max over the last axis; the min over everything sees it too
        if (op === 'max') expect(Number.isNaN((res[0] as number[])[4] as number)).toBe(true);
        if (op === 'min') expect(Number.isNaN((res[0] as number[])[0] as number)).toBe(true);
      }
    });
  });

  it('leaves a reduction over a leading axis as it is, and planBind plans the fused graph for cpu-wasm', () => {
    const b = new Builder(rt.registry);
    const sq = b.op('square', 'sq', [b.op('elemwise_sub', 'd', [b.v('a'), b.v('b')])]);
    const lead = simpleBind(rt, b.sym(b.op('sum', 's', [sq], { axis: 0 })), {
      shapes: { a: [4, 6], b: [4, 6] },
      gradReq: 'null',
    });
    expect(lead.segments('forward').flat()).toEqual(['sq_fused', 's']);
    lead.dispose();
    const sym = b.sym(b.op('sum', 's', [sq], { axis: -1 }));
    const shapes = { a: [4, 6], b: [4, 6] };
    const ex = simpleBind(rt, sym, { shapes, gradReq: 'null' });
    expect(ex.segments('forward').flat()).toEqual(['s_fused']);
    const planned = planBind(rt.registry, sym, { shapes, gradReq: 'null', backend: 'cpu-wasm' });
    expect(planned.plannedBytes).toBe(ex.plannedBytes);
    expect(planned.numNodes).toBe(ex.numNodes);
    // without a backend, planBind fuses only the elementwise chain
    expect(planBind(rt.registry, sym, { shapes, gradReq: 'null' }).numNodes).toBe(ex.numNodes + 1);
    ex.dispose();
  });
});
