/**
 * np.random against SciPy 1.10 / NumPy 1.24.2 facts recorded by tools/golden/np/np_random.py — never
 * NumPy's stream: fixed-seed determinism, moments within 6 standard errors, a Kolmogorov–Smirnov
 * statistic on SciPy's quantile grid under the recorded critical value (α = 1e-3; the seed is
 * fixed, so the test is deterministic), chi-square tests for the discrete samplers, shapes of
 * `size` and broadcast array parameters, MXNet's dtypes, NumPy's error text, pathwise gradients
 * (central differences with the generator reseeded before each evaluation, so a sample is a
 * deterministic function of its parameters) and gamma's implicit gradient against mpmath.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/random.json';
import { ndarray } from '../array.js';
import { createNp } from '../namespace.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np } = createNp(rt);
const R = np.random as unknown as Record<string, (...args: unknown[]) => NDArray>;
afterAll(() => rt.dispose());

const values = async (a: NDArray): Promise<number[]> =>
  Array.from((await a.data()) as ArrayLike<number | bigint>, (v) => Number(v));

/** Call np.random.fn with the golden args, then `size` (rand/randn take dims). */
function draw(
  fn: string,
  args: readonly unknown[],
  n: number | number[] | null,
  kwargs?: Record<string, unknown>,
): NDArray {
  if (fn === 'rand' || fn === 'randn')
    return R[fn]?.(...(Array.isArray(n) ? n : n === null ? [] : [n])) as NDArray;
  const f = R[fn] as (...a: unknown[]) => NDArray;
  if (fn === 'choice') return f(args[0], n, kwargs ?? {});
  if (fn === 'randint') return f(args[0], args.length > 1 ? args[1] : null, n);
  const full = [...args];
  const arity: Record<string, number> = {
    exponential: 1,
    rayleigh: 1,
    weibull: 1,
    pareto: 1,
    power: 1,
    chisquare: 1,
  };
  while (full.length < (arity[fn] ?? 2)) full.push(undefined);
  return f(...full, n);
}

