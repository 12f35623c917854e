/**
 * Executors with sparse arrays, against NumPy/SciPy (tools/golden/sparse/graph_executor.py):
 * forward and backward with a csr argument (FullyConnected on csr data) and a row_sparse argument
 * (a dense-only op falling back), `cast_storage` making a csr output inside the graph, simpleBind's
 * `stypes` and `__storage_type__` (also from JSON), gradients allocated in their inferred storage
 * type (dot(csr, w): a row_sparse weight gradient), mixed execution (imperative nodes between
 * bulked dense stretches), the fallback log, leaks, and the bad paths — each refused at bind.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpu, Env, isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { CSRNDArray, createRuntime, type NDArray, RowSparseNDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SymbolApi } from '../symbol/index.js';
import { bind } from './index.js';

interface Csr {
  shape: number[];
  data: number[];
  indices: number[];
  indptr: number[];
}
interface Rsp {
  shape: number[];
  data: number[];
  indices: number[];
}
type Num = number[];
const golden = JSON.parse(
  readFileSync(fileURLToPath(new URL('../__golden__/sparse-executor.json', import.meta.url)), 'utf8'),
) as {
  fc_csr: { data: Csr; weight: Num; bias: Num; og: Num; out: Num; grad_weight: Num; grad_bias: Num };
  rsp_mul: { data: Rsp; data_dense: Num; w: Num; og: Num; og2: Num; out: Num; out2: Num; grad_w: Num };
  cast_chain: {
    x: Num;
    x_csr: Csr;
    w: Num;
    og_c: Num;
    og_r: Num;
    e: Num;
    r: Num;
    grad_x: Num;
    grad_w: Num;
  };
  dot_csr: { data: Csr; w: Num; og: Num; out: Num; grad_w: Num; grad_w_rows: Num };
};

const rt = createRuntime({
  backends: [new CpuWasmBackend({ workers: 0 })],
  env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }),
});
const { nd } = rt;
const sym = new SymbolApi(rt);
afterAll(() => rt.dispose());

const f32 = (v: Num) => Float32Array.from(v);
const csr = (c: Csr) =>
  nd.sparse.csrMatrix({ data: f32(c.data), indices: c.indices, indptr: c.indptr }, { shape: c.shape });
const dense = (v: Num, shape: number[]) => nd.array(f32(v), { shape });
const close = async (a: NDArray | undefined, want: Num, tol = 1e-5) => {
  if (a === undefined) throw new Error('no array');
  const got = Array.from((await a.data()) as Float32Array);
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i] as number)));
  });
};
/** The message of the MXNetError `fn` throws. */
const thrown = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected an MXNetError');
};

/** sigmoid(FullyConnected(data, weight, bias)) with a csr data variable. */
const fcNet = () =>
  sym.sigmoid(sym.FullyConnected(sym.var('data', { stype: 'csr' }), { num_hidden: 3, name: 'fc' }), {
    name: 'sig',
  });

/** c = cast_storage(x, csr); r = relu(sigmoid(c) * w): outputs [c, r]. */
const castChain = () => {
  const c = sym.cast_storage(sym.var('x'), { stype: 'csr', name: 'c' });
  const e = sym.elemwise_mul(sym.sigmoid(c, { name: 's' }), sym.var('w'), { name: 'm' });
  return sym.Group([c, sym.relu(e, { name: 'r' })]);
};

