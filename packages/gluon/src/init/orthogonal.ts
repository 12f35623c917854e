/**
 * MXNet's Orthogonal initializer (Saxe et al., "Exact solutions to the nonlinear dynamics of learning
 * in deep linear neural networks"): draw a (rows, cols) matrix with the runtime's generator, take its
 * thin SVD A = U S Vᵀ and keep U when it has A's shape (rows >= cols), else Vᵀ, times `scale`.
 *
 * No SVD op exists in the op registry, and this runs once per parameter, so the SVD is computed on
 * the host in float64 (one-sided Jacobi, O(min(r,c)² · max(r,c)) per sweep: measured here 0.4 s
 * for 256×256, 1.2 s for 1024×256, 2.9 s for 512×512; a 1000×1000 weight takes tens of seconds). The draw is read back synchronously (`dataSync`), as MXNet blocks on
 * `asnumpy()` here; backends without a synchronous read (WebGPU) get an MXNetError.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { Initializer } from './initializer.js';
import { checkChoice, checkNumber } from './random-inits.js';

const MAX_SWEEPS = 80;

/**
 * Columns of `a` (m×n row-major, m >= n) orthonormalised as the left singular vectors of a thin
 * SVD, ordered by decreasing singular value (signs are arbitrary, as in LAPACK). Returns m×n.
 */
function leftSingularVectors(a: Float64Array, m: number, n: number): Float64Array {
  // Work on columns: col[j] is column j (length m).
  const cols: Float64Array[] = Array.from({ length: n }, (_, j) => {
    const c = new Float64Array(m);
    for (let i = 0; i < m; i++) c[i] = a[i * n + j] as number;
    return c;
  });
  const dot = (x: Float64Array, y: Float64Array) => {
    let s = 0;
    for (let i = 0; i < m; i++) s += (x[i] as number) * (y[i] as number);
    return s;
  };
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const cp = cols[p] as Float64Array;
        const cq = cols[q] as Float64Array;
        const alpha = dot(cp, cp);
        const beta = dot(cq, cq);
        const gamma = dot(cp, cq);
        if (gamma === 0 || Math.abs(gamma) <= 1e-15 * Math.sqrt(alpha * beta)) continue;
        rotated = true;
        const zeta = (beta - alpha) / (2 * gamma);
        const t = (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        for (let i = 0; i < m; i++) {
          const x = cp[i] as number;
          const y = cq[i] as number;
          cp[i] = c * x - s * y;
          cq[i] = s * x + c * y;
        }
      }
    }
    if (!rotated) break;
  }
  const norms = cols.map((c) => Math.sqrt(dot(c, c)));
  const order = norms.map((_, j) => j).sort((x, y) => (norms[y] as number) - (norms[x] as number));
  const largest = norms[order[0] as number] ?? 0;
  const basis: Float64Array[] = [];
  for (const j of order) {
    const c = cols[j] as Float64Array;
    const norm = norms[j] as number;
    if (norm > largest * 1e-13 && norm > 0) {
      basis.push(c.map((v) => v / norm));
      continue;
    }
    // A (numerically) zero singular value: complete the basis with a unit vector orthogonal to it.
    for (let e = 0; e < m; e++) {
      const v = new Float64Array(m);
      v[e] = 1;
      for (let pass = 0; pass < 2; pass++) {
        for (const b of basis) {
          const d = dot(v, b);
          for (let i = 0; i < m; i++) v[i] = (v[i] as number) - d * (b[i] as number);
        }
      }
      const vn = Math.sqrt(dot(v, v));
      if (vn > 1e-6) {
        basis.push(v.map((x) => x / vn));
        break;
      }
    }
  }
  const out = new Float64Array(m * n);
  for (let j = 0; j < n; j++) {
    const b = basis[j] as Float64Array;
    for (let i = 0; i < m; i++) out[i * n + j] = b[i] as number;
  }
  return out;
}

/**
 * The orthogonal factor MXNet's Orthogonal keeps from a (rows, cols) sample: U of the thin SVD when
 * rows >= cols (orthonormal columns), else Vᵀ (orthonormal rows). Row-major rows×cols, float64.
 */
export function orthogonalFactor(sample: ArrayLike<number>, rows: number, cols: number): Float64Array {
  if (sample.length !== rows * cols) {
    throw new MXNetError(`orthogonalFactor: ${sample.length} values for a ${rows}x${cols} matrix`, {
      op: 'init.Orthogonal',
    });
  }
  const a = Float64Array.from(sample);
  if (rows >= cols) return leftSingularVectors(a, rows, cols);
  // A = U S Vᵀ ⇒ Aᵀ = V S Uᵀ: V is the left factor of Aᵀ; return its transpose.
  const at = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) at[j * rows + i] = a[i * cols + j] as number;
  const v = leftSingularVectors(at, cols, rows);
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[i * cols + j] = v[j * rows + i] as number;
  return out;
}

export type OrthogonalRandType = 'uniform' | 'normal';

export interface OrthogonalOptions {
  /** Factor applied to the orthogonal matrix (MXNet default 1.414). */
  readonly scale?: number;
  /** Distribution of the sample: `'uniform'` U(-1, 1) (default) or `'normal'` N(0, 1). */
  readonly randType?: OrthogonalRandType;
}

/** Weights set to `scale` times an orthogonal matrix (rows = shape[0], cols = the rest). */
export class Orthogonal extends Initializer {
  readonly registeredName = 'orthogonal';
  readonly scale: number;
  readonly randType: OrthogonalRandType;

  constructor(options: OrthogonalOptions = {}) {
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: MXNet's default is the literal 1.414, not √2.
    const { scale = 1.414, randType = 'uniform' } = options;
    super({ scale, rand_type: randType });
    this.scale = checkNumber('init.Orthogonal', 'scale', scale);
    this.randType = checkChoice('init.Orthogonal', 'randType', randType, ['uniform', 'normal']);
  }

  protected initWeight(name: string, arr: NDArray): void {
    if (arr.ndim === 0) {
      throw new MXNetError(`${name}: Orthogonal needs an array with at least one dimension`, {
        op: 'init.Orthogonal',
        shapes: [arr.shape],
      });
    }
    const rows = arr.shape[0] as number;
    const cols = arr.shape.slice(1).reduce((x, y) => x * y, 1);
    if (rows * cols === 0) return;
    const { nd } = arr.runtime;
    const sample =
      this.randType === 'uniform'
        ? nd._random_uniform({ low: -1, high: 1, shape: [rows, cols], ctx: arr.ctx })
        : nd._random_normal({ loc: 0, scale: 1, shape: [rows, cols], ctx: arr.ctx });
    try {
      const values = sample.dataSync() as Float32Array;
      const q = orthogonalFactor(values, rows, cols);
      for (let i = 0; i < q.length; i++) q[i] = (q[i] as number) * this.scale;
      arr.set(q);
    } catch (e) {
      if (e instanceof MXNetError && e.op === 'dataSync') {
        throw new MXNetError(`${name}: Orthogonal reads its random sample back synchronously`, {
          op: 'init.Orthogonal',
          device: arr.ctx.toString(),
          hint: 'initialize the parameter on a cpu context, then copy it to the device',
          cause: e,
        });
      }
      throw e;
    } finally {
      sample.dispose();
    }
  }
}