describe('np.random: distributions', () => {
  for (const d of golden.continuous) {
    it(`${d.fn}(${d.args.join(', ')}): moments and KS`, async () => {
      np.random.seed(1234);
      await rt.nd.leakCheck(async () => {
        const a = draw(d.fn, d.args, d.n);
        expect(a).toBeInstanceOf(ndarray);
        expect(a.dtype).toBe(d.dtype);
        expect([...a.shape]).toEqual([d.n]);
        const x = await values(a);
        a.dispose();
        const n = x.length;
        const mean = x.reduce((s, v) => s + v, 0) / n;
        const v = x.reduce((s, t) => s + (t - mean) ** 2, 0) / (n - 1);
        expect(Math.abs(mean - d.mean)).toBeLessThan(6 * Math.sqrt(d.var / n));
        expect(Math.abs(v - d.var)).toBeLessThan(6 * Math.sqrt(d.varOfVar / n) + 1e-9);
        // KS on the quantile grid: F(q_k) = k / M exactly; the empirical CDF at q_k by binary search.
        x.sort((p, q) => p - q);
        const M = golden.grid;
        let D = 0;
        d.quantiles.forEach((q, k) => {
          let lo = 0;
          let hi = n;
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if ((x[mid] as number) <= q) lo = mid + 1;
            else hi = mid;
          }
          D = Math.max(D, Math.abs(lo / n - (k + 1) / M));
        });
        expect(D).toBeLessThan(d.ksCritical);
      });
    });
  }

  for (const d of golden.discrete) {
    it(`${d.fn}(${d.args.join(', ')}): chi-square`, async () => {
      np.random.seed(99);
      await rt.nd.leakCheck(async () => {
        const a = draw(d.fn, d.args, d.n, d.kwargs);
        expect(a.dtype).toBe(d.dtype);
        const x = await values(a);
        a.dispose();
        const counts = d.values.map((v) => x.filter((t) => t === v).length);
        expect(counts.reduce((s, c) => s + c, 0)).toBe(d.n);
        const chi = counts.reduce(
          (s, c, k) => s + (c - d.n * (d.probs[k] as number)) ** 2 / (d.n * (d.probs[k] as number)),
          0,
        );
        expect(chi).toBeLessThan(d.chiCritical);
      });
    });
  }

  it('multinomial: counts sum to n, per-category binomial moments', async () => {
    const m = golden.multinomial;
    np.random.seed(5);
    await rt.nd.leakCheck(async () => {
      const a = np.random.multinomial(m.n, m.pvals, m.size);
      expect([...a.shape]).toEqual([m.size, m.pvals.length]);
      expect(a.dtype).toBe('int64');
      const x = await values(a);
      a.dispose();
      const k = m.pvals.length;
      for (let i = 0; i < m.size; i++) expect(x.slice(i * k, i * k + k).reduce((s, v) => s + v, 0)).toBe(m.n);
      for (let j = 0; j < k; j++) {
        const col = x.filter((_, i) => i % k === j);
        const mean = col.reduce((s, v) => s + v, 0) / m.size;
        expect(Math.abs(mean - (m.mean[j] as number))).toBeLessThan(
          6 * Math.sqrt((m.var[j] as number) / m.size),
        );
      }
    });
  });

  it('choice without replacement: distinct indices, first draw follows p', async () => {
    const c = golden.noReplace;
    np.random.seed(11);
    await rt.nd.leakCheck(async () => {
      const first = new Array<number>(c.a).fill(0);
      for (let t = 0; t < c.trials; t++) {
        const a = np.random.choice(c.a, c.size, { replace: false, p: c.p });
        const x = await values(a);
        a.dispose();
        expect(new Set(x).size).toBe(c.size);
        first[x[0] as number] = (first[x[0] as number] as number) + 1;
      }
      const chi = first.reduce(
        (s, n, k) =>
          s + (n - c.trials * (c.firstProbs[k] as number)) ** 2 / (c.trials * (c.firstProbs[k] as number)),
        0,
      );
      expect(chi).toBeLessThan(c.chiCritical);
      const u = np.random.choice(7, 7, { replace: false });
      expect((await values(u)).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
      u.dispose();
    });
  });

  it('permutation and shuffle: permutations, positions uniform, in place along axis 0', async () => {
    const p = golden.permutation;
    np.random.seed(3);
    await rt.nd.leakCheck(async () => {
      const pos = new Array<number>(p.k).fill(0);
      for (let t = 0; t < p.trials; t++) {
        const a = np.random.permutation(p.k);
        const x = await values(a);
        a.dispose();
        expect([...x].sort()).toEqual([0, 1, 2, 3]);
        pos[x[0] as number] = (pos[x[0] as number] as number) + 1;
      }
      const e = p.trials / p.k;
      expect(pos.reduce((s, n) => s + (n - e) ** 2 / e, 0)).toBeLessThan(p.chiCritical);
      const m = np.array([
        [1, 2],
        [3, 4],
        [5, 6],
      ]);
      np.random.shuffle(m);
      const rows = await values(m);
      const pairs = [0, 1, 2].map((i) => `${rows[2 * i]},${rows[2 * i + 1]}`).sort();
      expect(pairs).toEqual(['1,2', '3,4', '5,6']);
      const q = np.random.permutation(m);
      expect([...q.shape]).toEqual([3, 2]);
      m.dispose();
      q.dispose();
    });
  });
});

describe('np.random: seeding', () => {
  it('the same seed gives the same stream, another seed a different one', async () => {
    await rt.nd.leakCheck(async () => {
      const run = async (s: number) => {
        np.random.seed(s);
        const a = np.random.normal(0, 1, [50]);
        const b = np.random.gamma(2, 1, [20]);
        const c = np.random.randint(0, 100, [20]);
        const out = [...(await values(a)), ...(await values(b)), ...(await values(c))];
        for (const x of [a, b, c]) x.dispose();
        return out;
      };
      const x = await run(7);
      expect(await run(7)).toEqual(x);
      const y = await run(8);
      expect(y).not.toEqual(x);
      // Successive calls differ.
      np.random.seed(7);
      const a = np.random.uniform(0, 1, [10]);
      const b = np.random.uniform(0, 1, [10]);
      expect(await values(a)).not.toEqual(await values(b));
      a.dispose();
      b.dispose();
    });
  });
});

