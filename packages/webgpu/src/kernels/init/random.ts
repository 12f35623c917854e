/**
 * The legacy samplers on webgpu: `_random_uniform`, `_random_normal`, `_random_randint`.
 *
 * Why a counter-based generator: MXNet's GPU samplers do not replay the CPU's mt19937 streams; each
 * GPU has its own generator (curand's Philox4x32-10 in `RandGenerator<gpu>`), so gpu(0) values are
 * a different — equally valid — sequence than cpu(0)'s. We do the same: every invocation runs
 * Philox4x32-10 on counter (invocation index, 0, 0, 0) and yields four samples, so generation is
 * fully parallel and nothing is drawn on the host per element. The 64-bit key comes from the kRandom
 * resource the op requests for gpu(0) (`ctx.requested[0]`, seeded by `mx.random.seed` through the
 * ResourceManager): two 32-bit draws per call, so a seed reproduces a sequence of calls and
 * successive calls differ.
 *
 * Distributions: uniform takes the top 24 bits as a float in [0, 1) (`lo + (hi - lo) * u`, as
 * cpu-wasm's float32 path); normal is Box-Muller on two such uniforms (u1 in (0, 1]) giving two
 * samples per pair, then `z * scale + loc`; randint maps a 64-bit draw to [0, range) by the high
 * word of the 96-bit product draw * range (bias < range / 2^64). Parameters are checked when the
 * op runs, as MXNet does (errors surface on the first read).
 */
