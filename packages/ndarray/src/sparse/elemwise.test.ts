/**
 * The sparse elementwise family through the runtime (storage dispatch over CpuWasmBackend), against
 * SciPy / NumPy golden data (tools/golden/sparse/elemwise.py): output storage types and parts of
 * `elemwise_add/sub/mul/div`, `_grad_add`, the zero-preserving unary and scalar ops and `add_n` for
 * every storage signature; the storage fallback (with MXNet's log) exactly where MXNet falls back and
 * nowhere else; dense calls never entering storage dispatch; gradients through autograd (row_sparse
 * parts summed by `_grad_add` stay row_sparse; elementwise ops on sparse inputs differentiate).
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import type { StorageType } from '@mx/ops';
import { afterAll, afterEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { CustomFunction } from '../autograd/function.js';
import { createRuntime, type NDArray } from '../index.js';
import { type BaseSparseNDArray, isSparse } from './arrays.js';
import { needsStorageDispatch } from './invoke-sparse.js';
import { sparseGolden } from './test-util.js';

type Num = number | string;
interface Part {
  stype: StorageType;
  dense: Num[];
  data?: Num[];
  indices?: number[];
  indptr?: number[];
}
interface Case {
  name: string;
  op?: string;
  params?: Record<string, unknown>;
  dtype: 'float32' | 'float64' | 'int32';
  shape: number[];
  inputs?: Part[];
  input?: Part;
  outStype: StorageType;
  served: boolean;
  out: Part;
}
const golden = sparseGolden<{ binary: Case[]; unary: Case[]; addN: Case[] }>('sparse-elemwise.json');

const backend = new CpuWasmBackend({ workers: 0 });
// Fallback logging on: the tests check it happens exactly where MXNet falls back.
const rt = createRuntime({ backends: [backend] });
const quiet = createRuntime({
  backends: [backend],
  env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }),
});
const nd = rt.nd;
afterAll(async () => {
  await rt.dispose();
  await quiet.dispose();
});

/** Every fallback text logged by `rt` in this file, in order. */
const logs: string[] = [];

/** Run `body` with console.warn captured into `logs`; returns what it logged. */
async function capture(body: () => Promise<void>): Promise<string[]> {
  const from = logs.length;
  const spy = vi.spyOn(console, 'warn').mockImplementation((text: unknown) => {
    logs.push(String(text));
  });
  try {
    await body();
  } finally {
    spy.mockRestore();
  }
  return logs.slice(from);
}

const toNum = (v: Num): number => (typeof v === 'number' ? v : Number(v));
const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);
const TYPED = { float32: Float32Array, float64: Float64Array, int32: Int32Array } as const;

/** Equal as numbers (NaN equals NaN, -0 equals 0), or within `tol` relative. */
function close(got: readonly number[], want: readonly Num[], tol = 0): boolean {
  return (
    got.length === want.length &&
    got.every((g, i) => {
      const w = toNum(want[i] as Num);
      if (Number.isNaN(w)) return Number.isNaN(g);
      return g === w || (tol > 0 && Math.abs(g - w) <= tol * Math.max(1, Math.abs(w)));
    })
  );
}

/** An NDArray of a golden part; `int32` aux blocks on every other sparse input. */
function make(p: Part, c: Case, i: number): NDArray {
  const T = TYPED[c.dtype];
  if (p.stype === 'default') return nd.array(T.from(p.dense.map(toNum)), { shape: c.shape, dtype: c.dtype });
  const idx = (xs: number[]) => (i % 2 === 1 ? Int32Array.from(xs) : xs);
  const data = T.from((p.data ?? []).map(toNum));
  if (p.stype === 'csr')
    return nd.sparse.csrMatrix(
      { data, indices: idx(p.indices ?? []), indptr: idx(p.indptr ?? []) },
      { shape: c.shape, dtype: c.dtype },
    );
  return nd.sparse.rowSparseArray(
    { data, indices: idx(p.indices ?? []) },
    { shape: c.shape, dtype: c.dtype },
  );
}

