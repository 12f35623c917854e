/**
 * Autograd on cpu-wasm: modes and scopes, variables (write/add/null), backward/grad with head
 * gradients, retained and freed graphs, higher-order gradients, detach, custom Functions, views,
 * and the bad paths (not recorded, non-differentiable op, freed graph) leaving gradients intact.
 * Expected values are analytic derivatives evaluated with Math, independent of the framework.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry, E } from '@mx/ops';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../index.js';

const registry = createOpRegistry();
// A SimpleOp without a gradient: backward through it must fail.
registry.define({
  name: 'test_nograd',
  inferShape: (_a, i, o) => {
    o[0] = i[0];
    return i[0] !== undefined;
  },
  elementwise: { forward: E.mul(E.x, 2) },
});
const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], registry });
const { nd, autograd } = rt;
afterAll(() => nd.waitall());

const values = async (a: NDArray | undefined): Promise<number[]> => {
  if (a === undefined) throw new Error('no array');
  return Array.from((await a.data()) as Float32Array);
};
const close = (got: number[], want: number[], tol = 1e-5) => {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i] as number)));
  });
};

describe('modes', () => {
  it('record/pause/train/predict set the flags for their body only', () => {
    expect(autograd.isRecording).toBe(false);
    expect(autograd.isTraining).toBe(false);
    autograd.record(() => {
      expect(autograd.isRecording).toBe(true);
      expect(autograd.isTraining).toBe(true);
      autograd.pause(() => {
        expect(autograd.isRecording).toBe(false);
        expect(autograd.isTraining).toBe(false);
      });
      autograd.predictMode(() => expect(autograd.isTraining).toBe(false));
      expect(autograd.isTraining).toBe(true);
    });
    autograd.record(() => expect(autograd.isTraining).toBe(false), { trainMode: false });
    autograd.trainMode(() => expect(autograd.isTraining).toBe(true));
    expect(autograd.isRecording).toBe(false);
  });

  it('keeps recording across awaits, and interleaved bodies keep their own mode', async () => {
    const x = nd.array([1, 2]).attachGrad();
    const tick = () => new Promise((r) => setTimeout(r, 1));
    const [y] = await Promise.all([
      autograd.record(async () => {
        await tick();
        expect(autograd.isRecording).toBe(true);
        return x.mul(x);
      }),
      (async () => {
        await tick();
        expect(autograd.isRecording).toBe(false);
      })(),
    ]);
    y.backward();
    close(await values(x.grad), [2, 4]);
  });

  it('setRecording/setTraining return the previous value', () => {
    autograd.record(() => {
      expect(autograd.setRecording(false)).toBe(true);
      expect(autograd.isRecording).toBe(false);
      expect(autograd.setTraining(false)).toBe(true);
    });
    expect(autograd.isRecording).toBe(false);
  });
});

describe('backward', () => {
  it('differentiates a composite expression', async () => {
    const xs = [0.5, 1, 2];
    const x = nd.array(xs).attachGrad();
    const y = autograd.record(() =>
      x
        .mul(x)
        .mul(x)
        .add(nd.sin(x) as NDArray),
    );
    y.backward();
    close(
      await values(x.grad),
      xs.map((v) => 3 * v * v + Math.cos(v)),
    );
  });

  it('uses head gradients and sums gradients of a value used twice', async () => {
    const x = nd.array([1, 2, 3]).attachGrad();
    const y = autograd.record(() => x.mul(3).add(x.exp()));
    y.backward(nd.array([1, 0.5, -1]));
    close(await values(x.grad), [1 * (3 + Math.E), 0.5 * (3 + Math.exp(2)), -1 * (3 + Math.exp(3))]);
  });

  it("gradReq 'add' accumulates, 'write' overwrites, 'null' skips", async () => {
    const a = nd.array([1, 2]).attachGrad('add');
    const w = nd.array([1, 2]).attachGrad('write');
    const n = nd.array([1, 2]).attachGrad('null');
    for (let i = 0; i < 3; i++) autograd.record(() => a.mul(w).mul(n)).backward();
    close(await values(a.grad), [3 * 1 * 1, 3 * 2 * 2]);
    close(await values(w.grad), [1, 4]);
    close(await values(n.grad), [0, 0]);
  });

  it('frees the graph unless retainGraph, and says so', async () => {
    const x = nd.array([2]).attachGrad();
    const y = autograd.record(() => x.mul(x));
    y.backward(undefined, { retainGraph: true });
    y.backward();
    close(await values(x.grad), [4]);
    expect(() => y.backward()).toThrow(/freed by an earlier backward/);
  });

  it('records views: reshape, slice and at', async () => {
    const x = nd.array([1, 2, 3, 4, 5, 6]).attachGrad();
    const y = autograd.record(() => {
      const m = x.reshape([3, 2]);
      const corner = nd.broadcast_to(m.at(0, 1).reshape([1]), { shape: [4] }) as NDArray;
      return m.slice(1, 3).mul(2).reshape([4]).add(corner);
    });
    y.backward();
    close(await values(x.grad), [0, 4, 2, 2, 2, 2]);
  });

  it('detach cuts the graph', async () => {
    const x = nd.array([3]).attachGrad();
    const y = autograd.record(() => x.mul(x.detach()));
    y.backward();
    close(await values(x.grad), [3]);
  });
});

describe('grad and higher order', () => {
  it('returns gradients without touching .grad', async () => {
    const x = nd.array([1, 2]).attachGrad();
    const [g] = autograd.record(() => autograd.grad(x.mul(x).mul(x), x));
    close(await values(g), [3, 12]);
    close(await values(x.grad), [0, 0]);
  });

  it('createGraph gives second and third derivatives', async () => {
    const xs = [0.3, 1.2];
    const x = nd.array(xs).attachGrad();
    const [g2] = autograd.record(() => {
      const y = nd.sin(x) as NDArray;
      const [g1] = autograd.grad(y.mul(x), x, { createGraph: true });
      return autograd.grad(g1 as NDArray, x, { createGraph: true });
    });
    // d²/dx² (x sin x) = 2 cos x − x sin x
    close(
      await values(g2),
      xs.map((v) => 2 * Math.cos(v) - v * Math.sin(v)),
      1e-4,
    );
    (g2 as NDArray).backward();
    // d³/dx³ (x sin x) = −3 sin x − x cos x
    close(
      await values(x.grad),
      xs.map((v) => -3 * Math.sin(v) - v * Math.cos(v)),
      1e-4,
    );
  });
});

describe('custom Function', () => {
  class Sigmoid extends autograd.Function {
    forward(x: NDArray): NDArray {
      const y = nd.sigmoid(x) as NDArray;
      this.saveForBackward(y);
      return y;
    }
    backward(dy: NDArray): NDArray {
      const [y] = this.savedTensors as [NDArray];
      return dy.mul(y.mul(y.neg().add(1)));
    }
  }

  it('uses the user backward inside a recorded graph', async () => {
    const xs = [-1, 0, 2];
    const x = nd.array(xs).attachGrad();
    const y = autograd.record(() => (new Sigmoid().apply(x.mul(2)) as NDArray).mul(3));
    y.backward();
    const s = (v: number) => 1 / (1 + Math.exp(-v));
    close(
      await values(x.grad),
      xs.map((v) => 3 * 2 * s(2 * v) * (1 - s(2 * v))),
    );
  });
});

describe('bad input', () => {
  it('backward of an unrecorded array is an MXNetError', () => {
    const x = nd.array([1]);
    let err: unknown;
    try {
      x.mul(2).backward();
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err)).toBe(true);
    expect((err as Error).message).toMatch(/not in a computational graph/);
  });

  it('a non-differentiable op fails before any gradient is written', async () => {
    const x = nd.array([1, 2]).attachGrad('add');
    autograd.record(() => x.mul(x)).backward();
    const y = autograd.record(() => (nd.test_nograd as (a: NDArray) => NDArray)(x).add(x.mul(x)));
    let err: unknown;
    try {
      y.backward();
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err)).toBe(true);
    expect((err as Error).message).toMatch(/test_nograd is non-differentiable/);
    expect((err as Error).message).toMatch(/\(2,\)/);
    close(await values(x.grad), [2, 4]);
  });

  it('head gradient shape mismatch is an MXNetError', () => {
    const x = nd.array([1, 2]).attachGrad();
    const y = autograd.record(() => x.mul(x));
    expect(() => y.backward(nd.array([1, 2, 3]))).toThrow(/head gradient 0 has shape \(3,\)/);
  });

  it('a backward that throws leaves no gradient arrays behind', async () => {
    class Broken extends autograd.Function {
      forward(x: NDArray): NDArray {
        return x.mul(2);
      }
      backward(): NDArray {
        throw new Error('broken backward');
      }
    }
    const x = nd.array([1, 2]).attachGrad();
    await nd.leakCheck(async () => {
      await nd.scope(() => {
        const y = autograd.record(() => (new Broken().apply(x.exp()) as NDArray).mul(x).exp());
        expect(() => y.backward()).toThrow(/broken backward/);
      });
    });
  });

  it('leaves no arrays behind', async () => {
    const x = nd.array([1, 2]).attachGrad();
    await nd.leakCheck(async () => {
      await nd.scope(() => autograd.record(() => x.mul(x).exp().mul(x)).backward());
      await x.grad?.data();
    });
  });
});
