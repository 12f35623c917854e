/**
 * np.random with MXNet 2.0's semantics (python/mxnet/ndarray/numpy/random.py): each sampler calls
 * the `_npi_*` op MXNet 2.0 calls — a parameter given as a JS number becomes the op's scalar param,
 * an array (or nested JS array) becomes a tensor input broadcast against `size` — and the
 * compositions are MXNet's: `lognormal` = exp(normal), `beta` = X / (X + Y) of float64 gammas,
 * `chisquare` = gamma(df / 2, 2), `f` = (X·dfden) / (Y·dfnum) of chisquares, `rand`/`randn` =
 * uniform/normal of the given dims, `choice` of an array = take(a, choice(len(a))). `permutation`
 * (NumPy's, absent from MXNet 2.0) is arange/copy + `_shuffle`.
 *
 * Dtypes: MXNet's — uniform/normal/gamma/laplace/beta/chisquare/lognormal take `dtype` (default:
 * the default float, passed explicitly so graphs never read the flag); logistic, gumbel,
 * exponential, weibull, pareto, power, rayleigh are float32 (MXNet 2.0 fixes them); randint is
 * int64 by default; choice/multinomial int64. Array parameters are cast to the output dtype first,
 * so pathwise gradients (normal, logistic, gumbel, exponential, weibull, pareto, rayleigh, gamma's
 * shape) reach them in their dtype. Scalar parameters are checked here with NumPy's ValueError
 * text; array parameters are checked by the kernel when it runs (MXNet's behaviour). Samples come
 * from the runtime's generators: `seed(s)` is `mx.random.seed(s)`; never NumPy's stream.
 */
import { type Context, type DTypeName, MXNetError } from '@mx/base';
import type { NestedArray } from '../../host.js';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { multivariateNormalFunction } from './random-mvn.js';

/** NumPy's `size`: one length, several, or null/undefined for the parameters' broadcast shape. */
export type Size = number | readonly number[] | null | undefined;

/** Options of the samplers: output dtype (where MXNet takes one), device, and `out`. */
export interface SampleOptions {
  readonly dtype?: DTypeName;
  readonly ctx?: Context;
  readonly out?: NDArray;
}

/** A distribution parameter: a number (op param) or an array (tensor input). */
export type DistParam = number | ArrayLike;

type Check = readonly [(v: number) => boolean, string] | undefined;

const nonNeg = (what: string): Check => [(v) => v >= 0, `${what} < 0`];
const positive = (what: string): Check => [(v) => v > 0, `${what} <= 0`];

function valueError(fn: string, message: string, params: Record<string, unknown>, hint: string): MXNetError {
  return new MXNetError(message, { op: `np.random.${fn}`, params, hint });
}

/** `size` as the op's param (null for None); NumPy's checks of the dims. */
function sizeParam(size: Size, fn: string): number[] | null {
  if (size === null || size === undefined) return null;
  const dims = typeof size === 'number' ? [size] : [...size];
  for (const d of dims) {
    if (!Number.isInteger(d)) {
      throw valueError(
        fn,
        "'float' object cannot be interpreted as an integer",
        { size },
        'size dims are integers',
      );
    }
    if (d < 0)
      throw valueError(fn, 'negative dimensions are not allowed', { size }, 'size dims must be >= 0');
  }
  // MXNet 2.0 turns size=() into None.
  return dims.length === 0 ? null : dims;
}