describe('a csr argument', () => {
  it('bind: FullyConnected on csr data, forward and backward against NumPy', async () => {
    const g = golden.fc_csr;
    await nd.leakCheck(async () => {
      const data = csr(g.data);
      const weight = dense(g.weight, [3, 6]);
      const bias = dense(g.bias, [3]);
      const gw = nd.zeros([3, 6]);
      const gb = nd.zeros([3]);
      const ex = bind(rt, fcNet(), {
        args: { data, fc_weight: weight, fc_bias: bias },
        argsGrad: { fc_weight: gw, fc_bias: gb },
      });
      expect(ex.argDict.data).toBe(data);
      // FullyConnected reads csr data: the storage dispatch; sigmoid and the backward's dense part: planned.
      expect(ex.segments('forward')).toEqual([['fc'], ['sig']]);
      const [out] = ex.forward({ isTrain: true });
      expect(out?.stype).toBe('default');
      await close(out, g.out);
      const og = dense(g.og, [4, 3]);
      ex.backward(og);
      await close(gw, g.grad_weight);
      await close(gb, g.grad_bias);
      // A second step gives the same (outputs and gradients are overwritten, not accumulated).
      ex.forward({ isTrain: true });
      ex.backward(og);
      await close(gw, g.grad_weight);
      ex.dispose();
      for (const a of [data, weight, bias, gw, gb, og]) a.dispose();
    });
  });

  it('simpleBind takes the stype of sym.var (also read back from JSON) and stypes', async () => {
    const g = golden.fc_csr;
    const fromJson = sym.fromJSON(fcNet().toJSON());
    expect(fcNet().toJSON()).toContain('"__storage_type__": "2"');
    for (const s of [fcNet(), fromJson]) {
      const ex = s.simpleBind({
        shapes: { data: [4, 6] },
        gradReq: { fc_weight: 'write', fc_bias: 'write' },
      });
      expect(ex.argDict.data).toBeInstanceOf(CSRNDArray);
      expect(ex.gradDict.fc_weight?.stype).toBe('default');
      const data = csr(g.data);
      ex.copyParamsFrom({ data, fc_weight: dense(g.weight, [3, 6]), fc_bias: dense(g.bias, [3]) });
      await close(ex.forward({ isTrain: true })[0], g.out);
      ex.backward(dense(g.og, [4, 3]));
      await close(ex.gradDict.fc_weight, g.grad_weight);
      ex.dispose();
    }
    // stypes (MXNet stype_dict) overrides the attribute; the stype is that of the bound array.
    const d = sym.var('data');
    const ex = sym.exp(d).simpleBind({ shapes: { data: [2, 3] }, stypes: { data: 'row_sparse' } });
    expect(ex.argDict.data).toBeInstanceOf(RowSparseNDArray);
    ex.dispose();
  });
});

describe('a row_sparse argument', () => {
  it('a dense-only op falls back (logged once), forward and backward against NumPy', async () => {
    const g = golden.rsp_mul;
    const rtLog = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
    const s = new SymbolApi(rtLog);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const data = s.var('data');
      const net = s.Group([
        s.elemwise_mul(s.sigmoid(data, { name: 'sig' }), s.var('w'), { name: 'out' }),
        s.elemwise_add(data, data, { name: 'out2' }),
      ]);
      const nd2 = rtLog.nd;
      const w = nd2.array(f32(g.w), { shape: [5, 3] });
      const gw = nd2.zeros([5, 3]);
      const x = nd2.sparse.rowSparseArray(
        { data: f32(g.data.data), indices: g.data.indices },
        { shape: [5, 3] },
      );
      const ex = bind(rtLog, net, { args: { data: x, w }, argsGrad: { w: gw } });
      const [out, out2] = ex.forward({ isTrain: true });
      await close(out, g.out);
      await close(out2, g.out2);
      ex.backward([nd2.array(f32(g.og), { shape: [5, 3] }), nd2.array(f32(g.og2), { shape: [5, 3] })]);
      await close(gw, g.grad_w);
      ex.forward();
      await rtLog.waitall();
      const logs = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('operator = sigmoid'));
      expect(logs).toHaveLength(1);
      expect(logs[0]).toContain('input storage types = [row_sparse, ]');
      ex.dispose();
    } finally {
      warn.mockRestore();
      await rtLog.dispose();
    }
  });
});