import { MXNetError } from '@mx/base';
import { type OpContext, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { elemOffset, main1d, paramBits, paramsDecl } from '../../wgsl.js';

const WG = 64;

/** The 32x32 -> 64 multiply (hi, lo) and the Philox4x32-10 block function. */
export const PHILOX_WGSL = `
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0; let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>(p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u), a * b);
}
fn philox(c: vec4<u32>, k: vec2<u32>) -> vec4<u32> {
  var x = c;
  var key = k;
  for (var r = 0u; r < 10u; r++) {
    let p0 = mulhilo(0xD2511F53u, x.x);
    let p1 = mulhilo(0xCD9E8D57u, x.z);
    x = vec4<u32>(p1.x ^ x.y ^ key.x, p1.y, p0.x ^ x.w ^ key.y, p0.y);
    key = key + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
  }
  return x;
}
fn unit(x: u32) -> f32 { return f32(x >> 8u) * 5.9604644775390625e-8; }
`;

type Kind = 'uniform' | 'normal' | 'randint';

/** Four samples (vec4 of the output scalar) from one Philox block `r`; uniform words 5.. are the distribution's. */
function samples(kind: Kind): string {
  if (kind === 'uniform') {
    return `let lo = pf(5u); let d = pf(6u);
  let s = vec4<f32>(lo + d * unit(r.x), lo + d * unit(r.y), lo + d * unit(r.z), lo + d * unit(r.w));`;
  }
  if (kind === 'normal') {
    return `let loc = pf(5u); let scale = pf(6u);
  let u1 = vec2<f32>(f32((r.x >> 8u) + 1u), f32((r.z >> 8u) + 1u)) * 5.9604644775390625e-8;
  let rad = sqrt(-2.0 * log(u1));
  let th = vec2<f32>(unit(r.y), unit(r.w)) * 6.283185307179586;
  let s = vec4<f32>(rad.x * cos(th.x), rad.x * sin(th.x), rad.y * cos(th.y), rad.y * sin(th.y)) * scale + loc;`;
  }
  // randint: v = floor((hi * 2^32 + lo) * range / 2^64), two draws per sample.
  const r2 = (hi: string, lo: string) => {
    return `(mulhilo(${hi}, range).x + select(0u, 1u, mulhilo(${hi}, range).y + mulhilo(${lo}, range).x < mulhilo(${hi}, range).y))`;
  };
  return `let range = pu(6u); let low = pu(5u);
  let r2 = philox(vec4<u32>(i, 1u, 0u, 0u), vec2<u32>(pu(3u), pu(4u)));
  let s = bitcast<vec4<i32>>(vec4<u32>(low + ${r2('r.x', 'r.y')}, low + ${r2('r.z', 'r.w')}, low + ${r2('r2.x', 'r2.y')}, low + ${r2('r2.z', 'r2.w')}));`;
}

function source(kind: Kind, add: boolean): string {
  const st = kind === 'randint' ? 'i32' : 'f32';
  const put = add ? 'o[off + e] = o[off + e] + s[k];' : 'o[off + e] = s[k];';
  return `${paramsDecl(8)}@group(0) @binding(1) var<storage, read_write> o: array<${st}>;
${PHILOX_WGSL}
${main1d(
  WG,
  'pu(2u)',
  `  let off = pu(0u); let n = pu(1u);
  let r = philox(vec4<u32>(i, 0u, 0u, 0u), vec2<u32>(pu(3u), pu(4u)));
  ${samples(kind)}
  for (var k = 0u; k < 4u; k++) {
    let e = i * 4u + k;
    if (e < n) { ${put} }
  }`,
)}`;
}

interface Generator {
  nextUint32(): number;
}

/** A 32-bit generator from the op's requested random resource (parallel bank: stream 0). */
function generatorOf(op: string, ctx: OpContext): Generator {
  const r = ctx.requested[0] as
    | Partial<{ stream(j: number): Generator; generator: Generator; numStreams: number }>
    | undefined;
  if (r !== undefined && typeof r.stream === 'function') return r.stream(0);
  if (r?.generator !== undefined && typeof r.generator.nextUint32 === 'function') return r.generator;
  throw new MXNetError('no random generator was attached to the op', {
    op,
    device: 'gpu(0)',
    hint: "run the op through the NDArray runtime, which attaches the 'parallelRandom' resource it requests",
  });
}

function sample(
  rt: WebGpuRuntime,
  op: string,
  kind: Kind,
  ctx: OpContext,
  out: GpuBlob,
  req: OpReqType,
  p0: number,
  p1: number,
): void {
  if (req === OpReq.null || out.size === 0 || out.ptr === null) return;
  const g = generatorOf(op, ctx);
  const k0 = g.nextUint32() >>> 0;
  const k1 = g.nextUint32() >>> 0;
  const threads = Math.ceil(out.size / 4);
  const add = req === OpReq.add;
  const entry = rt.pipeline(`init:random:${kind}:${add ? 'add' : 'write'}`, () => source(kind, add), 8);
  rt.dispatch(entry, [out.ptr], [elemOffset(out), out.size, threads, k0, k1, p0, p1], grid1d(threads, WG));
}

type UniformAttrs = { readonly low: number; readonly high: number };
type NormalAttrs = { readonly loc: number; readonly scale: number };

export function installRandom(registry: OpRegistry, gpu: GpuHost): void {
  const f = (v: number) => paramBits('float32', v);
  registry.registerKernel(
    '_random_uniform',
    'webgpu',
    gpuKernel<UniformAttrs>(
      gpu,
      '_random_uniform',
      (a, _i, req, out, ctx) => {
        if (!(a.high >= a.low)) {
          throw new MXNetError('low must be less or equal to high in uniform distribution', {
            op: '_random_uniform',
            params: { low: a.low, high: a.high },
            hint: 'pass low <= high',
          });
        }
        const lo = Math.fround(a.low);
        const d = Math.fround(Math.fround(a.high) - lo);
        sample(
          gpu.rt,
          '_random_uniform',
          'uniform',
          ctx,
          out[0] as GpuBlob,
          req[0] as OpReqType,
          f(lo),
          f(d),
        );
      },
      ['float32'],
    ),
  );
  registry.registerKernel(
    '_random_normal',
    'webgpu',
    gpuKernel<NormalAttrs>(
      gpu,
      '_random_normal',
      (a, _i, req, out, ctx) => {
        if (!(a.scale > 0)) {
          throw new MXNetError('scale parameter in gaussian has to be positive', {
            op: '_random_normal',
            params: { loc: a.loc, scale: a.scale },
            hint: 'pass scale > 0 (the standard deviation)',
          });
        }
        sample(
          gpu.rt,
          '_random_normal',
          'normal',
          ctx,
          out[0] as GpuBlob,
          req[0] as OpReqType,
          f(a.loc),
          f(a.scale),
        );
      },
      ['float32'],
    ),
  );
  registry.registerKernel(
    '_random_randint',
    'webgpu',
    gpuKernel<UniformAttrs>(
      gpu,
      '_random_randint',
      (a, _i, req, out, ctx) => {
        const op = '_random_randint';
        if (!(a.high > a.low)) {
          throw new MXNetError(`low must be less than high in randint, got low=${a.low}, high=${a.high}`, {
            op,
            params: { low: a.low, high: a.high },
            hint: 'samples come from [low, high): pass high > low',
          });
        }
        if (a.low < -(2 ** 31) || a.high > 2 ** 31) {
          throw new MXNetError(`randint bounds [${a.low}, ${a.high}) do not fit int32`, {
            op,
            params: { low: a.low, high: a.high },
            hint: 'webgpu samples int32 only; narrow the bounds or sample on cpu(0) with dtype int64',
          });
        }
        const range = a.high - a.low;
        if (range > 2 ** 32 - 1) {
          throw new MXNetError(`randint range ${range} exceeds 2^32 - 1 on webgpu`, {
            op,
            params: { low: a.low, high: a.high },
            hint: 'narrow the bounds by one or sample on cpu(0)',
          });
        }
        sample(gpu.rt, op, 'randint', ctx, out[0] as GpuBlob, req[0] as OpReqType, a.low >>> 0, range >>> 0);
      },
      ['int32'],
    ),
  );
}
