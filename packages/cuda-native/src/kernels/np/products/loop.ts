/**
 * einsum's general step on cuda-native: multiply operands elementwise over a common set of loop
 * dims and sum over the trailing ones (cpu-wasm's einsum-loop.ts as a CUDA kernel). Operands and
 * the output are strided windows (element strides per loop dim; 0 broadcasts, summed strides walk
 * a diagonal), so transposes, diagonals, broadcasts, casts and the backward's spread onto a
 * gradient's axes are all this one kernel with one operand and nothing summed.
 *
 * Shape of the code: the loop geometry (dims, every window's strides) travels as one uploaded
 * table of long longs rather than MxDims, so neither the number of loop dims nor the number of
 * operands is capped by MAXD; the source is specialised (and cached) by the operand dtypes, the
 * output dtype, req add, whether anything is summed and the launch mode:
 * - thread: a thread per output element walks its sum (innermost summed dim as a tight loop);
 * - block: a block per output element strides over the sum, then a shared-memory tree reduction
 *   (few outputs with long sums, e.g. a full contraction to a scalar).
 * Accumulation is in the output's compute kind: double for float64, float for float32 and the
 * 16-bit floats, unsigned 64-bit for every integer (the stores wrap modulo the width, as cpu-wasm's
 * typed-array stores and NumPy's fixed-width integers do), or-of-ands for bool (NumPy's bool einsum).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { BLOCK, blocksFor, type CudaSource, hashText, type KernelArg } from '../../../cuda-c.js';
import type { CudaRuntime } from '../../../runtime.js';

const DEVICE = 'gpu (cuda-native)';

/** How one dtype lives in this kernel: storage C type and its class (float, half, signed, unsigned, bool). */
interface Elem {
  readonly storage: string;
  readonly cls: 'f' | 'h' | 'bf' | 's' | 'u' | 'b';
  readonly bytes: number;
}

/** Every storable dtype (cpu-wasm's einsum dtypes plus the 16-bit floats, computed in float). */
const ELEMS: Readonly<Record<DTypeName, Elem>> = {
  float32: { storage: 'float', cls: 'f', bytes: 4 },
  float64: { storage: 'double', cls: 'f', bytes: 8 },
  float16: { storage: 'unsigned short', cls: 'h', bytes: 2 },
  bfloat16: { storage: 'unsigned short', cls: 'bf', bytes: 2 },
  int8: { storage: 'signed char', cls: 's', bytes: 1 },
  int16: { storage: 'short', cls: 's', bytes: 2 },
  int32: { storage: 'int', cls: 's', bytes: 4 },
  int64: { storage: 'long long', cls: 's', bytes: 8 },
  uint8: { storage: 'unsigned char', cls: 'u', bytes: 1 },
  uint16: { storage: 'unsigned short', cls: 'u', bytes: 2 },
  uint32: { storage: 'unsigned', cls: 'u', bytes: 4 },
  uint64: { storage: 'unsigned long long', cls: 'u', bytes: 8 },
  bool: { storage: 'unsigned char', cls: 'b', bytes: 1 },
};

/** The dtypes the products' kernels take. */
export const PRODUCT_DTYPES: readonly DTypeName[] = Object.freeze(Object.keys(ELEMS) as DTypeName[]);

export function elem(dtype: DTypeName, op: string): Elem {
  const e = ELEMS[dtype];
  if (e === undefined) {
    throw new MXNetError(`dtype ${dtype} is not supported on the cuda backend`, {
      op,
      dtypes: [dtype],
      device: DEVICE,
      hint: `use one of ${PRODUCT_DTYPES.join(', ')} (cast with astype() first)`,
    });
  }
  return e;
}

/** Bytes per element of `dtype`. */
export const bytesOf = (dtype: DTypeName, op: string): number => elem(dtype, op).bytes;

type Acc = 'float' | 'double' | 'ull' | 'bool';

/** The accumulator a result of `dtype` is summed in (see the file comment). */
function accOf(dtype: DTypeName, op: string): Acc {
  const e = elem(dtype, op);
  if (e.cls === 'b') return 'bool';
  if (e.cls === 's' || e.cls === 'u') return 'ull';
  return dtype === 'float64' ? 'double' : 'float';
}

const ACC_C: Readonly<Record<Acc, string>> = {
  float: 'float',
  double: 'double',
  ull: 'unsigned long long',
  bool: 'bool',
};

/** C expression: element `idx` of `arr` (dtype) as accumulator kind `acc`. */
function loadAs(dtype: DTypeName, acc: Acc, arr: string, idx: string, op: string): string {
  const e = elem(dtype, op);
  const at = `${arr}[${idx}]`;
  const raw =
    e.cls === 'h' ? `mx_h2f(${at})` : e.cls === 'bf' ? `mx_bf2f(${at})` : e.cls === 'b' ? `(${at} != 0)` : at;
  if (acc === 'float' || acc === 'double') return `((${acc})${raw})`;
  if (acc === 'bool') return e.cls === 'b' ? raw : `(${raw} != 0)`;
  if (e.cls === 's') return `((unsigned long long)(long long)${raw})`;
  if (e.cls === 'u' || e.cls === 'b') return `((unsigned long long)${raw})`;
  return `((unsigned long long)mx_f2ll((double)${raw}))`;
}

