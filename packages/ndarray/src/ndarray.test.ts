import { gpu, isMXNetError, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry, OpRegistry, P } from '@mx/ops';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, NDArray, type Runtime } from './index.js';
import { HostTestBackend } from './test-util/host-backend.js';

/** A registry with a few test ops whose kernels we control (the core ops are tested elsewhere). */
function testRegistry(): OpRegistry {
  const r = new OpRegistry();
  r.define(createOpRegistry().get('_copyto').def);
  const same = (
    _a: unknown,
    ins: (readonly number[] | undefined)[],
    outs: (readonly number[] | undefined)[],
  ) => {
    outs[0] = ins[0];
    return true;
  };
  r.define({ name: 'test_add', numInputs: 2, inferShape: same });
  r.define({ name: 'test_scale', params: { k: P.float({ default: 2 }) }, inferShape: same });
  r.define({ name: 'test_fail', inferShape: same });
  r.define({ name: 'test_slow', inferShape: same });
  r.define({
    name: 'test_fill',
    numInputs: 0,
    params: { shape: P.shape(), ctx: P.string({ default: '' }) },
    inferShape: (a, _ins, outs) => {
      outs[0] = (a as { shape: readonly number[] }).shape;
      return true;
    },
    inferType: (_a, _ins, outs) => {
      outs[0] = 'float32';
      return true;
    },
  });
  r.define({
    name: 'test_two',
    numOutputs: 2,
    numVisibleOutputs: 1,
    inferShape: (_a, ins, outs) => {
      outs[0] = ins[0];
      outs[1] = ins[0];
      return true;
    },
  });
  return r;
}

function installTestKernels(rt: Runtime, backend: CpuWasmBackend): void {
  const view = (b: Parameters<CpuWasmBackend['readSync']>[0]) => backend.runtime.view(b) as Float32Array;
  rt.registry.registerKernel('test_add', 'cpu-wasm', {
    compute(_a, _c, ins, _req, outs) {
      const [x, y, o] = [view(ins[0] as never), view(ins[1] as never), view(outs[0] as never)];
      for (let i = 0; i < o.length; i++) o[i] = (x[i] as number) + (y[i] as number);
    },
  });
  rt.registry.registerKernel<{ k: number }>('test_scale', 'cpu-wasm', {
    compute(a, _c, ins, req, outs) {
      const [x, o] = [view(ins[0] as never), view(outs[0] as never)];
      for (let i = 0; i < o.length; i++)
        o[i] = (req[0] === 3 ? (o[i] as number) : 0) + a.k * (x[i] as number);
    },
  });
  rt.registry.registerKernel('test_slow', 'cpu-wasm', {
    execType: 'async',
    compute(_a, c, ins, _r, outs) {
      setTimeout(() => {
        view(outs[0] as never).set(view(ins[0] as never));
        c.onComplete?.();
      }, 5);
    },
  });
  rt.registry.registerKernel('test_fail', 'cpu-wasm', {
    compute() {
      throw new MXNetError('kernel failed on purpose', { op: 'test_fail' });
    },
  });
  rt.registry.registerKernel('test_two', 'cpu-wasm', {
    compute(_a, _c, ins, _r, outs) {
      view(outs[0] as never).set(view(ins[0] as never));
      view(outs[1] as never).fill(7);
    },
  });
}

let rt: Runtime;
function setup(withGpu = false): Runtime {
  const backend = new CpuWasmBackend({ initialPages: 16 });
  const backends = withGpu ? [backend, new HostTestBackend()] : [backend];
  rt = createRuntime({ backends, registry: testRegistry(), seed: 1 });
  installTestKernels(rt, backend);
  return rt;
}
afterEach(async () => {
  await rt?.dispose();
});

