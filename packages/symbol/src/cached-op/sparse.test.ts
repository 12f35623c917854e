/**
 * CachedOp with sparse arrays (what a hybridized Gluon block runs on a CSRNDArray batch), against
 * NumPy/SciPy (tools/golden/sparse/graph_executor.py): a csr data input with dense parameters
 * recorded by autograd as one node (compiled and inlined), storage types in the signature (a
 * dense call of the same op is another signature with the same values), a csr output made inside
 * the graph and returned as a new CSRNDArray per call, and leaks.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { CSRNDArray, createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { SymbolApi } from '../symbol/index.js';
import { CachedOp, type CachedOpOptions } from './index.js';

type Num = number[];
interface Csr {
  shape: number[];
  data: Num;
  indices: Num;
  indptr: Num;
}
const golden = JSON.parse(
  readFileSync(fileURLToPath(new URL('../__golden__/sparse-executor.json', import.meta.url)), 'utf8'),
) as {
  fc_csr: {
    data: Csr;
    data_dense: Num;
    weight: Num;
    bias: Num;
    og: Num;
    out: Num;
    grad_weight: Num;
    grad_bias: Num;
  };
  cast_chain: { x: Num; x_csr: Csr; w: Num; og_c: Num; og_r: Num; r: Num; grad_x: Num; grad_w: Num };
};

const rt = createRuntime({
  backends: [new CpuWasmBackend({ workers: 0 })],
  env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }),
});
const { nd, autograd } = rt;
const sym = new SymbolApi(rt);
afterAll(() => rt.dispose());

const f32 = (v: Num) => Float32Array.from(v);
const csr = (c: Csr) =>
  nd.sparse.csrMatrix({ data: f32(c.data), indices: c.indices, indptr: c.indptr }, { shape: c.shape });
const dense = (v: Num, shape: number[]) => nd.array(f32(v), { shape });
const close = async (a: NDArray | null | undefined, want: Num, tol = 1e-5) => {
  if (a == null) throw new Error('no array');
  const got = Array.from((await a.data()) as Float32Array);
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i] as number)));
  });
};

const fcNet = () =>
  sym.sigmoid(sym.FullyConnected(sym.var('data'), { num_hidden: 3, name: 'fc' }), { name: 'sig' });

/** A csr batch through sigmoid(FullyConnected): two recorded steps, then a dense call. */
async function fcSteps(options: CachedOpOptions): Promise<void> {
  const g = golden.fc_csr;
  await nd.leakCheck(async () => {
    const op = new CachedOp(rt, fcNet(), options);
    expect(op.inputNames).toEqual(['data', 'fc_weight', 'fc_bias']);
    const weight = dense(g.weight, [3, 6]).attachGrad();
    const bias = dense(g.bias, [3]).attachGrad();
    const og = dense(g.og, [4, 3]);
    for (let step = 0; step < 2; step++) {
      const data = csr(g.data);
      const out = autograd.record(() => op.call(data, weight, bias)[0] as NDArray);
      expect(out.stype).toBe('default');
      await close(out, g.out);
      out.backward(og);
      await close(weight.grad, g.grad_weight);
      await close(bias.grad, g.grad_bias);
      out.dispose();
      data.dispose();
    }
    if (!op.isInlined) expect(op.stats.compiles).toBe(1);
    // Dense data of the same values: another signature, the same results (fallback = dense math).
    const dd = dense(g.data_dense, [4, 6]);
    const out = op.call(dd, weight, bias)[0] as NDArray;
    await close(out, g.out);
    if (!op.isInlined) expect(op.stats.compiles).toBe(2);
    op.dispose();
    for (const a of [weight, bias, og, dd, out]) a.dispose();
  });
}

describe('a csr input (hybridized block on a sparse batch)', () => {
  it.each([
    ['compiled', { staticAlloc: true }],
    ['compiled, dynamic', { inlineLimit: 0 }],
  ] as const)('%s: one autograd node, NumPy forward and parameter gradients', (_name, options) =>
    fcSteps(options),
  );

  // The inlined path records each op on the imperative tape (saved inputs stay sparse).
  it('inlined: op by op on the tape', () => fcSteps({}));
});

describe('a sparse output made inside the graph', () => {
  it('cast_storage: each call returns a new CSRNDArray; gradients through it match NumPy', async () => {
    const g = golden.cast_chain;
    await nd.leakCheck(async () => {
      const c = sym.cast_storage(sym.var('x'), { stype: 'csr', name: 'c' });
      const net = sym.Group([c, sym.relu(sym.elemwise_mul(sym.sigmoid(c), sym.var('w')))]);
      const op = new CachedOp(rt, net, { staticAlloc: true });
      const x = dense(g.x, [3, 4]).attachGrad();
      const w = dense(g.w, [3, 4]).attachGrad();
      const [c1, r1] = autograd.record(() => op.call(x, w)) as [NDArray, NDArray];
      expect(c1).toBeInstanceOf(CSRNDArray);
      const parts = await (c1 as CSRNDArray).parts();
      expect([Array.from(parts.indptr ?? [], Number), Array.from(parts.indices ?? [], Number)]).toEqual([
        g.x_csr.indptr,
        g.x_csr.indices,
      ]);
      await close(r1, g.r);
      const heads = [dense(g.og_c, [3, 4]), dense(g.og_r, [3, 4])];
      autograd.backward([c1, r1], { headGrads: heads });
      await close(x.grad, g.grad_x);
      await close(w.grad, g.grad_w);
      // A second call: new output arrays, the first call's stay as they were.
      const [c2, r2] = op.call(x, w) as [NDArray, NDArray];
      expect(c2).not.toBe(c1);
      expect(c2).toBeInstanceOf(CSRNDArray);
      await close(c1, g.x);
      await close(c2, g.x);
      expect(op.stats.compiles).toBe(2); // recorded and not recorded: two signatures
      op.dispose();
      for (const a of [x, w, c1, r1, c2, r2, ...heads]) a.dispose();
    });
  });
});
