/**
 * cpu-wasm kernels of the integer-only np ops (bitwise and/or/xor/not, shifts, gcd, lcm): the
 * SimpleOp expression language has no bitwise functions, and these ops are exact integer functions
 * over every integer dtype (int16/uint32/uint64 included, which the wasm compiler does not compute
 * in), so they run in JavaScript on BigInt values: read each operand element (broadcast by
 * strides), compute, wrap to the output dtype's width, store. They are not hot paths in MXNet
 * models; a wasm version can replace this file without touching the op definitions.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { type Attrs, type Kernel, type OpRegistry, OpReq, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';

/** Dtypes the integer kernels take (every integer dtype and bool). */
export const INTEGER_DTYPES: readonly DTypeName[] = Object.freeze(
  (Object.keys(DType) as DTypeName[]).filter(
    (d) => DType[d].kind === 'i' || DType[d].kind === 'u' || d === 'bool',
  ),
);

type F2 = (a: bigint, b: bigint, bits: number) => bigint;

const abs = (v: bigint): bigint => (v < 0n ? -v : v);
function gcd(a: bigint, b: bigint): bigint {
  let x = abs(a);
  let y = abs(b);
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** NumPy shifts: a shift by the width or more gives 0 (left, right of non-negatives) or -1. */
const FNS: Readonly<Record<string, F2>> = {
  bitwise_and: (a, b) => a & b,
  bitwise_or: (a, b) => a | b,
  bitwise_xor: (a, b) => a ^ b,
  bitwise_left_shift: (a, b, bits) => (b < 0n || b >= BigInt(bits) ? 0n : a << b),
  bitwise_right_shift: (a, b, bits) => (b < 0n || b >= BigInt(bits) ? (a < 0n ? -1n : 0n) : a >> b),
  gcd,
  lcm: (a, b) => (a === 0n || b === 0n ? 0n : abs(a * b) / gcd(a, b)),
};

function wrap(v: bigint, dtype: DTypeName): bigint {
  if (dtype === 'bool') return v !== 0n ? 1n : 0n;
  const bits = DType[dtype].bytes * 8;
  return DType[dtype].kind === 'u' ? BigInt.asUintN(bits, v) : BigInt.asIntN(bits, v);
}

function reader(rt: CpuWasmRuntime, b: TBlob<number>): (i: number) => bigint {
  const v = rt.view(b) as ArrayLike<number | bigint>;
  return (i) => {
    const x = v[i] as number | bigint;
    return typeof x === 'bigint' ? x : BigInt(x);
  };
}

function writer(rt: CpuWasmRuntime, b: TBlob<number>, add: boolean): (i: number, x: bigint) => void {
  const v = rt.view(b) as unknown as { [i: number]: number | bigint };
  const big = b.dtype === 'int64' || b.dtype === 'uint64';
  const dt = b.dtype;
  return (i, x) => {
    let r = x;
    if (add) {
      const cur = v[i] as number | bigint;
      r = wrap(r + (typeof cur === 'bigint' ? cur : BigInt(cur)), dt);
    }
    v[i] = big ? r : Number(r);
  };
}

/** Input element index of each output element (NumPy broadcasting), by odometer. */
function broadcastIndex(shape: readonly number[], out: readonly number[]): Int32Array | null {
  const n = out.reduce((a, b) => a * b, 1);
  const size = shape.reduce((a, b) => a * b, 1);
  if (size === n) return null;
  const pad = out.length - shape.length;
  const strides = new Array<number>(out.length).fill(0);
  let s = 1;
  for (let d = out.length - 1; d >= pad; d--) {
    const dim = shape[d - pad] as number;
    strides[d] = dim === 1 ? 0 : s;
    s *= dim;
  }
  const idx = new Int32Array(n);
  const pos = new Array<number>(out.length).fill(0);
  let cur = 0;
  for (let i = 0; i < n; i++) {
    idx[i] = cur;
    for (let d = out.length - 1; d >= 0; d--) {
      pos[d] = (pos[d] as number) + 1;
      cur += strides[d] as number;
      if ((pos[d] as number) < (out[d] as number)) break;
      cur -= (strides[d] as number) * (out[d] as number);
      pos[d] = 0;
    }
  }
  return idx;
}

function scalarOf(op: string, attrs: Attrs): bigint {
  const s = attrs.scalar;
  if (typeof s !== 'number' || !Number.isFinite(s)) {
    throw new MXNetError(`scalar ${String(s)} is not an integer`, {
      op,
      params: attrs,
      hint: 'pass an integer scalar',
    });
  }
  return BigInt(Math.trunc(s));
}

/** The kernel of `_npi_<stem>` (two arrays), `_npi_<stem>_scalar` or `_npi_r<stem>_scalar`. */
function binaryKernel(rt: CpuWasmRuntime, op: string, f: F2, form: 'array' | 'scalar' | 'rscalar'): Kernel {
  return {
    dtypes: INTEGER_DTYPES,
    compute(attrs, _ctx, inputsAny, req, outputs) {
      const out = outputs[0] as TBlob<number>;
      const r = req[0];
      if (r === OpReq.null || r === undefined || out.size === 0) return;
      const inputs = inputsAny as readonly TBlob<number>[];
      const bits = out.dtype === 'bool' ? 1 : DType[out.dtype].bytes * 8;
      const put = writer(rt, out, r === OpReq.add);
      const a = reader(rt, inputs[0] as TBlob<number>);
      if (form === 'array') {
        const b = reader(rt, inputs[1] as TBlob<number>);
        const ia = broadcastIndex((inputs[0] as TBlob<number>).shape, out.shape);
        const ib = broadcastIndex((inputs[1] as TBlob<number>).shape, out.shape);
        for (let i = 0; i < out.size; i++) {
          put(i, wrap(f(a(ia ? (ia[i] as number) : i), b(ib ? (ib[i] as number) : i), bits), out.dtype));
        }
        return;
      }
      const s = scalarOf(op, attrs);
      for (let i = 0; i < out.size; i++) {
        put(i, wrap(form === 'scalar' ? f(a(i), s, bits) : f(s, a(i), bits), out.dtype));
      }
    },
  };
}

/** Install the integer kernels for the ops registered by @mx/ops' np elementwise integer.ts. */
export function installIntegerKernels(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const [stem, f] of Object.entries(FNS)) {
    const name = `_npi_${stem}`;
    if (!registry.has(name)) continue;
    registry.registerKernel(name, 'cpu-wasm', binaryKernel(rt, name, f, 'array'));
    registry.registerKernel(`${name}_scalar`, 'cpu-wasm', binaryKernel(rt, name, f, 'scalar'));
    if (registry.has(`_npi_r${stem}_scalar`))
      registry.registerKernel(`_npi_r${stem}_scalar`, 'cpu-wasm', binaryKernel(rt, name, f, 'rscalar'));
  }
  if (registry.has('_npi_bitwise_not')) {
    registry.registerKernel('_npi_bitwise_not', 'cpu-wasm', {
      dtypes: INTEGER_DTYPES,
      compute(_attrs, _ctx, inputs, req, outputs) {
        const out = outputs[0] as TBlob<number>;
        const r = req[0];
        if (r === OpReq.null || r === undefined || out.size === 0) return;
        const a = reader(rt, inputs[0] as TBlob<number>);
        const put = writer(rt, out, r === OpReq.add);
        const bool = out.dtype === 'bool';
        for (let i = 0; i < out.size; i++) put(i, bool ? (a(i) === 0n ? 1n : 0n) : wrap(~a(i), out.dtype));
      },
    });
  }
}
