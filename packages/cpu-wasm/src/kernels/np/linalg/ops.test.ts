/**
 * The np.linalg ops through an @mx runtime on cpu-wasm: MXNet 2.0's names and aliases, hidden
 * outputs, where errors surface (shape and dtype errors at the call; data errors such as "Singular
 * matrix" when the result is read, with nothing written), and the gradients the element-wise
 * golden check cannot cover — Cholesky's symmetric gradient (checked with symmetric
 * perturbations), zero gradients of the eigen ops, and accumulation with gradReq 'add'.
 */
import { isMXNetError } from '@mx/base';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuWasmBackend } from '../../../backend.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => rt.dispose());
const { nd, autograd } = rt;
const f64 = (data: number[], shape: number[]) => nd.array(data, { shape, dtype: 'float64' });
const values = async (x: NDArray) => Array.from((await x.data()) as Float64Array);

describe('names, aliases and outputs', () => {
  it("registers np.linalg's det/slogdet/inv as aliases of the la_op ops, as MXNet 2.0 does", () => {
    expect(rt.registry.get('_npi_det').name).toBe('_linalg_det');
    expect(rt.registry.get('linalg_det').name).toBe('_linalg_det');
    expect(rt.registry.get('_npi_slogdet').name).toBe('_linalg_slogdet');
    expect(rt.registry.get('_npi_inv').name).toBe('_linalg_inverse');
    for (const op of [
      '_npi_solve',
      '_npi_cholesky',
      '_npi_qr',
      '_npi_svd',
      '_npi_eigh',
      '_npi_eig',
      '_npi_pinv',
      '_npi_matrix_rank',
    ])
      expect(rt.registry.get(op).kernels.has('cpu-wasm'), op).toBe(true);
  });

  it('returns the visible outputs only: det 0-d for one matrix, slogdet (sign, logabsdet)', async () => {
    const [d, ...rest] = rt.invoke('_npi_det', [f64([4, 1, 2, 3], [2, 2])]);
    expect(rest).toEqual([]);
    expect(d?.shape).toEqual([]);
    expect(await values(d as NDArray)).toEqual([10]);
    const [sign, logdet] = rt.invoke('_npi_slogdet', [f64([1, 2, 3, 4, 2, 0, 0, 2], [2, 2, 2])]);
    expect(await values(sign as NDArray)).toEqual([-1, 1]);
    const ld = await values(logdet as NDArray);
    expect(ld[0]).toBeCloseTo(Math.log(2), 14);
    expect(ld[1]).toBeCloseTo(Math.log(4), 14);
  });

  it('keeps float32 in float32 and computes integer solves in float64', () => {
    const a = nd.array([2, 1, 1, 3], { shape: [2, 2], dtype: 'float32' });
    expect(rt.invoke('_npi_inv', [a])[0]?.dtype).toBe('float32');
    const ai = nd.array([2, 1, 1, 3], { shape: [2, 2], dtype: 'int32' });
    const b = nd.array([1, 2], { shape: [2], dtype: 'float32' });
    expect(rt.invoke('_npi_solve', [ai, b])[0]?.dtype).toBe('float64');
    expect(rt.invoke('_npi_qr', [ai]).map((o) => o.dtype)).toEqual(['float64', 'float64']);
  });
});

describe('errors', () => {
  it('refuses bad shapes and dtypes at the call, naming the op', () => {
    const bad = (f: () => unknown, re: RegExp) => {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(isMXNetError(err), String(err)).toBe(true);
      expect((err as Error).message).toMatch(re);
    };
    bad(() => rt.invoke('_npi_inv', [f64([1, 2, 3, 4, 5, 6], [2, 3])]), /_linalg_inverse.*must be square/);
    bad(
      () => rt.invoke('_npi_solve', [f64([1, 0, 0, 1], [2, 2]), f64([1, 2, 3], [3])]),
      /_npi_solve.*last dimension must be equal/,
    );
    bad(
      () => rt.invoke('_npi_det', [nd.array([1, 0, 0, 1], { shape: [2, 2], dtype: 'int32' })]),
      /32-bit and 64-bit floating point/,
    );
    bad(() => rt.invoke('_npi_svd', [f64([1, 2, 3, 4, 5, 6], [3, 2])]), /less than or\s*equal/);
    bad(() => rt.invoke('_npi_eigh', [f64([1, 2, 3, 4], [2, 2])], { UPLO: 'X' }), /UPLO/);
  });

  it('reports data errors when the result is read, writes nothing and leaves the runtime usable', async () => {
    const sing = f64([1, 2, 2, 4], [2, 2]);
    await expect(rt.invoke('_npi_inv', [sing])[0]?.data()).rejects.toThrow(/Singular matrix/);
    await expect(rt.invoke('_npi_solve', [sing, f64([1, 1], [2])])[0]?.data()).rejects.toThrow(
      /Singular matrix/,
    );
    await expect(rt.invoke('_npi_cholesky', [f64([1, 2, 2, 1], [2, 2])])[0]?.data()).rejects.toThrow(
      /Matrix is not positive definite/,
    );
    await expect(rt.invoke('_npi_eigvals', [f64([0, -1, 1, 0], [2, 2])])[0]?.data()).rejects.toThrow(
      /Complex eigvals/,
    );
    await expect(
      rt.invoke('_npi_pinv_scalar_rcond', [f64([1, 2, 3, 4], [2, 2])], { hermitian: true })[0]?.data(),
    ).rejects.toThrow(/hermitian is not supported/);
    // A batch whose second matrix is singular: the error names the op; the first entry is not written.
    const both = f64([2, 0, 0, 2, 1, 2, 2, 4], [2, 2, 2]);
    const err = await rt
      .invoke('_npi_inv', [both])[0]
      ?.data()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isMXNetError(err) && err.message).toMatch(/_linalg_inverse|Singular matrix/);
    expect(await values(rt.invoke('_npi_inv', [f64([2, 0, 0, 4], [2, 2])])[0] as NDArray)).toEqual([
      0.5, 0, 0, 0.25,
    ]);
  });
});