/** C statement storing accumulator `v` into `arr[idx]` (dtype), adding to the old value when `add`. */
function storeAs(dtype: DTypeName, acc: Acc, arr: string, idx: string, v: string, add: boolean, op: string) {
  const e = elem(dtype, op);
  const old = loadAs(dtype, acc, arr, idx, op);
  const val = add ? (acc === 'bool' ? `(${v}) || ${old}` : `(${v}) + ${old}`) : v;
  const conv =
    e.cls === 'h'
      ? `mx_f2h((float)(${val}))`
      : e.cls === 'bf'
        ? `mx_f2bf((float)(${val}))`
        : e.cls === 'b'
          ? `(unsigned char)((${val}) ? 1 : 0)`
          : `(${e.storage})(${val})`;
  return `${arr}[${idx}] = ${conv};`;
}

const F2LL = `static __device__ __forceinline__ long long mx_f2ll(double v) {
  if (!(v == v)) return 0;
  if (v >= 9223372036854775807.0) return 9223372036854775807LL;
  if (v <= -9223372036854775808.0) return (-9223372036854775807LL - 1LL);
  return (long long)v;
}
`;

type Mode = 'thread' | 'block';

const SOURCES = new Map<string, CudaSource>();

/** The specialised source (cached per key; codegen never runs per call). */
function loopSource(
  op: string,
  ins: readonly DTypeName[],
  out: DTypeName,
  add: boolean,
  hasSum: boolean,
  mode: Mode,
): CudaSource {
  const key = `${ins.join(',')}>${out}|${add}|${hasSum}|${mode}`;
  let s = SOURCES.get(key);
  if (s !== undefined) return s;
  const entry = `mx_np_einsum_loop_${hashText(key)}`;
  const acc = accOf(out, op);
  const accC = ACC_C[acc];
  const n = ins.length;
  const ids = ins.map((_, j) => j);
  const params = [
    `${elem(out, op).storage}* y`,
    ...ins.map((d, j) => `const ${elem(d, op).storage}* x${j}`),
    'const long long* tab',
    'long long outCount',
    'long long sumCount',
    'int nOut',
    'int nSum',
  ].join(', ');
  const term = (q: string) => {
    const parts = ids.map((j) => loadAs(ins[j] as DTypeName, acc, `x${j}`, `${q}${j}`, op));
    return parts.join(acc === 'bool' ? ' && ' : ' * ');
  };
  const accumulate = (q: string) => (acc === 'bool' ? `acc = acc || (${term(q)});` : `acc += ${term(q)};`);
  const zero = acc === 'bool' ? 'false' : '0';
  const decl = (name: string, init: string) => ids.map((j) => `${name}${j} = ${init}${j}`).join(', ');
  const advance = (to: string, c: string, d: string) =>
    ids.map((j) => `${to}${j} += ${c} * tab[nd * ${j + 1} + ${d}];`).join(' ');
  const outerIndex = `long long t = o, py = 0${n > 0 ? `, ${ids.map((j) => `p${j} = 0`).join(', ')}` : ''};
    for (int d = nOut - 1; d >= 0; d--) {
      long long c = t % tab[d]; t /= tab[d];
      py += c * tab[nd * ${n + 1} + d]; ${advance('p', 'c', 'd')}
    }`;
  let body: string;
  if (mode === 'thread') {
    const sum = hasSum
      ? `${accC} acc = ${zero};
    const int last = nd - 1;
    const long long inner = tab[last], outerN = sumCount / inner;
    for (long long r = 0; r < outerN; r++) {
      long long u = r, ${decl('q', 'p')};
      for (int d = last - 1; d >= nOut; d--) { long long c = u % tab[d]; u /= tab[d]; ${advance('q', 'c', 'd')} }
      for (long long k = 0; k < inner; k++) {
        ${accumulate('q')}
        ${ids.map((j) => `q${j} += tab[nd * ${j + 1} + last];`).join(' ')}
      }
    }`
      : `${accC} acc = ${term('p')};`;
    body = `  MX_GRID_LOOP(o, outCount) {
    ${outerIndex}
    ${sum}
    ${storeAs(out, acc, 'y', 'py', 'acc', add, op)}
  }`;
  } else {
    const shared = acc === 'bool' ? 'int' : accC;
    body = `  __shared__ ${shared} sh[${BLOCK}];
  for (long long o = blockIdx.x; o < outCount; o += gridDim.x) {
    ${outerIndex}
    ${accC} acc = ${zero};
    for (long long r = threadIdx.x; r < sumCount; r += blockDim.x) {
      long long u = r, ${decl('q', 'p')};
      for (int d = nd - 1; d >= nOut; d--) { long long c = u % tab[d]; u /= tab[d]; ${advance('q', 'c', 'd')} }
      ${accumulate('q')}
    }
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) sh[threadIdx.x] = ${acc === 'bool' ? 'sh[threadIdx.x] || sh[threadIdx.x + s]' : 'sh[threadIdx.x] + sh[threadIdx.x + s]'};
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      ${accC} total = ${acc === 'bool' ? 'sh[0] != 0' : 'sh[0]'};
      ${storeAs(out, acc, 'y', 'py', 'total', add, op)}
    }
    __syncthreads();
  }`;
  }
  const code = `${acc === 'ull' ? F2LL : ''}extern "C" __global__ void ${entry}(${params}) {
  const int nd = nOut + nSum;
${body}
}
`;
  s = { entry, code };
  SOURCES.set(key, s);
  return s;
}

