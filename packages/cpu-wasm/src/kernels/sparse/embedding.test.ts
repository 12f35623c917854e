/**
 * Embedding's sparse kernels at the kernel level (no NDArray, no engine), against PyTorch / NumPy
 * (tools/golden/sparse/embedding.py): the row_sparse weight gradient of `_backward_Embedding` with
 * sparse_grad (PyTorch's coalesced sparse gradient: rows and summed values), with float and int
 * index dtypes and int32/int64 aux blocks; the forward with a row_sparse weight; MXNet's refusals
 * (out-of-bound indices, req=add, integer gradients); and that the dense kernels are still there.
 */
import type { DTypeName, Shape } from '@mx/base';
import { OpReq, type OpReqType, type SparseBlob, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createSparseHarness, loadGolden } from './test-harness.js';

interface BackwardCase {
  name: string;
  dtype: 'float32' | 'float64';
  input_dim: number;
  output_dim: number;
  data_shape: number[];
  idx: number[];
  ograd: number[];
  indices: number[];
  data: number[];
  dense: number[];
}
interface ForwardCase {
  name: string;
  dtype: 'float32' | 'float64';
  input_dim: number;
  output_dim: number;
  data_shape: number[];
  idx: number[];
  weight_indices: number[];
  weight_data: number[];
  out: number[];
}
const golden = loadGolden<{ backward: BackwardCase[]; forward_rsp: ForwardCase[] }>('sparse-embedding.json');

const { backend, registry, ctx, blob, read, output } = createSparseHarness({ isTrain: true });
const bwdOp = registry.get('_backward_Embedding');
const bwd = registry.kernel(bwdOp, backend.name);
const fwdOp = registry.get('Embedding');
const fwd = registry.kernel(fwdOp, backend.name);
const rspOutput = (shape: Shape, dtype: DTypeName, auxType: DTypeName = 'int64') =>
  output('row_sparse', shape, dtype, auxType);

const attrsOf = (c: { input_dim: number; output_dim: number; dtype: string }, sparse = true) =>
  bwdOp.parseParams({
    input_dim: c.input_dim,
    output_dim: c.output_dim,
    dtype: c.dtype,
    sparse_grad: sparse,
  });

function runBackward(c: BackwardCase, idxDtype: DTypeName, auxType: DTypeName, req: OpReqType = OpReq.write) {
  const out = rspOutput([c.input_dim, c.output_dim], c.dtype, auxType);
  const ograd = blob([...c.data_shape, c.output_dim], c.dtype, c.ograd);
  const data = blob(c.data_shape, idxDtype, c.idx);
  bwd?.computeEx?.(attrsOf(c), ctx, [ograd, data], [req], [out]);
  return out;
}

