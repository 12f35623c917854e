/**
 * `mx.npx`: MXNet 2.0's NumPy extensions — the switches (`setNp`, `resetNp`, `isNpArray`,
 * `isNpShape`, `isNpDefaultDtype`), the neural-network operators under their `_npx_*` names
 * (`npx.convolution` runs `_npx_convolution`, an alias of `Convolution`, so a traced graph writes
 * what MXNet 2.0 writes), and `save`/`savez`/`load` (NumPy's `.npy`/`.npz`).
 *
 * Keyword options are camelCase (`numHidden`, `noBias`, `actType`) and become the op's MXNet
 * parameters (`num_hidden`...) by one rule, so each function is a line: the op, its array inputs
 * and the options. Outputs are np arrays.
 */
import { type Context, type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import type { NpSwitches } from '../flags.js';
import type { Size } from './random.js';

/** Options of `npx.random` samplers: output dtype (default float32, as MXNet 2.0), device, `out`. */
export interface NpxRandomOptions {
  readonly dtype?: DTypeName;
  readonly ctx?: Context;
  readonly out?: NDArray;
}

/** Options of an npx operator: MXNet's parameters in camelCase (`numHidden` → `num_hidden`). */
export type NpxOptions = Readonly<Record<string, unknown>>;

/** camelCase option keys as MXNet's parameter names. */
export function opParams(options: NpxOptions | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options ?? {}))
    if (v !== undefined) out[k.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)] = v;
  return out;
}

const isArray = (a: unknown): a is NDArray =>
  typeof a === 'object' && a !== null && 'shape' in a && 'dtype' in a;