/** A strided window: device address of element [0, ...], its dtype and one element stride per loop dim. */
export interface LoopArray {
  readonly addr: number;
  readonly dtype: DTypeName;
  readonly strides: readonly number[];
}

/** `dims`: the output's loop dims, then the summed ones (`nOut` of them are output dims). */
export interface LoopProblem {
  readonly op: string;
  readonly dims: readonly number[];
  readonly nOut: number;
  readonly operands: readonly LoopArray[];
  /** The output window; strides past `nOut` are ignored. */
  readonly out: LoopArray;
  readonly add: boolean;
}

/** Tuning: sums at least this long over few outputs take a block per output (tests lower it). */
export interface LoopOptions {
  readonly blockSum?: number;
}

/**
 * Drop length-1 dims and merge neighbours that every window walks contiguously, within the output
 * group and within the summed group (the summation order is unchanged). Exported for its test.
 */
export function simplifyLoop(p: {
  readonly dims: readonly number[];
  readonly nOut: number;
  readonly strides: readonly (readonly number[])[];
}): { dims: number[]; nOut: number; strides: number[][] } {
  const groups: { dims: number[]; strides: number[][] }[] = [];
  for (const [from, to] of [
    [0, p.nOut],
    [p.nOut, p.dims.length],
  ] as const) {
    const dims: number[] = [];
    const strides: number[][] = p.strides.map(() => []);
    for (let d = from; d < to; d++) {
      const n = p.dims[d] as number;
      if (n === 1) continue;
      const last = dims.length - 1;
      const merge =
        last >= 0 && p.strides.every((s, j) => (strides[j] as number[])[last] === (s[d] as number) * n);
      if (merge) {
        dims[last] = (dims[last] as number) * n;
        p.strides.forEach((s, j) => {
          (strides[j] as number[])[last] = s[d] as number;
        });
      } else {
        dims.push(n);
        p.strides.forEach((s, j) => {
          (strides[j] as number[]).push(s[d] as number);
        });
      }
    }
    groups.push({ dims, strides });
  }
  const [o, s] = groups as [(typeof groups)[0], (typeof groups)[0]];
  return {
    dims: [...o.dims, ...s.dims],
    nOut: o.dims.length,
    strides: p.strides.map((_, j) => [...(o.strides[j] as number[]), ...(s.strides[j] as number[])]),
  };
}

/** Queue the multiply-and-sum (nothing when the output is empty). */
export function multiplySum(rt: CudaRuntime, p: LoopProblem, options: LoopOptions = {}): void {
  const total = p.dims.reduce((a, b) => a * b, 1);
  let outCount = 1;
  for (let d = 0; d < p.nOut; d++) outCount *= p.dims[d] as number;
  if (outCount === 0) return;
  if (total === 0) {
    throw new MXNetError('an einsum step sums over an empty dim', {
      op: p.op,
      shapes: [p.dims],
      device: DEVICE,
      hint: 'internal error: empty operands are handled before the plan runs',
    });
  }
  const outStrides = p.dims.map((_, d) => (d < p.nOut ? (p.out.strides[d] as number) : 0));
  const g = simplifyLoop({
    dims: p.dims,
    nOut: p.nOut,
    strides: [...p.operands.map((o) => o.strides), outStrides],
  });
  const nd = g.dims.length;
  const nSum = nd - g.nOut;
  const sumCount = total / outCount;
  const table = new BigInt64Array(Math.max(1, nd * (p.operands.length + 2)));
  g.dims.forEach((v, d) => {
    table[d] = BigInt(v);
  });
  g.strides.forEach((s, j) => {
    s.forEach((v, d) => {
      table[nd * (j + 1) + d] = BigInt(v);
    });
  });
  const blockSum = options.blockSum ?? 1024;
  const mode: Mode = nSum > 0 && sumCount >= blockSum && outCount <= 65535 * 4 ? 'block' : 'thread';
  const src = loopSource(
    p.op,
    p.operands.map((o) => o.dtype),
    p.out.dtype,
    p.add,
    nSum > 0,
    mode,
  );
  const args: KernelArg[] = [
    { t: 'ptr', v: p.out.addr },
    ...p.operands.map((o): KernelArg => ({ t: 'ptr', v: o.addr })),
    { t: 'ptr', v: rt.upload(table) },
    { t: 'i64', v: outCount },
    { t: 'i64', v: sumCount },
    { t: 'i32', v: g.nOut },
    { t: 'i32', v: nSum },
  ];
  const grid = mode === 'block' ? Math.min(outCount, 65535) : blocksFor(outCount);
  rt.launch(src, [grid], [BLOCK], args);
}