/** Run `op` on the golden inputs; check storage type, parts, dense values and the fallback log. */
async function check(c: Case, opName: string, parts: readonly Part[], params?: Record<string, unknown>) {
  const ins = parts.map((p, i) => make(p, c, i));
  let y: NDArray | undefined;
  const tol = c.input !== undefined && c.op !== undefined && !c.op.startsWith('_') ? 2e-6 : 0;
  try {
    const texts = await capture(async () => {
      [y] = rt.invoke(opName, ins, params) as [NDArray];
      await y.waitToRead();
    });
    const out = y as NDArray;
    // Served signatures never fall back; a fallback is logged (once per signature) naming the op.
    if (c.served) expect(texts).toEqual([]);
    else for (const t of texts) expect(t).toMatch(`Storage type fallback detected:\noperator = ${opName}\n`);
    expect(out.stype).toBe(c.outStype);
    if (isSparse(out)) {
      const p = await (out as BaseSparseNDArray).parts();
      expect(close(nums(p.data), c.out.data as Num[], tol), `data ${nums(p.data)} vs ${c.out.data}`).toBe(
        true,
      );
      expect(nums(p.indices)).toEqual(c.out.indices);
      if (c.outStype === 'csr') expect(nums(p.indptr)).toEqual(c.out.indptr);
      out.checkFormatSync();
    }
    const dense = nums(await out.data());
    expect(close(dense, c.out.dense, tol), `dense ${dense} vs ${c.out.dense}`).toBe(true);
  } finally {
    for (const a of [...ins, ...(y ? [y] : [])]) a.dispose();
  }
}

describe('binary ops: storage types and values against SciPy / NumPy', () => {
  it.each(golden.binary)('$name', async (c) => {
    await check(c, c.op as string, c.inputs as Part[]);
  });

  it('every signature MXNet does not serve was logged as a fallback (the served ones never were)', () => {
    const fellBack = new Set(
      logs
        .map((t) => /operator = (\w+)\ninput storage types = \[([^\]]*)\]/.exec(t))
        .map((m) => `${m?.[1]} ${m?.[2]}`),
    );
    const expected = new Set(
      golden.binary
        .filter((c) => !c.served)
        .map((c) => `${c.op} ${(c.inputs as Part[]).map((p) => `${p.stype}, `).join('')}`),
    );
    for (const e of expected) expect(fellBack.has(e), e).toBe(true);
  });
});

describe('zero-preserving unary and scalar ops against NumPy', () => {
  it.each(golden.unary)('$name', async (c) => {
    await check(c, c.op as string, [c.input as Part], c.params);
  });
});

describe('add_n against NumPy', () => {
  it.each(golden.addN)('$name', async (c) => {
    const parts = c.inputs as Part[];
    await check(c, 'add_n', parts, { num_args: parts.length });
  });

  it('ElementWiseSum and the _sparse_ aliases are the same op', () => {
    for (const n of ['ElementWiseSum', '_sparse_add_n', '_sparse_ElementWiseSum'])
      expect(rt.registry.get(n).name).toBe('add_n');
    for (const n of ['_sparse_elemwise_add', '_plus', '_sparse_elemwise_mul', '_sparse_relu', '_sparse_sqrt'])
      expect(rt.registry.get(n).def.inferStorageType, n).toBeDefined();
  });
});

