/**
 * The legacy samplers on cpu-wasm: `_random_uniform`, `_random_normal`, `_random_randint`.
 *
 * They draw from the kParallelRandom resource the ops request (`ctx.requested[0]`, a bank of
 * `std::mt19937` streams from @mx/storage), split the output the way MXNet's `LaunchRNG` does:
 * chunks of at least 64 samples (`kMinNumRandomPerThread`), at most one chunk per stream, chunk t
 * drawing from stream t with a fresh distribution object. Samples use libstdc++'s algorithms
 * (@mx/storage's canonical floats and polar-method normal), so a seed reproduces a sequence and is
 * close to MXNet's CPU stream; exact MXNet bits are not a goal.
 *
 * Parameters are checked here, when the op runs, because MXNet checks them in the kernel: a
 * `normal(scale=-1)` call returns and the error surfaces on the first read.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type OpContext, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import {
  generateCanonicalDouble,
  generateCanonicalFloat,
  NormalSampler,
  type Uint32Generator,
} from '@mx/storage';
import type { CpuWasmRuntime } from '../../runtime.js';
import { checkDtype } from './fill.js';

/** MXNet `RandGenerator<cpu>::kMinNumRandomPerThread`. */
const MIN_PER_STREAM = 64;
const FLOATS: ReadonlySet<DTypeName> = new Set(['float32', 'float64']);
const INTS: ReadonlySet<DTypeName> = new Set(['int32', 'int64']);
const TWO_POW_32 = 2 ** 32;

/** What the kernels need from a generator bank (ParallelRandomResource) or one generator (RandomResource). */
export interface StreamBank {
  readonly numStreams: number;
  stream(j: number): Uint32Generator;
}

export function streamsOf(op: string, ctx: OpContext): StreamBank {
  const r = ctx.requested[0] as Partial<StreamBank & { generator: Uint32Generator }> | undefined;
  if (r && typeof r.stream === 'function' && typeof r.numStreams === 'number') return r as StreamBank;
  if (r?.generator && typeof r.generator.nextUint32 === 'function') {
    const g = r.generator;
    return { numStreams: 1, stream: () => g };
  }
  throw new MXNetError('no random generator was attached to the op', {
    op,
    device: 'cpu-wasm',
    hint: "run the op through the NDArray runtime, which attaches the 'parallelRandom' resource it requests",
  });
}

/** Run `fill(gen, begin, end)` over MXNet's LaunchRNG chunks. */
export function forChunks(
  bank: StreamBank,
  n: number,
  fill: (gen: Uint32Generator, begin: number, end: number) => void,
): void {
  if (n <= 0) return;
  const nloop = Math.ceil(n / MIN_PER_STREAM);
  const nthread = Math.min(nloop, bank.numStreams);
  const step = Math.ceil(n / nthread);
  for (let t = 0; t < nthread; t++) {
    const begin = t * step;
    if (begin >= n) break;
    fill(bank.stream(t), begin, Math.min(n, begin + step));
  }
}

/** Store into `out` honouring req; float32 sums are rounded like C++ float adds. */
function store(view: Float32Array | Float64Array, req: OpReqType, i: number, v: number): void {
  if (req === OpReq.add) view[i] = (view[i] as number) + v;
  else view[i] = v;
}

type UniformAttrs = { readonly low: number; readonly high: number };
type NormalAttrs = { readonly loc: number; readonly scale: number };
type RandIntAttrs = { readonly low: number; readonly high: number };

function uniform(
  rt: CpuWasmRuntime,
  a: UniformAttrs,
  ctx: OpContext,
  out: TBlob<number>,
  req: OpReqType,
): void {
  const op = '_random_uniform';
  checkDtype(op, out.dtype, FLOATS);
  if (!(a.high >= a.low)) {
    throw new MXNetError('low must be less or equal to high in uniform distribution', {
      op,
      params: { low: a.low, high: a.high },
      hint: 'pass low <= high',
    });
  }
  if (req === OpReq.null || out.size === 0) return;
  const bank = streamsOf(op, ctx);
  const view = rt.view(out) as Float32Array | Float64Array;
  if (out.dtype === 'float32') {
    const lo = Math.fround(a.low);
    const d = Math.fround(Math.fround(a.high) - lo);
    forChunks(bank, out.size, (g, b, e) => {
      for (let i = b; i < e; i++)
        store(view, req, i, Math.fround(lo + Math.fround(d * generateCanonicalFloat(g))));
    });
  } else {
    const lo = Math.fround(a.low);
    const d = Math.fround(a.high) - lo;
    forChunks(bank, out.size, (g, b, e) => {
      for (let i = b; i < e; i++) store(view, req, i, lo + d * generateCanonicalDouble(g));
    });
  }
}