/** The functions of `npx`. */
export function npxFunctions(c: NpContext) {
  const f = c.flags;
  /** Run `op` on the arrays given (undefined ones dropped), options as MXNet params. */
  const run = (op: string, inputs: readonly (ArrayLike | undefined)[], options?: NpxOptions): ndarray[] =>
    c.withTemps((t) =>
      c.invoke(
        op,
        inputs.filter((x) => x !== undefined).map((x) => c.operand(x as ArrayLike, t)),
        opParams(options),
      ),
    );
  const one =
    (op: string) =>
    (data: ArrayLike, options?: NpxOptions): ndarray =>
      run(op, [data], options)[0] as ndarray;
  const two =
    (op: string) =>
    (a: ArrayLike, b: ArrayLike, options?: NpxOptions): ndarray =>
      run(op, [a, b], options)[0] as ndarray;
  /** Ops with an optional bias: `no_bias` follows whether one is given, as MXNet 2.0's npx does. */
  const withBias =
    (op: string) =>
    (data: ArrayLike, weight: ArrayLike, bias?: ArrayLike | null, options: NpxOptions = {}): ndarray =>
      run(op, [data, weight, bias ?? undefined], {
        ...options,
        noBias: bias === undefined || bias === null,
      })[0] as ndarray;
  const rt = c.rt;
  return {
    /** MXNet `npx.set_np(shape=True, array=True, dtype=False)`. */
    setNp: (switches?: NpSwitches) => f.setNp(switches),
    /** MXNet `npx.reset_np()`: legacy semantics. */
    resetNp: () => f.resetNp(),
    isNpArray: () => f.isNpArray(),
    isNpShape: () => f.isNpShape(),
    isNpDefaultDtype: () => f.isNpDefaultDtype(),

    /** Softmax over `axis` (`{ axis, temperature, dtype, length, useLength }`). */
    softmax(data: ArrayLike, options: NpxOptions & { readonly length?: ArrayLike } = {}): ndarray {
      const { length, ...rest } = options;
      return run('_npx_softmax', [data, length], { ...rest, useLength: length !== undefined })[0] as ndarray;
    },
    logSoftmax(data: ArrayLike, options: NpxOptions & { readonly length?: ArrayLike } = {}): ndarray {
      const { length, ...rest } = options;
      return run('_npx_log_softmax', [data, length], {
        ...rest,
        useLength: length !== undefined,
      })[0] as ndarray;
    },
    /** Softmax of the entries where `mask` is true (`{ axis, temperature, normalize }`). */
    maskedSoftmax: two('_npx_masked_softmax'),
    /** Log-softmax of the entries where `mask` is true; masked entries are -inf (`{ axis, temperature, normalize }`). */
    maskedLogSoftmax: two('_npx_masked_log_softmax'),
    /** `{ actType: 'relu' | 'sigmoid' | 'tanh' | 'softrelu' | 'softsign' }`. */
    activation: one('_npx_activation'),
    relu: one('_npx_relu'),
    sigmoid: one('_npx_sigmoid'),
    leakyRelu: one('_npx_leaky_relu'),
    /** `npx.fully_connected(x, weight, bias, { numHidden, flatten })`. */
    fullyConnected: withBias('_npx_fully_connected'),
    /** `npx.convolution(data, weight, bias, { kernel, stride, dilate, pad, numFilter, numGroup, layout })`. */
    convolution: withBias('_npx_convolution'),
    deconvolution: withBias('_npx_deconvolution'),
    /** `{ kernel, stride, pad, poolType, poolingConvention, globalPool, layout }`. */
    pooling: one('_npx_pooling'),
    /** `npx.batch_norm(x, gamma, beta, runningMean, runningVar, { eps, momentum, fixGamma, useGlobalStats, axis })`. */
    batchNorm(
      x: ArrayLike,
      gamma: ArrayLike,
      beta: ArrayLike,
      runningMean: NDArray,
      runningVar: NDArray,
      options?: NpxOptions,
    ): ndarray {
      return run('_npx_batch_norm', [x, gamma, beta, runningMean, runningVar], options)[0] as ndarray;
    },
    layerNorm(data: ArrayLike, gamma: ArrayLike, beta: ArrayLike, options?: NpxOptions): ndarray {
      return run('_npx_layer_norm', [data, gamma, beta], options)[0] as ndarray;
    },
    groupNorm(data: ArrayLike, gamma: ArrayLike, beta: ArrayLike, options?: NpxOptions): ndarray {
      return run('_npx_group_norm', [data, gamma, beta], options)[0] as ndarray;
    },
    /** `{ p, mode, axes }`; identity outside `autograd.train` mode unless `mode: 'always'`. */
    dropout: one('_npx_dropout'),
    /** `npx.embedding(data, weight, { inputDim, outputDim, dtype, sparseGrad })`. */
    embedding: two('_npx_embedding'),
    /** `npx.one_hot(indices, { depth, onValue, offValue, dtype })`. */
    oneHot: one('_npx_one_hot'),
    /** `npx.pick(data, index, { axis, mode, keepdims })`. */
    pick: two('_npx_pick'),
    /** `npx.topk(data, { axis, k, retTyp, isAscend, dtype })`; `retTyp: 'both'` gives two arrays. */
    topk(data: ArrayLike, options?: NpxOptions): ndarray | ndarray[] {
      const out = run('_npx_topk', [data], options);
      return out.length === 1 ? (out[0] as ndarray) : out;
    },
    batchDot: two('_npx_batch_dot'),
    broadcastLike: two('_npx_broadcast_like'),
    /** `npx.sequence_mask(data, sequenceLength, { useSequenceLength, value, axis })`. */
    sequenceMask(data: ArrayLike, sequenceLength?: ArrayLike, options: NpxOptions = {}): ndarray {
      return run('_npx_sequence_mask', [data, sequenceLength], {
        ...options,
        useSequenceLength: sequenceLength !== undefined,
      })[0] as ndarray;
    },
    gatherNd: two('_npx_gather_nd'),
    /**
     * MXNet 2.0 `npx.reshape(a, newshape, reverse=False)`: -1 infers a dim, -2 copies an input dim, -3
     * drops an input dim of size 1, -4 copies the remaining input dims, -5 merges two input dims, -6
     * splits one into the next two values (one may be -1); `reverse` matches the codes from the right.
     * An array gives a view sharing its storage (a JS value, a new array); traced by deferred compute
     * (a hybridized block), it records `_npx_reshape` with the codes, so the graph keeps them.
     */
    reshape(
      a: ArrayLike,
      newshape: number | readonly number[],
      options: { readonly reverse?: boolean } = {},
    ): ndarray {
      const params = {
        newshape: typeof newshape === 'number' ? [newshape] : newshape,
        reverse: options.reverse,
      };
      if (!isArray(a) || rt.dc.active) return run('_npx_reshape', [a], params)[0] as ndarray;
      a.checkLive('npx.reshape');
      const op = rt.registry.get('_npx_reshape');
      const out: (readonly number[] | undefined)[] = [undefined];
      op.inferShape(op.parseParams(opParams(params)), [a.shape], out);
      return c.view(a, out[0] as readonly number[]);
    },
    /**
     * MXNet 2.0 `npx.arange_like(data, start=0, step=1, repeat=1, axis=None)`: `start + (i // repeat) *
     * step` with data's shape and dtype, or a 1-D sequence as long as data's axis `axis`.
     */
    arangeLike: one('_npx_arange_like'),
    reshapeLike: two('_npx_reshape_like'),
    stopGradient: one('_npx_stop_gradient'),
    erf: one('_npx_erf'),
    erfinv: one('_npx_erfinv'),
    gamma: one('_npx_gamma'),
    gammaln: one('_npx_gammaln'),
    /** Cast (`{ dtype }`). */
    cast: one('_npx_cast'),

    /** `npx.random`: MXNet 2.0's sampler extensions (python/mxnet/ndarray/numpy_extension/random.py). */
    random: {
      /**
       * MXNet `npx.random.bernoulli(prob, logit, size, dtype, device)`: 1 with probability `prob`
       * (or sigmoid(`logit`)), else 0; exactly one of them given, a number (op param) or an array
       * (tensor input, broadcast to `size`). `_npi_bernoulli` with `{ prob | logit, is_logit, size,
       * dtype }`; dtype float32 unless given. A number `prob` outside [0, 1] is refused here, an
       * array one when the kernel runs (MXNet's check and wording).
       */
      bernoulli(
        prob?: number | ArrayLike | null,
        logit?: number | ArrayLike | null,
        size?: Size,
        options: NpxRandomOptions = {},
      ): ndarray {
        const noProb = prob === undefined || prob === null;
        const noLogit = logit === undefined || logit === null;
        if (noProb === noLogit) {
          const show = (v: unknown) =>
            v === undefined || v === null ? 'None' : typeof v === 'number' ? v : 'array';
          throw new MXNetError(
            `ValueError: Either \`prob\` or \`logit\` must be specified, but not both. Received prob=${show(prob)}, logit=${show(logit)}`,
            { op: 'npx.random.bernoulli', hint: 'pass exactly one of prob and logit' },
          );
        }
        if (typeof prob === 'number' && !(prob >= 0 && prob <= 1)) {
          throw new MXNetError('ValueError: expect probs >= 0 && probs <= 1', {
            op: 'npx.random.bernoulli',
            params: { prob },
            hint: 'prob is a probability in [0, 1]; pass logit for log-odds',
          });
        }
        const dims = size === null || size === undefined ? [] : typeof size === 'number' ? [size] : [...size];
        const isLogit = noProb;
        const value = (isLogit ? logit : prob) as number | ArrayLike;
        const params: Record<string, unknown> = {
          prob: !isLogit && typeof value === 'number' ? value : null,
          logit: isLogit && typeof value === 'number' ? value : null,
          is_logit: isLogit,
          // MXNet 2.0 turns size=() into None.
          size: dims.length === 0 ? null : dims,
          dtype: options.dtype ?? 'float32',
        };
        const opts = {
          ...(options.ctx !== undefined ? { ctx: options.ctx } : {}),
          ...(options.out !== undefined ? { out: options.out } : {}),
        };
        return c.withTemps((t) =>
          c.invoke1(
            '_npi_bernoulli',
            typeof value === 'number' ? [] : [c.operand(value, t, undefined, options.ctx)],
            params,
            opts,
          ),
        );
      },
    },

    /** MXNet `npx.save(file, arr)`: one array, as NumPy `.npy` (a `.npz`/other name: that format). */
    async save(file: string, arr: NDArray): Promise<void> {
      await rt.nd.save(file, arr, file.endsWith('.npy') || !file.includes('.') ? { format: 'npy' } : {});
    },
    /**
     * MXNet `npx.savez(file, ...arrays, named?)`: positional arrays named `arr_0`, `arr_1`...; a
     * final plain object adds named ones (NumPy's keywords), uncompressed `.npz`.
     */
    async savez(file: string, ...arrays: (NDArray | Readonly<Record<string, NDArray>>)[]): Promise<void> {
      const named: Record<string, NDArray> = {};
      let i = 0;
      for (const a of arrays) {
        if (isArray(a)) named[`arr_${i++}`] = a;
        else
          for (const [k, v] of Object.entries(a)) {
            if (k in named)
              throw new MXNetError(`Naming conflict between arg ${k.slice(4)} and kwargs.`, {
                op: 'npx.savez',
              });
            named[k] = v;
          }
      }
      await rt.nd.save(file, named, { format: 'npz' });
    },
    /**
     * MXNet `npx.load(file)`: `.npy`, `.npz` or MXNet files as np arrays — one array when the file
     * holds one unnamed array, a list when several, a name → array record for named ones.
     */
    async load(file: string): Promise<ndarray | ndarray[] | Record<string, ndarray>> {
      const got = await rt.nd.load(file);
      if (Array.isArray(got)) {
        const arrays = got.map((a) => c.adopt(a));
        return arrays.length === 1 ? (arrays[0] as ndarray) : arrays;
      }
      const out: Record<string, ndarray> = {};
      for (const [k, a] of Object.entries(got)) out[k] = c.adopt(a);
      return out;
    },
  };
}

export type NpxFunctions = ReturnType<typeof npxFunctions>;