describe('dense calls stay on the dense path', () => {
  const spies: MockInstance[] = [];
  afterEach(() => {
    for (const s of spies.splice(0)) s.mockRestore();
  });

  it('elemwise_add, relu, _mul_scalar, _grad_add and add_n on dense arrays never run storage inference or computeEx', async () => {
    const calls = [
      ['elemwise_add', 2, undefined],
      ['relu', 1, undefined],
      ['_mul_scalar', 1, { scalar: 3 }],
      ['_grad_add', 2, undefined],
      ['add_n', 3, { num_args: 3 }],
    ] as const;
    for (const [name, n] of calls) {
      const op = rt.registry.get(name);
      const def = op.def as { inferStorageType: (...a: unknown[]) => boolean };
      spies.push(vi.spyOn(def, 'inferStorageType'));
      const k = rt.registry.kernel(op, backend.name) as { computeEx: (...a: unknown[]) => void };
      spies.push(vi.spyOn(k, 'computeEx'));
      const dense = Array.from({ length: n }, () => nd.zeros([2, 2]));
      expect(
        needsStorageDispatch(op, op.parseParams(calls.find((x) => x[0] === name)?.[2]), dense, undefined),
      ).toBe(false);
      for (const d of dense) d.dispose();
    }
    const a = nd.array([
      [1, -2],
      [0, 3],
    ]);
    const b = nd.array([
      [4, 5],
      [6, -7],
    ]);
    const outs = [
      nd.elemwise_add(a, b),
      nd.relu(a),
      nd._mul_scalar(a, { scalar: 3 }),
      nd._grad_add(a, b),
      nd.add_n(a, b, a),
    ];
    expect(await Promise.all(outs.map((o) => o.array()))).toEqual([
      [
        [5, 3],
        [6, -4],
      ],
      [
        [1, 0],
        [0, 3],
      ],
      [
        [3, -6],
        [0, 9],
      ],
      [
        [5, 3],
        [6, -4],
      ],
      [
        [6, 1],
        [6, -1],
      ],
    ]);
    expect(outs.every((o) => o.stype === 'default')).toBe(true);
    for (const s of spies) expect(s).not.toHaveBeenCalled();
    for (const x of [a, b, ...outs]) x.dispose();
  });
});

/** A function whose gradient is a fixed row_sparse array (as Embedding's sparse gradient would be). */
class RowGrad extends CustomFunction {
  constructor(
    readonly rows: number[],
    readonly values: number[],
  ) {
    super();
  }
  forward(w: NDArray): NDArray {
    return w.sum();
  }
  backward(): NDArray {
    const nq = quiet.nd;
    return nq.sparse.rowSparseArray(
      { data: Float32Array.from(this.values), indices: this.rows },
      { shape: [5, 2] },
    );
  }
}

describe('gradients through autograd', () => {
  it('row_sparse gradient parts of one weight are summed by _grad_add into a row_sparse gradient', async () => {
    const ag = quiet.autograd;
    const w = quiet.nd.zeros([5, 2]).attachGrad();
    const loss = ag.record(() => {
      const a = new RowGrad([1, 3], [1, 2, 3, 4]).apply(w) as NDArray;
      const b = new RowGrad([0, 3], [10, 20, 30, 40]).apply(w) as NDArray;
      const c = new RowGrad([4], [100, 200]).apply(w) as NDArray;
      return quiet.nd.add_n(a, b, c);
    });
    const [g] = ag.grad(loss, w) as [NDArray];
    expect(g.stype).toBe('row_sparse');
    const p = await (g as BaseSparseNDArray).parts();
    expect([nums(p.indices), nums(p.data)]).toEqual([
      [0, 1, 3, 4],
      [10, 20, 1, 2, 33, 44, 100, 200],
    ]);
    for (const x of [w, loss, g]) x.dispose();
  });

  const mulGrads = async (check: (gx: NDArray, gw: NDArray) => Promise<void>) => {
    const q = quiet.nd;
    const ag = quiet.autograd;
    const x = q.sparse.rowSparseArray(
      { data: Float32Array.of(1, 2, 3, 4), indices: [0, 2] },
      { shape: [3, 2] },
    );
    x.attachGrad({ stype: 'default' });
    const w = q
      .array([
        [5, 6],
        [7, 8],
        [9, 10],
      ])
      .attachGrad();
    const y = ag.record(() => q.elemwise_mul(x, w));
    expect(y.stype).toBe('row_sparse');
    const [gx, gw] = ag.grad(y, [x, w]) as [NDArray, NDArray];
    try {
      await check(gx, gw);
    } finally {
      for (const a of [x, w, y, gx, gw]) a.dispose();
    }
  };

  it('elemwise_mul(row_sparse, dense): the gradient of the sparse input is the dense weight', async () => {
    await mulGrads(async (gx) => {
      expect(await gx.array()).toEqual([
        [5, 6],
        [7, 8],
        [9, 10],
      ]);
    });
  });

  // The tape's saved sparse input stays sparse (Runtime.retain), so the gradient op reads its rows.
  it('elemwise_mul(row_sparse, dense): the gradient of the dense weight is the densified sparse input', async () => {
    await mulGrads(async (_gx, gw) => {
      expect(await gw.array()).toEqual([
        [1, 2],
        [0, 0],
        [3, 4],
      ]);
    });
  });
});