describe('_backward_Embedding with sparse_grad against PyTorch (coalesced sparse gradient)', () => {
  it('the cpu-wasm kernel keeps its dense compute and serves only dense inputs → row_sparse', () => {
    expect(typeof bwd?.compute).toBe('function');
    expect(typeof bwd?.computeEx).toBe('function');
    const a = attrsOf(golden.backward[0] as BackwardCase);
    expect(bwd?.computeExStorage?.(a, ['default', 'default'], ['row_sparse'])).toBe(true);
    expect(bwd?.computeExStorage?.(a, ['default', 'default'], ['default'])).toBe(false);
    expect(bwd?.computeExStorage?.(a, ['row_sparse', 'default'], ['row_sparse'])).toBe(false);
  });

  it.each(golden.backward)('$name', (c) => {
    for (const [idxDtype, auxType] of [
      ['float32', 'int64'],
      ['int32', 'int32'],
      ['int64', 'int64'],
    ] as const) {
      const out = runBackward(c, idxDtype, auxType);
      expect(out.allocs).toBe(1);
      expect(out.storageShape).toEqual([c.indices.length, c.output_dim]);
      expect(read(out.aux[0] as TBlob<number>)).toEqual(c.indices);
      const got = read(out.data);
      expect(got.length).toBe(c.data.length);
      got.forEach((v, i) => {
        expect(v).toBeCloseTo(c.data[i] as number, 5);
      });
    }
  });

  it('the rows scattered into a dense matrix equal the dense gradient (PyTorch sparse=False)', () => {
    for (const c of golden.backward) {
      const out = runBackward(c, 'float32', 'int64');
      const dense = new Array<number>(c.input_dim * c.output_dim).fill(0);
      const rows = read(out.aux[0] as TBlob<number>);
      const vals = read(out.data);
      rows.forEach((r, j) => {
        for (let k = 0; k < c.output_dim; k++)
          dense[r * c.output_dim + k] = vals[j * c.output_dim + k] as number;
      });
      dense.forEach((v, i) => {
        expect(v).toBeCloseTo(c.dense[i] as number, 5);
      });
    }
  });

  it('refuses out-of-bound indices before truncation, as MXNet (the dense kernel clips them)', () => {
    const c = golden.backward[0] as BackwardCase;
    for (const bad of [c.input_dim, -1, -0.5, c.input_dim - 0.5]) {
      const out = rspOutput([c.input_dim, c.output_dim], c.dtype);
      const ograd = blob([2, c.output_dim], c.dtype, new Array(2 * c.output_dim).fill(1));
      const data = blob([2], 'float32', [1, bad]);
      expect(() => bwd?.computeEx?.(attrsOf(c), ctx, [ograd, data], [OpReq.write], [out])).toThrow(
        /Embedding input contains data out of bound: index .* at position 1/,
      );
      expect(out.allocs).toBe(0);
    }
  });

  it("refuses req=add (MXNet's SparseEmbedding check) and integer output gradients; req=null writes nothing", () => {
    const c = golden.backward[0] as BackwardCase;
    expect(() => runBackward(c, 'int32', 'int64', OpReq.add)).toThrow(/req != write/);
    expect(runBackward(c, 'int32', 'int64', OpReq.null).allocs).toBe(0);
    const out = rspOutput([c.input_dim, c.output_dim], 'int32');
    const ograd = blob([1, c.output_dim], 'int32', new Array(c.output_dim).fill(1));
    expect(() =>
      bwd?.computeEx?.(attrsOf(c), ctx, [ograd, blob([1], 'int32', [0])], [OpReq.write], [out]),
    ).toThrow(/float32 or float64 output gradient, got int32/);
  });
});

describe('Embedding with a row_sparse weight against NumPy', () => {
  const weightOf = (c: ForwardCase, auxType: DTypeName): SparseBlob<number> => {
    const k = c.weight_indices.length;
    return {
      stype: 'row_sparse',
      shape: [c.input_dim, c.output_dim],
      dtype: c.dtype,
      storageShape: [k, c.output_dim],
      data: blob([k, c.output_dim], c.dtype, c.weight_data),
      aux: [blob([k], auxType, c.weight_indices)],
      auxTypes: [auxType],
    };
  };
  const fwdAttrs = (c: ForwardCase) =>
    fwdOp.parseParams({ input_dim: c.input_dim, output_dim: c.output_dim, dtype: c.dtype });

  it.each(golden.forward_rsp)('$name', (c) => {
    expect(fwd?.computeExStorage?.(fwdAttrs(c), ['default', 'row_sparse'], ['default'])).toBe(true);
    for (const auxType of ['int64', 'int32'] as const) {
      const out = blob([...c.data_shape, c.output_dim], c.dtype);
      fwd?.computeEx?.(
        fwdAttrs(c),
        ctx,
        [blob(c.data_shape, 'float32', c.idx), weightOf(c, auxType)],
        [OpReq.write],
        [out],
      );
      expect(read(out)).toEqual(c.out);
      // req=add accumulates onto what is there.
      fwd?.computeEx?.(
        fwdAttrs(c),
        ctx,
        [blob(c.data_shape, 'int64', c.idx), weightOf(c, auxType)],
        [OpReq.add],
        [out],
      );
      expect(read(out)).toEqual(c.out.map((v) => 2 * v));
    }
  });

  it("refuses indices outside the weight's rows (MXNet's SparseEmbedding bound check)", () => {
    const c = golden.forward_rsp[0] as ForwardCase;
    const out = blob([1, c.output_dim], c.dtype);
    expect(() =>
      fwd?.computeEx?.(
        fwdAttrs(c),
        ctx,
        [blob([1], 'float32', [c.input_dim]), weightOf(c, 'int64')],
        [OpReq.write],
        [out],
      ),
    ).toThrow(/SparseEmbedding input contains data out of bound/);
  });
});