describe('np.random: shapes, dtypes, broadcasting', () => {
  for (const s of golden.shapes) {
    it(`${s.fn}(${JSON.stringify(s.args)}, size=${JSON.stringify(s.size)}) → ${JSON.stringify(s.shape)}`, async () => {
      await rt.nd.leakCheck(async () => {
        const a = draw(s.fn, s.args, s.size as number | number[] | null);
        expect([...a.shape]).toEqual(s.shape);
        await a.data();
        a.dispose();
      });
    });
  }

  it('dtypes: MXNet 2.0 defaults, dtype options, float64 after default float', async () => {
    await rt.nd.leakCheck(async () => {
      const cases: [NDArray, string][] = [
        [np.random.normal(0, 1, 3), 'float32'],
        [np.random.normal(0, 1, 3, { dtype: 'float64' }), 'float64'],
        [np.random.uniform(0, 1, 3, { dtype: 'float64' }), 'float64'],
        [np.random.gamma(2, 1, 3, { dtype: 'float64' }), 'float64'],
        [np.random.exponential(1, 3), 'float32'],
        [np.random.randint(0, 5, 3), 'int64'],
        [np.random.randint(0, 5, 3, { dtype: 'int32' }), 'int32'],
        [np.random.choice(4, 3), 'int64'],
        [np.random.choice([1.5, 2.5], 3), 'float32'],
        [np.random.beta(1, 2, 3, { dtype: 'float64' }), 'float64'],
      ];
      for (const [a, dt] of cases) {
        expect(a.dtype).toBe(dt);
        a.dispose();
      }
    });
  });

  it('array parameters broadcast elementwise: each column follows its own loc/scale', async () => {
    np.random.seed(21);
    await rt.nd.leakCheck(async () => {
      const a = np.random.normal([0, 10, -5], [1, 0.1, 2], [4000, 3]);
      const x = await values(a);
      a.dispose();
      const loc = [0, 10, -5];
      const scale = [1, 0.1, 2];
      for (let j = 0; j < 3; j++) {
        const col = x.filter((_, i) => i % 3 === j);
        const mean = col.reduce((s, v) => s + v, 0) / col.length;
        expect(Math.abs(mean - (loc[j] as number))).toBeLessThan(
          6 * ((scale[j] as number) / Math.sqrt(col.length)),
        );
      }
      const u = np.random.uniform([[0], [5]], [1, 2], [100, 2, 2]);
      const y = await values(u);
      u.dispose();
      y.forEach((v, i) => {
        const r = Math.floor(i / 2) % 2;
        const c = i % 2;
        const lo = r === 0 ? 0 : 5;
        const hi = c === 0 ? 1 : 2;
        expect(v >= Math.min(lo, hi) && v <= Math.max(lo, hi)).toBe(true);
      });
      const c = np.random.choice([10, 20, 30], [50]);
      expect((await values(c)).every((v) => v === 10 || v === 20 || v === 30)).toBe(true);
      c.dispose();
    });
  });

  it('refuses parameters that do not broadcast to size', () => {
    expect(() => np.random.normal([1, 2, 3], 1, [2])).toThrow(/broadcast/);
    expect(() => np.random.normal([1, 2], [1, 2, 3])).toThrow(/broadcast/);
  });
});

describe('np.random: errors', () => {
  for (const e of golden.errors) {
    it(`${e.fn}(${JSON.stringify(e.args)}, ${JSON.stringify(e.kwargs)}) raises "${e.error}"`, () => {
      const f = R[e.fn] as (...a: unknown[]) => NDArray;
      const args = e.fn === 'normal' && e.args.length === 3 ? e.args : e.args;
      const call = () => (e.fn === 'choice' ? f(args[0], args[1] ?? null, e.kwargs) : f(...args));
      expect(call).toThrow(e.error);
    });
  }

  it('array parameters are checked when the kernel runs', async () => {
    const a = np.random.normal(0, [1, -1]);
    await expect(a.data()).rejects.toThrow('scale < 0');
    a.dispose();
  });
});

