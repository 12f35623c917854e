/**
 * How a CachedOp call binds its arrays (signature.ts: inputs, outputs and gradients bound per call
 * with GraphRunner.rebind): without staticAlloc idle run states are kept, at most two per
 * signature, their memory released on dispose; outputs and gradients are written straight into
 * arrays the caller owns — no copy engine op, and a later call never changes them (not even a
 * gradient `autograd.grad` returns as is); inputs and outputs the caller disposes before the
 * backward stay readable by it; an output that is an input, or returned twice, is a copy; head
 * gradients of another dtype are cast. Expected values are computed on the host with Math.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Builder } from '../executor/test-symbols.js';
import { CachedOp } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 5 });
const { nd, autograd } = rt;
const b = new Builder(rt.registry);
afterAll(() => rt.dispose());

const host = async (a: NDArray | undefined) => Array.from((await (a as NDArray).data()) as Float32Array);
const arr = (shape: number[], seed: number) => {
  const n = shape.reduce((a, d) => a * d, 1);
  return nd.array(
    Array.from({ length: n }, (_, i) => Math.sin(seed * 7.3 + i * 1.7) * 0.8),
    { shape },
  );
};
const close = (got: readonly number[], want: readonly number[]) => {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want[i] as number)));
  });
};
const dispose = (...xs: (NDArray | NDArray[] | undefined)[]) => {
  for (const x of xs) for (const a of Array.isArray(x) ? x : [x]) a?.dispose();
};

/** y = exp(x) * w + b (3 ops: compiled, not inlined); also outputs e = exp(x) when `withExp`. */
function small(withExp = false) {
  const e = b.op('exp', 'exp', [b.v('x')]);
  const y = b.op('broadcast_add', 'add', [b.op('elemwise_mul', 'mul', [e, b.v('w')]), b.v('b')]);
  return withExp ? b.sym(y, e) : b.sym(y);
}
/** Host values of y and of dy/dx, dy/dw (elementwise) for (4, 3) x, w and (3,) b. */
async function smallRef(x: NDArray, w: NDArray, bias: NDArray) {
  const [xs, ws, bs] = [await host(x), await host(w), await host(bias)];
  const ex = xs.map(Math.exp);
  return {
    y: ex.map((e, i) => e * (ws[i] as number) + (bs[i % 3] as number)),
    dx: ex.map((e, i) => e * (ws[i] as number)),
    dw: ex,
  };
}

describe('run states without staticAlloc', () => {
  it('keeps at most two idle per signature, with their memory until dispose', async () => {
    await rt.leakCheck(async () => {
      const before = rt.memory();
      const op = new CachedOp(rt, small());
      const [w, bias] = [arr([4, 3], 2).attachGrad(), arr([3], 4)];
      const xs = [1, 2, 3].map((s) => arr([4, 3], 10 + s).attachGrad());
      // Three recorded calls alive at once need three states; sum(y1 * y2 * y3) ties them together.
      const total = autograd.record(() =>
        rt.scopeSync(() => {
          const ys = xs.map((x) => op.call(x, w, bias)[0] as NDArray);
          const t = nd.sum(
            nd.elemwise_mul(nd.elemwise_mul(ys[0] as NDArray, ys[1] as NDArray), ys[2] as NDArray),
          );
          return t;
        }),
      );
      expect(op.stats).toMatchObject({ compiles: 1, runners: 3, liveRunners: 3 });
      total.backward();
      expect(op.stats.liveRunners).toBe(2);
      const refs = await Promise.all(xs.map((x) => smallRef(x, w, bias)));
      for (let k = 0; k < 3; k++) {
        const others = refs.filter((_, j) => j !== k).map((r) => r.y);
        const want = (refs[k] as Awaited<ReturnType<typeof smallRef>>).dx.map(
          (d, i) => d * ((others[0] as number[])[i] as number) * ((others[1] as number[])[i] as number),
        );
        close(await host(xs[k]?.grad), want);
      }
      // Later recorded calls reuse the idle states: no new runner.
      for (const x of xs) {
        const l = autograd.record(() => rt.scopeSync(() => nd.sum(op.call(x, w, bias)[0] as NDArray)));
        l.backward();
        l.dispose();
      }
      expect(op.stats).toMatchObject({ runners: 3, liveRunners: 2 });
      const reserved = rt.memory().bytes;
      op.dispose();
      expect(op.stats.liveRunners).toBe(0);
      expect(rt.memory().bytes).toBeLessThan(reserved);
      dispose(total, w, bias, xs);
      await nd.waitall();
      expect(rt.memory()).toMatchObject({ arrays: before.arrays, bytes: before.bytes });
    });
  });
});