describe('gradients', () => {
  /** f(A) = Σ head ⊙ cholesky(A); its symmetric gradient S satisfies df = Σ S ⊙ E for symmetric E. */
  async function choleskyCheck(lower: boolean) {
    const n = 3;
    const base = [4, 1, 0.5, 1, 3, 0.25, 0.5, 0.25, 2];
    const head = [0.3, -0.7, 0.2, 0.9, 0.1, -0.4, 0.6, -0.2, 0.8];
    const f = async (a: number[]) =>
      nd.scope(async () => {
        const l = await values(rt.invoke('_npi_cholesky', [f64(a, [n, n])], { lower })[0] as NDArray);
        return l.reduce((s, v, i) => s + v * (head[i] as number), 0);
      });
    const x = f64(base, [n, n]).attachGrad();
    const out = autograd.record(() => rt.invoke('_npi_cholesky', [x], { lower })[0] as NDArray);
    out.backward(f64(head, [n, n]));
    const g = await values(x.grad as NDArray);
    const eps = 1e-6;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        const plus = [...base];
        const minus = [...base];
        const cells: [number, number][] =
          i === j
            ? [[i, j]]
            : [
                [i, j],
                [j, i],
              ];
        for (const [r, c] of cells) {
          plus[r * n + c] = (plus[r * n + c] as number) + eps;
          minus[r * n + c] = (minus[r * n + c] as number) - eps;
        }
        const numeric = ((await f(plus)) - (await f(minus))) / (2 * eps);
        const analytic =
          i === j ? (g[i * n + i] as number) : (g[i * n + j] as number) + (g[j * n + i] as number);
        expect(analytic).toBeCloseTo(numeric, 7);
        expect(g[i * n + j]).toBeCloseTo(g[j * n + i] as number, 14);
      }
    }
  }
  it("cholesky's gradient is MXNet's symmetric one (lower)", () => choleskyCheck(true));
  it("cholesky's gradient is MXNet's symmetric one (upper)", () => choleskyCheck(false));

  it('eigh, eig, pinv and matrix_rank have zero gradients (MXNet MakeZeroGradNodes)', async () => {
    const x = f64([2, 1, 1, 3], [2, 2]).attachGrad();
    autograd
      .record(() => {
        const [w, v] = rt.invoke('_npi_eigh', [x]) as [NDArray, NDArray];
        const p = rt.invoke('_npi_pinv_scalar_rcond', [x])[0] as NDArray;
        return w.sum().add(v.sum()).add(p.sum());
      })
      .backward();
    expect(await values(x.grad as NDArray)).toEqual([0, 0, 0, 0]);
  });

  it("accumulates with gradReq 'add' (inverse: dA = -A⁻ᵀ·dB·A⁻ᵀ)", async () => {
    const x = f64([2, 0, 0, 4], [2, 2]).attachGrad('add');
    for (let k = 0; k < 2; k++)
      autograd.record(() => (rt.invoke('_npi_inv', [x])[0] as NDArray).sum()).backward();
    // d/dA Σ A⁻¹ = -A⁻ᵀ·1·A⁻ᵀ; A⁻¹ = diag(.5, .25) → [[-.25, -.125], [-.125, -.0625]], twice.
    expect(await values(x.grad as NDArray)).toEqual([-0.5, -0.25, -0.25, -0.125]);
  });
});