describe('np.random: gradients', () => {
  /** Σ head · sample(θ), θ a float64 array, the generator reseeded so samples are functions of θ. */
  const numericCheck = async (f: (theta: NDArray) => NDArray, theta0: number[]): Promise<void> => {
    const head = theta0.map((_, i) => 0.3 + 0.1 * i);
    const evalAt = async (theta: number[]): Promise<number> => {
      np.random.seed(42);
      const t = np.array(theta, { dtype: 'float64' });
      const y = f(t);
      const v = await values(y);
      t.dispose();
      y.dispose();
      return v.reduce((s, x, i) => s + x * (head[i % head.length] as number), 0);
    };
    np.random.seed(42);
    const t = np.array(theta0, { dtype: 'float64' });
    t.attachGrad();
    const y = rt.autograd.record(() => f(t));
    const hg = np
      .array(
        Array.from({ length: y.size }, (_, i) => head[i % head.length] as number),
        { dtype: 'float64' },
      )
      .reshape(y.shape);
    rt.autograd.backward([y], { headGrads: [hg] });
    const g = await values(t.grad as NDArray);
    for (let i = 0; i < theta0.length; i++) {
      const eps = 1e-6 * Math.max(1, Math.abs(theta0[i] as number));
      const up = [...theta0];
      const dn = [...theta0];
      up[i] = (up[i] as number) + eps;
      dn[i] = (dn[i] as number) - eps;
      const num = ((await evalAt(up)) - (await evalAt(dn))) / (2 * eps);
      expect(Math.abs((g[i] as number) - num)).toBeLessThan(1e-5 * Math.max(1, Math.abs(num)));
    }
    for (const x of [t, y, hg]) x.dispose();
  };

  const f64 = { dtype: 'float64' as const };
  const cases: [string, (t: NDArray) => NDArray][] = [
    ['normal loc', (t) => np.random.normal(t, 2, [5, 2], f64)],
    ['normal scale', (t) => np.random.normal(1, t, [5, 2], f64)],
    ['lognormal sigma', (t) => np.random.lognormal(0, t, [4, 2], f64)],
    // The float32 samplers: the gradient flows back in float32, so the parameters are float32 here.
    ['logistic scale', (t) => np.random.logistic(0, t.astype('float32'), [3, 2]).astype('float64')],
    ['gumbel loc', (t) => np.random.gumbel(t.astype('float32'), 1, [3, 2]).astype('float64')],
    ['exponential scale', (t) => np.random.exponential(t.astype('float32'), [3, 2]).astype('float64')],
    ['rayleigh scale', (t) => np.random.rayleigh(t.astype('float32'), [3, 2]).astype('float64')],
    ['weibull a', (t) => np.random.weibull(t.astype('float32'), [3, 2]).astype('float64')],
    ['pareto a', (t) => np.random.pareto(t.astype('float32'), [3, 2]).astype('float64')],
  ];
  for (const [name, f] of cases) {
    it(`pathwise gradient: ${name}`, async () => {
      const float32 = !name.startsWith('normal') && !name.startsWith('lognormal');
      if (float32) {
        // float32 samples: compare the analytic gradient with Σ head · noise-derivative loosely.
        np.random.seed(42);
        const t = np.array([1.5, 2.5], { dtype: 'float64' });
        t.attachGrad();
        const y = rt.autograd.record(() => f(t));
        rt.autograd.backward([y]);
        const g = await values(t.grad as NDArray);
        const evalAt = async (theta: number[]) => {
          np.random.seed(42);
          const a = np.array(theta, { dtype: 'float64' });
          const b = f(a);
          const v = (await values(b)).reduce((s, x) => s + x, 0);
          a.dispose();
          b.dispose();
          return v;
        };
        for (let i = 0; i < 2; i++) {
          const up = [1.5, 2.5];
          const dn = [1.5, 2.5];
          up[i] = (up[i] as number) + 1e-2;
          dn[i] = (dn[i] as number) - 1e-2;
          const num = ((await evalAt(up)) - (await evalAt(dn))) / 2e-2;
          expect(Math.abs((g[i] as number) - num)).toBeLessThan(2e-3 * Math.max(1, Math.abs(num)) + 1e-3);
        }
        t.dispose();
        y.dispose();
        return;
      }
      await numericCheck(f, [0.7, 1.3]);
    });
  }

  it("gamma: MXNet's implicit gradient in a tensor shape matches mpmath", async () => {
    await rt.nd.leakCheck(async () => {
      const a = np.array(
        golden.gammaGrad.map((g) => g.a),
        { dtype: 'float64' },
      );
      const x = np.array(
        golden.gammaGrad.map((g) => g.x * 2),
        { dtype: 'float64' },
      );
      const og = np.array(
        golden.gammaGrad.map(() => 1),
        { dtype: 'float64' },
      );
      const [g] = rt.invoke('_backward_gamma_sample', [og, a, x], { shape: null, scale: 2 });
      const got = await values(g as NDArray);
      golden.gammaGrad.forEach((c, i) => {
        expect(Math.abs((got[i] as number) - 2 * c.dxda)).toBeLessThan(1e-7 * Math.max(1, Math.abs(c.dxda)));
      });
      for (const t of [a, x, og, g as NDArray]) t.dispose();
    });
  });

  it('gamma: autograd reaches an array shape; zero gradients for uniform', async () => {
    np.random.seed(1);
    const k = np.array([2, 3], { dtype: 'float64' });
    k.attachGrad();
    const y = rt.autograd.record(() => np.random.gamma(k, 1.5, [1000, 2], f64));
    rt.autograd.backward([y]);
    const g = await values(k.grad as NDArray);
    // E[d x / d k] = scale · 1000 per column (E[x] = k · scale).
    expect(Math.abs((g[0] as number) / 1000 - 1.5)).toBeLessThan(0.15);
    expect(Math.abs((g[1] as number) / 1000 - 1.5)).toBeLessThan(0.15);
    const lo = np.array([0, 1], { dtype: 'float64' });
    lo.attachGrad();
    const u = rt.autograd.record(() => np.random.uniform(lo, 5, [3, 2], f64));
    rt.autograd.backward([u]);
    expect(await values(lo.grad as NDArray)).toEqual([0, 0]);
    for (const t of [k, y, lo, u]) t.dispose();
  });
});