function normal(
  rt: CpuWasmRuntime,
  a: NormalAttrs,
  ctx: OpContext,
  out: TBlob<number>,
  req: OpReqType,
): void {
  const op = '_random_normal';
  checkDtype(op, out.dtype, FLOATS);
  if (!(a.scale > 0)) {
    throw new MXNetError('scale parameter in gaussian has to be positive', {
      op,
      params: { loc: a.loc, scale: a.scale },
      hint: 'pass scale > 0 (the standard deviation)',
    });
  }
  if (req === OpReq.null || out.size === 0) return;
  const bank = streamsOf(op, ctx);
  const view = rt.view(out) as Float32Array | Float64Array;
  const f32 = out.dtype === 'float32';
  const loc = Math.fround(a.loc);
  const scale = Math.fround(a.scale);
  forChunks(bank, out.size, (g, b, e) => {
    // A fresh std::normal_distribution per chunk: N(0, 1), then `z * scale + loc` as MXNet's sampler.
    const dist = new NormalSampler(0, 1, f32 ? 'float32' : 'float64');
    for (let i = b; i < e; i++) {
      const z = dist.next(g);
      store(view, req, i, f32 ? Math.fround(Math.fround(z * scale) + loc) : z * scale + loc);
    }
  });
}

/** A uniform integer in [0, range) from a 64-bit draw (two 32-bit words) reduced mod range. */
function drawBelow(g: Uint32Generator, range: number): number {
  const hi = g.nextUint32();
  const lo = g.nextUint32();
  if (range <= 2 ** 26) return ((hi % range) * (TWO_POW_32 % range) + (lo % range)) % range;
  return Number(((BigInt(hi) << 32n) | BigInt(lo)) % BigInt(range));
}

function randint(
  rt: CpuWasmRuntime,
  a: RandIntAttrs,
  ctx: OpContext,
  out: TBlob<number>,
  req: OpReqType,
): void {
  const op = '_random_randint';
  checkDtype(op, out.dtype, INTS);
  if (!(a.high > a.low)) {
    throw new MXNetError(`low must be less than high in randint, got low=${a.low}, high=${a.high}`, {
      op,
      params: { low: a.low, high: a.high },
      hint: 'samples come from [low, high): pass high > low',
    });
  }
  if (out.dtype === 'int32' && (a.low < -(2 ** 31) || a.high > 2 ** 31)) {
    throw new MXNetError(`randint bounds [${a.low}, ${a.high}) do not fit int32`, {
      op,
      params: { low: a.low, high: a.high },
      hint: "pass dtype='int64' for wider bounds",
    });
  }
  if (req === OpReq.null || out.size === 0) return;
  const bank = streamsOf(op, ctx);
  const range = a.high - a.low;
  if (out.dtype === 'int32') {
    const view = rt.view(out) as Int32Array;
    forChunks(bank, out.size, (g, b, e) => {
      for (let i = b; i < e; i++) {
        const v = a.low + drawBelow(g, range);
        view[i] = req === OpReq.add ? (view[i] as number) + v : v;
      }
    });
  } else {
    const view = rt.view(out) as BigInt64Array;
    const low = BigInt(a.low);
    forChunks(bank, out.size, (g, b, e) => {
      for (let i = b; i < e; i++) {
        const v = low + BigInt(drawBelow(g, range));
        view[i] = req === OpReq.add ? BigInt.asIntN(64, (view[i] as bigint) + v) : v;
      }
    });
  }
}

export function installRandom(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<UniformAttrs>('_random_uniform', 'cpu-wasm', {
    compute: (a, ctx, _i, req, out) => uniform(rt, a, ctx, out[0] as TBlob<number>, req[0] as OpReqType),
  });
  registry.registerKernel<NormalAttrs>('_random_normal', 'cpu-wasm', {
    compute: (a, ctx, _i, req, out) => normal(rt, a, ctx, out[0] as TBlob<number>, req[0] as OpReqType),
  });
  registry.registerKernel<RandIntAttrs>('_random_randint', 'cpu-wasm', {
    compute: (a, ctx, _i, req, out) => randint(rt, a, ctx, out[0] as TBlob<number>, req[0] as OpReqType),
  });
}