describe('sparse entries inside a dense-argument graph', () => {
  it('cast_storage gives a CSRNDArray output; the rest runs on the dense path around it', async () => {
    const g = golden.cast_chain;
    await nd.leakCheck(async () => {
      const ex = castChain().simpleBind({ shapes: { x: [3, 4] } });
      expect(ex.outputs[0]).toBeInstanceOf(CSRNDArray);
      expect(ex.outputs[1]?.stype).toBe('default');
      expect(ex.gradDict.x?.stype).toBe('default');
      // c and s run one by one through the storage dispatch; m and r are one bulked dense stretch.
      expect(ex.segments('forward')).toEqual([['c'], ['s'], ['m', 'r']]);
      expect(ex.fusedNodes).toBe(0);
      const made: NDArray[] = [];
      const t = (a: NDArray) => {
        made.push(a);
        return a;
      };
      ex.copyParamsFrom({ x: t(dense(g.x, [3, 4])), w: t(dense(g.w, [3, 4])) });
      const [c, r] = ex.forward({ isTrain: true });
      const parts = await (c as CSRNDArray).parts();
      expect(Array.from(parts.indptr ?? [], Number)).toEqual(g.x_csr.indptr);
      expect(Array.from(parts.indices ?? [], Number)).toEqual(g.x_csr.indices);
      await close(c, g.x);
      await close(r, g.r);
      ex.backward([t(dense(g.og_c, [3, 4])), t(dense(g.og_r, [3, 4]))]);
      await close(ex.gradDict.x, g.grad_x);
      await close(ex.gradDict.w, g.grad_w);
      // A sparse head gradient (here x as csr) is accepted: densified into the head-gradient array.
      ex.backward([t(csr(g.x_csr)), t(dense(g.og_r, [3, 4]))]);
      await close(
        ex.gradDict.x,
        g.grad_x.map((v, i) => v - (g.og_c[i] as number) + (g.x[i] as number)),
      );
      ex.dispose();
      for (const a of made) a.dispose();
    });
  });

  it('an all-dense graph keeps today’s path: storage types given as default change nothing', () => {
    const x = sym.var('x');
    const net = sym.relu(sym.exp(sym.elemwise_mul(x, x)));
    const a = net.simpleBind({ shapes: { x: [4] } });
    const b = net.simpleBind({ shapes: { x: [4] }, stypes: { x: 'default' } });
    expect(a.fusedNodes).toBeGreaterThan(0);
    expect([b.fusedNodes, b.segments('forward'), b.plannedBytes]).toEqual([
      a.fusedNodes,
      a.segments('forward'),
      a.plannedBytes,
    ]);
    a.dispose();
    b.dispose();
  });
});

describe('gradients in their inferred storage type', () => {
  const sparseDot = rt.registry.get('dot').def.inferStorageType !== undefined;
  // Needs dot's storage inference (MXNet DotBackwardInferStorageType: csrᵀ·og is row_sparse).
  it.runIf(sparseDot)(
    'simpleBind: dot(csr, w) gives a row_sparse weight gradient (NumPy values)',
    async () => {
      const g = golden.dot_csr;
      const net = sym.dot(sym.var('data', { stype: 'csr' }), sym.var('w'));
      const ex = net.simpleBind({ shapes: { data: [4, 6], w: [6, 3] }, gradReq: { w: 'write' } });
      const gw = ex.gradDict.w as RowSparseNDArray;
      expect(gw).toBeInstanceOf(RowSparseNDArray);
      ex.copyParamsFrom({ data: csr(g.data), w: dense(g.w, [6, 3]) });
      await close(ex.forward({ isTrain: true })[0], g.out);
      ex.backward(dense(g.og, [4, 3]));
      await close(gw, g.grad_w);
      const rows = Array.from((await gw.parts()).indices ?? [], Number);
      // Stored rows: at most those of the columns data uses (a kernel may store exactly those).
      expect(rows.every((r) => g.grad_w_rows.includes(r))).toBe(true);
      ex.dispose();
    },
  );

  it('bind: a row_sparse array for a dense gradient gets the cast result; gradReq add accumulates', async () => {
    const g = golden.cast_chain;
    // grad of x flows through cast_storage's gradient (_copy); bind a row_sparse array for it.
    const x = dense(g.x, [3, 4]);
    const w = dense(g.w, [3, 4]);
    const gx = nd.sparse.zeros('row_sparse', [3, 4]);
    const gw = dense(g.grad_w, [3, 4]);
    const ex = bind(rt, castChain(), {
      args: { x, w },
      argsGrad: { x: gx, w: gw },
      gradReq: { x: 'write', w: 'add' },
    });
    ex.forward({ isTrain: true });
    ex.backward([dense(g.og_c, [3, 4]), dense(g.og_r, [3, 4])]);
    expect(ex.gradDict.x).toBe(gx);
    expect(gx.stype).toBe('row_sparse');
    await close(gx, g.grad_x);
    await close(
      gw,
      g.grad_w.map((v) => 2 * v),
    );
    ex.dispose();
  });
});