describe('creation and reads', () => {
  it('round-trips nested arrays, typed arrays, zero-dim and zero-size arrays', async () => {
    const { nd } = setup();
    const a = nd.array([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(a.shape).toEqual([2, 3]);
    expect(a.dtype).toBe('float32');
    expect(await a.array()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    const b = nd.array(new Int32Array([1, -2, 3, -4]), { shape: [2, 2] });
    expect(b.dtype).toBe('int32');
    expect(b.arraySync()).toEqual([
      [1, -2],
      [3, -4],
    ]);
    const s = nd.array(3.5);
    expect(s.shape).toEqual([]);
    expect(await s.item()).toBe(3.5);
    const z = nd.array(new Float32Array(0), { shape: [2, 0, 3] });
    expect(z.size).toBe(0);
    expect(await z.array()).toEqual([[], []]);
    const i64 = nd.array([1n, -(2n ** 40n)], { dtype: 'int64' });
    expect([...(await i64.data())]).toEqual([1n, -(2n ** 40n)]);
    const bools = nd.array([true, false], { dtype: 'bool' });
    expect(await bools.array()).toEqual([true, false]);
  });

  it('rejects ragged nested input with an MXNetError', () => {
    const { nd } = setup();
    expect(() => nd.array([[1, 2], [3]])).toThrow(/ragged/);
  });
});

describe('invoke through the engine', () => {
  it('runs a ready sync kernel at once, and queues one behind unfinished async work without blocking', async () => {
    const { nd } = setup();
    const x = nd.array([1, 2, 3]);
    const y = nd.array([10, 20, 30]);
    const z = nd.test_add!(x, y) as NDArray;
    expect(rt.engine.pendingOps).toBe(0); // inputs were idle: ran eagerly
    expect(z.dataSync()).toEqual(new Float32Array([11, 22, 33]));
    const slow = nd.test_slow!(x) as NDArray; // an async kernel (5 ms on a timer)
    const w = nd.test_add!(slow, y) as NDArray; // returns at once, queued behind it
    expect(rt.engine.pendingOps).toBe(2);
    expect(await w.array()).toEqual([11, 22, 33]);
    expect(rt.engine.pendingOps).toBe(0);
  });

  it('parses params from typed values and MXNet strings, and writes into out= with req add', async () => {
    const { nd } = setup();
    const x = nd.array([1, 2]);
    expect(await (nd.test_scale!(x, { k: '3' }) as NDArray).array()).toEqual([3, 6]);
    const acc = nd.array([100, 100]);
    nd.test_scale!(x, { k: 0.5, out: acc, req: 'add' });
    expect(await acc.array()).toEqual([100.5, 101]);
    expect(() => nd.test_scale!(x, { kk: 1 })).toThrow(/Cannot find argument 'kk'/);
  });

  it('hides hidden outputs', async () => {
    const { nd } = setup();
    const out = nd.test_two!(nd.array([1, 2])) as NDArray;
    expect(out).toBeInstanceOf(NDArray);
    expect(await out.array()).toEqual([1, 2]);
  });

  it('a kernel failure surfaces on every read of the failed arrays, and the runtime keeps working', async () => {
    const { nd } = setup();
    const x = nd.array([1, 2]);
    const bad = nd.test_fail!(x) as NDArray; // returns normally
    const dependent = nd.test_add!(bad, x) as NDArray;
    await expect(dependent.data()).rejects.toThrow(/kernel failed on purpose/);
    await expect(bad.data()).rejects.toThrow(/kernel failed on purpose/); // stays failed (sticky)
    expect(await (nd.test_add!(x, x) as NDArray).array()).toEqual([2, 4]);
    await nd.waitall(); // the engine delivered the error once (MXNet): waitall does not rethrow it
  });

  it('checks input counts, devices, dtypes and disposed inputs before pushing anything', async () => {
    const { nd } = setup(true);
    const x = nd.array([1, 2]);
    const before = nd.memory().arrays;
    expect(() => nd.test_add!(x)).toThrow(/expected 2 input/);
    const g = x.copyTo(gpu(0));
    expect(() => nd.test_add!(x, g)).toThrow(/different devices/);
    const h = nd.array([1, 2], { dtype: 'int16' });
    expect(() => nd.test_add!(h, h)).toThrow(/dtype int16 is not supported by test_add on cpu-wasm/);
    const d = nd.array([1, 2]);
    d.dispose();
    expect(() => nd.test_add!(d, x)).toThrow(/disposed/);
    await expect(d.data()).rejects.toThrow(/disposed/);
    try {
      nd.test_add!(x, g);
    } catch (e) {
      expect(isMXNetError(e)).toBe(true);
      expect((e as MXNetError).op).toBe('test_add');
      expect((e as MXNetError).shapes).toEqual([[2], [2]]);
    }
    expect(nd.memory().arrays).toBe(before + 2); // g and h only
    expect(await g.array()).toEqual([1, 2]);
    expect(() => g.dataSync()).toThrow(/cannot read synchronously/);
  });
});

describe('views, copies and in-place writes', () => {
  it('slice and at share storage with the base array', async () => {
    const { nd } = setup();
    const a = nd.array([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const rows = a.slice(1, 3);
    expect(rows.shape).toEqual([2, 2]);
    expect(await rows.array()).toEqual([
      [3, 4],
      [5, 6],
    ]);
    const cell = a.at(2, 1);
    expect(cell.shape).toEqual([]);
    expect(await cell.item()).toBe(6);
    rows.at(0).set([9, 9]);
    expect(await a.array()).toEqual([
      [1, 2],
      [9, 9],
      [5, 6],
    ]);
    expect(await a.at(-1).array()).toEqual([5, 6]);
    expect(() => a.at(3)).toThrow(/out of bounds/);
  });

  it('set copies host data and arrays; copyTo crosses backends explicitly', async () => {
    const { nd } = setup(true);
    const a = nd.array([0, 0, 0]);
    a.set([1, 2, 3]);
    expect(await a.array()).toEqual([1, 2, 3]);
    const g = a.copyTo(gpu(0));
    a.set([7, 7, 7]);
    const back = g.copyTo(a.ctx);
    expect(await back.array()).toEqual([1, 2, 3]);
    expect(await g.array()).toEqual([1, 2, 3]);
    expect(() => a.set([1])).toThrow(/3/);
    const viaOp = nd.invoke('_copyto', [a], {}, { ctx: gpu(0) })[0] as NDArray;
    expect(viaOp.ctx).toBe(gpu(0));
    expect(await viaOp.array()).toEqual([7, 7, 7]);
  });

  it("an op without inputs runs on its out= array's device (MXNet GetContext: out before the ctx param)", async () => {
    const { nd, registry } = setup(true);
    const ran: string[] = [];
    registry.registerKernel('test_fill', 'cpu-wasm', { compute: () => void ran.push('cpu-wasm') });
    registry.registerKernel('test_fill', 'host-test', { compute: () => void ran.push('host-test') });
    const g = nd.array([0, 0, 0]).copyTo(gpu(0));
    nd.invoke('test_fill', [], { shape: [3] }, { out: g });
    nd.invoke('test_fill', [], { shape: [3], ctx: 'cpu(0)' }, { out: [g] });
    const c = nd.invoke('test_fill', [], { shape: [3] })[0] as NDArray;
    await nd.waitall();
    expect(ran.sort()).toEqual(['cpu-wasm', 'host-test', 'host-test']);
    expect(c.ctx.toString()).toBe('cpu(0)');
  });
});

describe('memory', () => {
  it('dispose and using release storage after pending work', async () => {
    const { nd } = setup();
    const before = nd.memory();
    {
      using a = nd.array([1, 2, 3]);
      const v = a.slice(0, 1);
      expect(nd.memory().arrays).toBe(before.arrays + 2);
      expect(nd.memory().chunks).toBe(before.chunks + 1);
      v.dispose();
      v.dispose();
    }
    await nd.waitall();
    expect(nd.memory().arrays).toBe(before.arrays);
    expect(nd.memory().chunks).toBe(before.chunks);
  });

  it('scope disposes what the body created except its result, across awaits', async () => {
    const { nd } = setup();
    const keep = nd.array([1]);
    const before = nd.memory().arrays;
    const [r1, r2] = await Promise.all([
      nd.scope(async () => {
        const t = nd.array([1, 2]);
        await new Promise((r) => setTimeout(r, 5));
        const u = nd.test_add!(t, t) as NDArray;
        return u;
      }),
      nd.scope(async () => {
        const t = nd.array([5, 5]);
        await new Promise((r) => setTimeout(r, 1));
        return { out: nd.test_add!(t, t) as NDArray };
      }),
    ]);
    expect(await r1.array()).toEqual([2, 4]);
    expect(await r2.out.array()).toEqual([10, 10]);
    expect(nd.memory().arrays).toBe(before + 2);
    expect(keep.isDisposed).toBe(false);
  });

  it('a scope whose body throws disposes what it created', async () => {
    const { nd } = setup();
    const before = nd.memory().arrays;
    await expect(
      nd.scope(async () => {
        nd.array([1, 2]);
        await Promise.resolve();
        throw new Error('body failed');
      }),
    ).rejects.toThrow('body failed');
    expect(() =>
      nd.scopeSync(() => {
        nd.array([3]);
        throw new Error('sync body failed');
      }),
    ).toThrow('sync body failed');
    expect(nd.memory().arrays).toBe(before);
  });

  it('leakCheck names leaked arrays and where they were created', async () => {
    const { nd } = setup();
    let leaked: NDArray | undefined;
    const err = await nd
      .leakCheck(() => {
        leaked = nd.array([1, 2]);
        nd.array([3]).dispose();
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as Error).message).toMatch(/1 array\(s\) leaked/);
    expect((err as Error).message).toMatch(/ndarray\.test\.ts/);
    leaked?.dispose();
    await expect(nd.leakCheck(() => nd.array([1]).dispose())).resolves.toBeUndefined();
  });
});