/** The random functions of the np namespace. */
export function randomFunctions(c: NpContext) {
  const floatDtype = (o: SampleOptions | undefined): DTypeName => o?.dtype ?? c.defaultFloat();
  const invokeOpts = (o: SampleOptions | undefined) => ({
    ...(o?.ctx !== undefined ? { ctx: o.ctx } : {}),
    ...(o?.out !== undefined ? { out: o.out } : {}),
  });

  /**
   * Run sampler `op` with its named parameters: numbers become params (checked with `checks`),
   * arrays inputs cast to `dtype`.
   */
  const sample = (
    fn: string,
    op: string,
    named: readonly (readonly [string, DistParam, Check])[],
    size: Size,
    dtype: DTypeName,
    extra: Record<string, unknown>,
    o: SampleOptions | undefined,
  ): ndarray =>
    c.withTemps((temps) => {
      const params: Record<string, unknown> = { size: sizeParam(size, fn), ...extra };
      const inputs: NDArray[] = [];
      for (const [name, v, check] of named) {
        if (typeof v === 'number') {
          if (check !== undefined && !check[0](v)) {
            throw valueError(fn, check[1], { [name]: v }, `pass ${name} in the distribution's domain`);
          }
          params[name] = v;
        } else {
          params[name] = null;
          const a = c.operand(v as ArrayLike, temps, dtype, o?.ctx);
          inputs.push(c.cast(a, dtype, temps));
        }
      }
      return c.invoke1(op, inputs, params, invokeOpts(o));
    });

  const exp = (x: ndarray): ndarray => {
    try {
      return c.invoke1('exp', [x]);
    } finally {
      x.dispose();
    }
  };

  const uniform = (low: DistParam = 0, high: DistParam = 1, size?: Size, o?: SampleOptions): ndarray => {
    const dtype = floatDtype(o);
    return sample(
      'uniform',
      '_npi_uniform',
      [
        ['low', low, undefined],
        ['high', high, undefined],
      ],
      size,
      dtype,
      { dtype },
      o,
    );
  };
  const normal = (loc: DistParam = 0, scale: DistParam = 1, size?: Size, o?: SampleOptions): ndarray => {
    const dtype = floatDtype(o);
    return sample(
      'normal',
      '_npi_normal',
      [
        ['loc', loc, undefined],
        ['scale', scale, nonNeg('scale')],
      ],
      size,
      dtype,
      { dtype },
      o,
    );
  };
  const gamma = (shape: DistParam, scale: DistParam = 1, size?: Size, o?: SampleOptions): ndarray => {
    const dtype = floatDtype(o);
    return sample(
      'gamma',
      '_npi_gamma',
      [
        ['shape', shape, nonNeg('shape')],
        ['scale', scale, nonNeg('scale')],
      ],
      size,
      dtype,
      { dtype },
      o,
    );
  };
  const float32 = (
    fn: string,
    op: string,
    named: readonly (readonly [string, DistParam, Check])[],
    size: Size,
    o?: SampleOptions,
  ) => sample(fn, op, named, size, 'float32', {}, o);
  const chisquare = (df: DistParam, size?: Size, o?: SampleOptions): ndarray => {
    if (typeof df === 'number' && !(df > 0)) throw valueError('chisquare', 'df <= 0', { df }, 'pass df > 0');
    const half = typeof df === 'number' ? df / 2 : df;
    if (typeof half === 'number') return gamma(half, 2, size, o);
    return c.withTemps((temps) => {
      const a = c.cast(c.operand(half as ArrayLike, temps, floatDtype(o)), floatDtype(o), temps);
      const h = c.invoke1('_mul_scalar', [a], { scalar: 0.5 });
      temps.push(h);
      return gamma(h, 2, size, o);
    });
  };

  /** Draw from the integer interval [0, n) `size` times with `_npi_choice`. */
  const choiceIndices = (
    pop: number | NDArray,
    size: Size,
    replace: boolean,
    p: ArrayLike | null | undefined,
    o?: SampleOptions,
  ): ndarray =>
    c.withTemps((temps) => {
      const inputs: NDArray[] = [];
      const n = typeof pop === 'number' ? pop : (pop.shape[0] ?? 1);
      if (typeof pop !== 'number') inputs.push(pop);
      if (!Number.isInteger(n))
        throw valueError('choice', 'a must be 1-dimensional or an integer', { a: n }, 'pass an integer a');
      const m = sizeParam(size, 'choice');
      const count = m === null ? 1 : m.reduce((x, y) => x * y, 1);
      if (n <= 0 && count > 0)
        throw valueError(
          'choice',
          'a must be greater than 0 unless no samples are taken',
          { a: n },
          'pass a >= 1',
        );
      if (!replace && count > n)
        throw valueError(
          'choice',
          "Cannot take a larger sample than population when 'replace=False'",
          { size },
          'pass replace: true or a smaller size',
        );
      if (p !== null && p !== undefined) {
        const pa = c.operand(p, temps, 'float64', o?.ctx);
        if (pa.ndim !== 1) throw valueError('choice', 'p must be 1-dimensional', {}, 'pass a 1-D p');
        if (pa.size !== n)
          throw valueError('choice', "'a' and 'p' must have same size", {}, 'one probability per element');
        if (!(p instanceof NDArray)) {
          const flat = (p as readonly number[]).flat(Infinity as 1) as number[];
          if (flat.some((v) => !(v >= 0)))
            throw valueError('choice', 'probabilities are not non-negative', {}, 'p must be >= 0');
          const total = flat.reduce((x, y) => x + y, 0);
          if (Math.abs(total - 1) > 1e-8)
            throw valueError('choice', 'probabilities do not sum to 1', {}, 'normalise p first');
        }
        inputs.push(pa);
      }
      return c.invoke1(
        '_npi_choice',
        inputs,
        {
          a: typeof pop === 'number' ? pop : null,
          size: m,
          replace,
          weighted: p !== null && p !== undefined,
        },
        invokeOpts(o),
      );
    });

  const fns = {
    /** `np.random.seed(s)`: reseed the runtime's generators (MXNet `mx.random.seed`); with `ctx`, that device only. */
    seed(s?: number, ctx?: Context): void {
      c.rt.resources.seed(s ?? (Date.now() / 1000) >>> 0, ctx);
    },
    /** Uniform samples in [low, high) (`_npi_uniform`). */
    uniform,
    /** Normal samples N(loc, scale²) (`_npi_normal`); differentiable in array loc/scale. */
    normal,
    /** Uniform [0, 1) samples of shape `dims` (MXNet: `uniform(0, 1, size=dims)`). */
    rand(...dims: number[]): ndarray {
      return uniform(0, 1, dims);
    },
    /** Standard normal samples of shape `dims`. */
    randn(...dims: number[]): ndarray {
      return normal(0, 1, dims);
    },
    /** Integers in [low, high) (`_npi_random_randint`, MXNet 2.0's alias of `_random_randint`); one argument: [0, low). */
    randint(low: number, high?: number | null, size?: Size, o?: SampleOptions): ndarray {
      let lo = low;
      let hi = high;
      if (hi === null || hi === undefined) {
        hi = lo;
        lo = 0;
      }
      if (!Number.isInteger(lo) || !Number.isInteger(hi))
        throw valueError('randint', 'randint takes integer bounds', { low, high }, 'pass integers');
      if (high === null || high === undefined) {
        if (hi <= 0) throw valueError('randint', 'high <= 0', { low }, 'pass a positive bound');
      } else if (lo >= hi)
        throw valueError('randint', 'low >= high', { low: lo, high: hi }, 'pass high > low');
      const dtype = o?.dtype ?? 'int64';
      return c.invoke1(
        '_npi_random_randint',
        [],
        { low: lo, high: hi, shape: sizeParam(size, 'randint') ?? [], dtype },
        invokeOpts(o),
      );
    },
    /** Log-normal samples: exp(normal(mean, sigma)). */
    lognormal(mean: DistParam = 0, sigma: DistParam = 1, size?: Size, o?: SampleOptions): ndarray {
      return exp(normal(mean, sigma, size, o?.out === undefined ? o : { ...o, out: undefined }));
    },
    /** Logistic samples (`_npi_logistic`, float32). */
    logistic(loc: DistParam = 0, scale: DistParam = 1, size?: Size, o?: SampleOptions): ndarray {
      return float32(
        'logistic',
        '_npi_logistic',
        [
          ['loc', loc, undefined],
          ['scale', scale, nonNeg('scale')],
        ],
        size,
        o,
      );
    },
    /** Gumbel samples (`_npi_gumbel`, float32). */
    gumbel(loc: DistParam = 0, scale: DistParam = 1, size?: Size, o?: SampleOptions): ndarray {
      return float32(
        'gumbel',
        '_npi_gumbel',
        [
          ['loc', loc, undefined],
          ['scale', scale, nonNeg('scale')],
        ],
        size,
        o,
      );
    },
    /** Laplace samples (`_npi_laplace`). */
    laplace(loc: DistParam = 0, scale: DistParam = 1, size?: Size, o?: SampleOptions): ndarray {
      const dtype = floatDtype(o);
      return sample(
        'laplace',
        '_npi_laplace',
        [
          ['loc', loc, undefined],
          ['scale', scale, nonNeg('scale')],
        ],
        size,
        dtype,
        { dtype },
        o,
      );
    },
    /** Exponential samples with mean `scale` (`_npi_exponential`, float32). */
    exponential(scale: DistParam = 1, size?: Size, o?: SampleOptions): ndarray {
      return float32('exponential', '_npi_exponential', [['scale', scale, nonNeg('scale')]], size, o);
    },
    /** Rayleigh samples (`_npi_rayleigh`, float32). */
    rayleigh(scale: DistParam = 1, size?: Size, o?: SampleOptions): ndarray {
      return float32('rayleigh', '_npi_rayleigh', [['scale', scale, nonNeg('scale')]], size, o);
    },
    /** Weibull samples of shape `a` (`_npi_weibull`, float32). */
    weibull(a: DistParam, size?: Size, o?: SampleOptions): ndarray {
      return float32('weibull', '_npi_weibull', [['a', a, nonNeg('a')]], size, o);
    },
    /** Pareto II (Lomax) samples (`_npi_pareto`, float32). */
    pareto(a: DistParam, size?: Size, o?: SampleOptions): ndarray {
      return float32('pareto', '_npi_pareto', [['a', a, positive('a')]], size, o);
    },
    /** Power-distribution samples (`_npi_powerd`, float32). */
    power(a: DistParam, size?: Size, o?: SampleOptions): ndarray {
      return float32('power', '_npi_powerd', [['a', a, positive('a')]], size, o);
    },
    /** Gamma(shape, scale) samples (`_npi_gamma`); differentiable in an array shape with a scalar scale. */
    gamma,
    /** Beta(a, b) samples: X / (X + Y) of float64 Gamma(a) and Gamma(b), cast to `dtype` (MXNet's). */
    beta(a: DistParam, b: DistParam, size?: Size, o?: SampleOptions): ndarray {
      if (typeof a === 'number' && !(a > 0)) throw valueError('beta', 'a <= 0', { a }, 'pass a > 0');
      if (typeof b === 'number' && !(b > 0)) throw valueError('beta', 'b <= 0', { b }, 'pass b > 0');
      return c.withTemps((temps) => {
        const g64 = { ...(o?.ctx !== undefined ? { ctx: o.ctx } : {}), dtype: 'float64' as const };
        const x = gamma(a, 1, size, g64);
        temps.push(x);
        const y = gamma(b, 1, size, g64);
        temps.push(y);
        const s = c.invoke1('elemwise_add', [x, y]);
        temps.push(s);
        const q = c.invoke1('elemwise_div', [x, s]);
        temps.push(q);
        return c.invoke1('Cast', [q], { dtype: floatDtype(o) });
      });
    },
    /** Chi-square samples: gamma(df / 2, 2). */
    chisquare,
    /** F samples: (chisquare(dfnum) · dfden) / (chisquare(dfden) · dfnum). */
    f(dfnum: number, dfden: number, size?: Size, o?: SampleOptions): ndarray {
      if (!(dfnum > 0)) throw valueError('f', 'dfnum <= 0', { dfnum }, 'pass dfnum > 0');
      if (!(dfden > 0)) throw valueError('f', 'dfden <= 0', { dfden }, 'pass dfden > 0');
      return c.withTemps((temps) => {
        const x = chisquare(dfnum, size, o);
        temps.push(x);
        const y = chisquare(dfden, size, o);
        temps.push(y);
        const q = c.invoke1('elemwise_div', [x, y]);
        temps.push(q);
        return c.invoke1('_mul_scalar', [q], { scalar: dfden / dfnum });
      });
    },
    /**
     * Random samples from `range(a)` (a number) or the elements of a 1-D array `a`, with or
     * without replacement, optionally weighted by `p` (`_npi_choice`, then `take` for arrays).
     */
    choice(
      a: number | ArrayLike,
      size?: Size,
      options: { replace?: boolean; p?: ArrayLike | null; ctx?: Context } = {},
    ): ndarray {
      const replace = options.replace ?? true;
      if (typeof a === 'number') return choiceIndices(a, size, replace, options.p, options);
      return c.withTemps((temps) => {
        const arr = c.operand(a as ArrayLike, temps, undefined, options.ctx);
        if (arr.ndim !== 1)
          throw valueError('choice', 'a must be 1-dimensional', { shape: arr.shape }, 'pass a 1-D array');
        const idx = choiceIndices(arr, size, replace, options.p, options);
        temps.push(idx);
        return c.invoke1('take', [arr, idx], { axis: 0, mode: 'clip' });
      });
    },
    /** Multinomial counts of `n` experiments over `pvals` (`_npi_multinomial`, int64, shape size + [len(pvals)]). */
    multinomial(n: number, pvals: readonly number[] | NDArray, size?: Size): ndarray {
      if (!Number.isInteger(n))
        throw valueError('multinomial', 'n must be an integer', { n }, 'pass an integer n');
      if (n < 0) throw valueError('multinomial', 'n < 0', { n }, 'pass n >= 0');
      const m = sizeParam(size, 'multinomial');
      if (pvals instanceof NDArray)
        return c.invoke1('_npi_multinomial', [pvals], { n, pvals: null, size: m });
      if (pvals.some((v) => Array.isArray(v)))
        throw valueError('multinomial', 'object too deep for desired array', {}, 'pvals must be 1-D');
      if (pvals.some((v) => !(v >= 0 && v <= 1)))
        throw valueError(
          'multinomial',
          'pvals < 0, pvals > 1 or pvals contains NaNs',
          { pvals },
          'each probability is in [0, 1]',
        );
      const head = pvals.slice(0, -1).reduce((x, y) => x + y, 0);
      if (head > 1 + 1e-12)
        throw valueError('multinomial', 'sum(pvals[:-1]) > 1.0', { pvals }, 'probabilities sum to at most 1');
      return c.invoke1('_npi_multinomial', [], { n, pvals: [...pvals], size: m });
    },
    /** Shuffle `x` in place along its first axis (`_shuffle`, MXNet 2.0's `_npi_shuffle`). */
    shuffle(x: NDArray): void {
      c.dense(x, 'random.shuffle');
      if (x.ndim === 0)
        throw valueError('shuffle', 'x must be an array with at least one dimension', {}, 'pass an array');
      c.rt.invoke('_shuffle', [x], {}, { out: x });
    },
    /** A permuted copy of `x` along its first axis, or a permutation of range(x) for a number (NumPy's). */
    permutation(x: number | ArrayLike): ndarray {
      if (typeof x === 'number') {
        if (!Number.isInteger(x) || x < 0)
          throw valueError('permutation', 'negative dimensions are not allowed', { x }, 'pass n >= 0');
        const r = c.invoke1('_arange', [], { start: 0, stop: x, dtype: 'int64' });
        if (x > 0) c.rt.invoke('_shuffle', [r], {}, { out: r });
        return r;
      }
      return c.withTemps((temps) => {
        const a = c.operand(x as NestedArray | NDArray, temps);
        if (a.ndim === 0)
          throw valueError(
            'permutation',
            'x must be an integer or at least 1-dimensional',
            {},
            'pass an array',
          );
        return c.invoke1('_shuffle', [a]);
      });
    },
    ...multivariateNormalFunction(c, normal),
  };
  return fns;
}

export type RandomFunctions = ReturnType<typeof randomFunctions>;