describe('bad sparse binds', () => {
  it('an op refusing the storage types is named at bind, and nothing is left allocated', async () => {
    await nd.leakCheck(async () => {
      const net = sym.cast_storage(sym.var('x'), { stype: 'row_sparse', name: 'to_rsp' });
      const x = nd.sparse.zeros('csr', [2, 3]);
      expect(thrown(() => bind(rt, net, { args: { x } }))).toMatch(
        /node `to_rsp` \(cast_storage\)[\s\S]*cast_storage from csr to row_sparse is not supported/,
      );
      expect(thrown(() => net.simpleBind({ shapes: { x: [2, 3] }, stypes: { x: 'csr' } }))).toMatch(
        /cast_storage from csr to row_sparse/,
      );
      x.dispose();
    });
  });

  it('stypes naming a non-argument, a bad storage type, csr on a 3-D argument', () => {
    const net = sym.exp(sym.var('x'));
    expect(thrown(() => net.simpleBind({ shapes: { x: [2, 3] }, stypes: { y: 'csr' } }))).toMatch(
      /a storage type given for y, which is not an argument/,
    );
    expect(thrown(() => net.simpleBind({ shapes: { x: [2, 3] }, stypes: { x: 'coo' as 'csr' } }))).toMatch(
      /storage type of x must be 'default', 'row_sparse' or 'csr', got coo/,
    );
    expect(thrown(() => net.simpleBind({ shapes: { x: [2, 3, 4] }, stypes: { x: 'csr' } }))).toMatch(
      /x: a csr array is 2-D, the inferred shape is \(2, 3, 4\)/,
    );
  });

  it('an op with no kernel to fall back to is refused at bind, naming the node', () => {
    const rt2 = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
    rt2.registry.define({
      name: '_test_no_kernel',
      inferShape: (_a, ins, outs) => {
        outs[0] = ins[0];
        return ins[0] !== undefined;
      },
    });
    const s = new SymbolApi(rt2);
    const net = s.invoke('_test_no_kernel', s.var('x', { stype: 'csr' }), { name: 'nk' });
    expect(thrown(() => net.simpleBind({ shapes: { x: [2, 3] }, gradReq: 'null' }))).toMatch(
      /node nk \(_test_no_kernel\): no sparse kernel on cpu-wasm for storage types \(csr\), and no dense kernel to fall back to/,
    );
    void rt2.dispose();
  });

  it('reshape of an executor with sparse arrays is refused', () => {
    const ex = fcNet().simpleBind({ shapes: { data: [4, 6] }, gradReq: 'null' });
    expect(thrown(() => ex.reshape({ data: [2, 6] }))).toMatch(/reshape of an executor with sparse storage/);
    ex.dispose();
  });

  it('host values and dense arrays copy into a sparse argument (cast to its storage type)', async () => {
    const g = golden.fc_csr;
    const ex = fcNet().simpleBind({ shapes: { data: [4, 6] }, gradReq: 'null' });
    ex.copyParamsFrom({ fc_weight: dense(g.weight, [3, 6]), fc_bias: dense(g.bias, [3]) });
    const d = g.data;
    const flatDense = new Array(24).fill(0);
    d.indptr.slice(0, -1).forEach((p, r) => {
      for (let k = p; k < (d.indptr[r + 1] as number); k++)
        flatDense[r * 6 + (d.indices[k] as number)] = d.data[k];
    });
    await close(ex.forward({ data: flatDense })[0], g.out);
    expect(ex.argDict.data).toBeInstanceOf(CSRNDArray);
    await close(ex.forward({ data: dense(flatDense, [4, 6]) })[0], g.out);
    expect(cpu(0)).toBe(ex.ctx);
    ex.dispose();
  });
});