describe('outputs and gradients are the caller’s arrays', () => {
  it('writes them without copies, and later calls leave them alone', async () => {
    await rt.leakCheck(async () => {
      const op = new CachedOp(rt, small());
      const [x1, x2] = [arr([4, 3], 1).attachGrad(), arr([4, 3], 2).attachGrad()];
      const [w, bias] = [arr([4, 3], 3).attachGrad(), arr([3], 4).attachGrad()];
      dispose(op.call(x1, w, bias)); // compile and build the run state first
      await nd.waitall();
      const prof = rt.engine.profiler;
      prof.reset();
      prof.setState('run');
      const [y1] = op.call(x1, w, bias) as [NDArray];
      const loss1 = autograd.record(() => rt.scopeSync(() => nd.sum(op.call(x1, w, bias)[0] as NDArray)));
      loss1.backward();
      await nd.waitall();
      prof.setState('stop');
      const names = prof.records().map((r) => r.name);
      prof.reset();
      // The calls push their graph segments only: autograd hands each input's .grad to the
      // backward as its destination (nothing else sends them gradients), so nothing is copied.
      expect(names.filter((n) => n.startsWith('Bulk[') || n.includes(':')).length).toBe(3);
      expect(names.filter((n) => n === '_copyto' || n === '_copy').length).toBe(0);
      // autograd.grad hands the CachedOp's gradient array to the caller as it is.
      const head1 = autograd.record(() => rt.scopeSync(() => nd.sum(op.call(x1, w, bias)[0] as NDArray)));
      const g1 = autograd.grad(head1, [x1])[0] as NDArray;
      // A second call and backward on the same run state, with other data.
      const [y2] = op.call(x2, w, bias) as [NDArray];
      const loss2 = autograd.record(() => rt.scopeSync(() => nd.sum(op.call(x2, w, bias)[0] as NDArray)));
      loss2.backward();
      expect(op.stats).toMatchObject({ signatures: 2, runners: 2 }); // forward only, and recorded
      const [r1, r2] = [await smallRef(x1, w, bias), await smallRef(x2, w, bias)];
      close(await host(y1), r1.y);
      close(await host(g1), r1.dx);
      close(await host(y2), r2.y);
      close(await host(x2.grad), r2.dx);
      close(await host(w.grad), r2.dw);
      dispose(x1, x2, w, bias, y1, y2, g1, head1, loss1, loss2);
      op.dispose();
    });
  });

  it('keeps what the backward reads when the caller disposes inputs and outputs first', async () => {
    await rt.leakCheck(async () => {
      const op = new CachedOp(rt, small(true));
      const [w, bias] = [arr([4, 3], 3), arr([3], 4)];
      const x = arr([4, 3], 1).attachGrad();
      const wIn = w.copy(); // the weight the call sees, disposed before the backward
      const ref = await smallRef(x, w, bias);
      const total = autograd.record(() =>
        rt.scopeSync(() => {
          const [y, e] = op.call(x, wIn, bias) as [NDArray, NDArray];
          // loss = sum(y) + sum(e * e): d/dx = exp(x) w + 2 e^2
          const t = nd.add(nd.sum(y), nd.sum(nd.elemwise_mul(e, e)));
          dispose(y, e); // before the backward, which reads e
          return t;
        }),
      );
      wIn.dispose();
      // Fresh arrays of the same sizes would take freed memory (and overwrite it).
      const junk = [0, 1, 2, 3].map(() => nd.full([4, 3], 99));
      total.backward();
      const xs = await host(x);
      close(
        await host(x.grad),
        ref.dx.map((d, i) => d + 2 * Math.exp(2 * (xs[i] as number))),
      );
      dispose(x, w, bias, total, junk);
      op.dispose();
    });
  });

  it('copies an output that is an input or returned twice; casts head gradients of another dtype', async () => {
    await rt.leakCheck(async () => {
      const xv = b.v('x');
      const e = b.op('exp', 'e', [xv]);
      // inlineLimit 0: compiled even though it is one op.
      const op = new CachedOp(rt, b.sym(xv, e, e), { inlineLimit: 0 });
      expect(op.isInlined).toBe(false);
      const x = arr([2, 3], 1);
      const [c, e1, e2] = op.call(x) as [NDArray, NDArray, NDArray];
      expect(c).not.toBe(x);
      expect(e1).not.toBe(e2);
      const xs = await host(x);
      e1.set(0);
      close(await host(c), xs);
      close(await host(e2), xs.map(Math.exp));
      // A float64 head gradient reaches the float32 graph cast.
      const net = new CachedOp(rt, small());
      const [w, bias] = [arr([4, 3], 3), arr([3], 4)];
      const v = arr([4, 3], 2).attachGrad();
      const y = autograd.record(() => net.call(v, w, bias)[0] as NDArray);
      const head = nd.array(
        Array.from({ length: 12 }, (_, i) => i / 4),
        { shape: [4, 3], dtype: 'float64' },
      );
      y.backward(head);
      const ref = await smallRef(v, w, bias);
      close(
        await host(v.grad),
        ref.dx.map((d, i) => (d * i) / 4),
      );
      dispose(x, c, e1, e2, w, bias, v, y, head);
      op.dispose();
      net.dispose();
    });
  });
});
