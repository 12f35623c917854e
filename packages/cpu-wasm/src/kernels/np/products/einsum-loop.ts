/**
 * einsum's general step on cpu-wasm: multiply the operands elementwise over a common set of loop
 * dims and sum over the trailing ones (NumPy's C einsum without its SIMD specialisations). Every
 * operand and the output are strided windows into the wasm memory, so diagonals (summed strides),
 * broadcasting (stride 0) and any axis order cost no copy.
 *
 * Runs in TypeScript over typed views, in the step's dtype: floats and 32-bit or narrower
 * integers accumulate in a JS double (stores wrap integers modulo their width, as NumPy's
 * fixed-width arithmetic does), int64/uint64 in BigInt, bool as or-of-ands (NumPy's bool einsum).
 * GEMM-shaped steps never come here (einsum-exec.ts sends them to batch_dot's kernel).
 */
import { DType, type DTypeName } from '@mx/base';
import type { CpuWasmRuntime } from '../../../runtime.js';

/** A strided window: element index of [0, ..., 0] and one stride per loop dim (0: not indexed). */
export interface LoopOperand {
  readonly addr: number;
  readonly strides: readonly number[];
}

/** The loop: `dims` are the output's dims then the summed dims (`nOut` of them are output dims). */
export interface LoopProblem {
  readonly dtype: DTypeName;
  readonly dims: readonly number[];
  readonly nOut: number;
  readonly operands: readonly LoopOperand[];
  /** Output window; its strides on summed dims are ignored. */
  readonly out: LoopOperand;
  /** Accumulate into the output instead of overwriting it. */
  readonly add: boolean;
}

type NumArray = { [i: number]: number; readonly length: number };
type BigArray = { [i: number]: bigint; readonly length: number };

/** Run the multiply-and-sum (see the file comment). */
export function multiplySum(rt: CpuWasmRuntime, p: LoopProblem): void {
  const info = DType[p.dtype];
  let outCount = 1;
  for (let d = 0; d < p.nOut; d++) outCount *= p.dims[d] as number;
  if (outCount === 0) return;
  let sumCount = 1;
  for (let d = p.nOut; d < p.dims.length; d++) sumCount *= p.dims[d] as number;
  // Views span the whole memory (windows may be strided anywhere); taken after every allocation.
  const bytes = info.bytes;
  const whole = (): unknown => rt.memory.view(p.dtype, 0, Math.floor(rt.memory.buffer.byteLength / bytes));
  const base = (o: LoopOperand) => o.addr / bytes;
  if (info.bigint) runBig(whole() as BigArray, p, base, outCount, sumCount);
  else runNum(whole() as NumArray, p, base, outCount, sumCount, p.dtype === 'bool');
}

/** Odometer over `dims[from..to)`: advance `ptr` (one per window) and report when done. */
function makeOdometer(
  dims: readonly number[],
  from: number,
  to: number,
  strides: readonly (readonly number[])[],
) {
  const n = to - from;
  const idx = new Array<number>(n).fill(0);
  return (ptr: number[]): void => {
    for (let d = n - 1; d >= 0; d--) {
      const dim = dims[from + d] as number;
      const i = (idx[d] as number) + 1;
      if (i < dim) {
        idx[d] = i;
        for (let j = 0; j < ptr.length; j++)
          ptr[j] = (ptr[j] as number) + ((strides[j] as number[])[from + d] as number);
        return;
      }
      idx[d] = 0;
      for (let j = 0; j < ptr.length; j++)
        ptr[j] = (ptr[j] as number) - ((strides[j] as number[])[from + d] as number) * (dim - 1);
    }
  };
}

function runNum(
  mem: NumArray,
  p: LoopProblem,
  base: (o: LoopOperand) => number,
  outCount: number,
  sumCount: number,
  bool: boolean,
): void {
  const nd = p.dims.length;
  const ops = p.operands;
  const nops = ops.length;
  const strides = [...ops.map((o) => o.strides), p.out.strides];
  const outer = makeOdometer(p.dims, 0, p.nOut, strides);
  const ptr = [...ops.map(base), base(p.out)];
  // Innermost summed dim as a tight loop; the other summed dims by odometer.
  const hasSum = nd > p.nOut;
  const lastDim = hasSum ? (p.dims[nd - 1] as number) : 1;
  const lastStride = ops.map((o) => (hasSum ? (o.strides[nd - 1] as number) : 0));
  const innerCount = hasSum ? sumCount / lastDim : 1;
  const inner = makeOdometer(
    p.dims,
    p.nOut,
    hasSum ? nd - 1 : p.nOut,
    ops.map((o) => o.strides),
  );
  const q = new Array<number>(nops).fill(0);
  const s0 = lastStride[0] ?? 0;
  const s1 = lastStride[1] ?? 0;
  for (let o = 0; o < outCount; o++) {
    let acc = 0;
    for (let j = 0; j < nops; j++) q[j] = ptr[j] as number;
    for (let r = 0; r < innerCount; r++) {
      if (nops === 1) {
        let a = q[0] as number;
        for (let t = 0; t < lastDim; t++, a += s0) acc += mem[a] as number;
      } else if (nops === 2) {
        let a = q[0] as number;
        let b = q[1] as number;
        if (bool)
          for (let t = 0; t < lastDim; t++, a += s0, b += s1)
            acc += (mem[a] as number) && (mem[b] as number) ? 1 : 0;
        else
          for (let t = 0; t < lastDim; t++, a += s0, b += s1) acc += (mem[a] as number) * (mem[b] as number);
      } else {
        for (let t = 0; t < lastDim; t++) {
          let prod = 1;
          for (let j = 0; j < nops; j++)
            prod *= mem[(q[j] as number) + t * (lastStride[j] as number)] as number;
          acc += bool ? (prod !== 0 ? 1 : 0) : prod;
        }
      }
      if (innerCount > 1) inner(q);
    }
    const w = ptr[nops] as number;
    if (bool) mem[w] = acc !== 0 || (p.add && mem[w] !== 0) ? 1 : 0;
    else mem[w] = p.add ? (mem[w] as number) + acc : acc;
    outer(ptr);
  }
}

function runBig(
  mem: BigArray,
  p: LoopProblem,
  base: (o: LoopOperand) => number,
  outCount: number,
  sumCount: number,
): void {
  const ops = p.operands;
  const nops = ops.length;
  const strides = [...ops.map((o) => o.strides), p.out.strides];
  const outer = makeOdometer(p.dims, 0, p.nOut, strides);
  const inner = makeOdometer(
    p.dims,
    p.nOut,
    p.dims.length,
    ops.map((o) => o.strides),
  );
  const ptr = [...ops.map(base), base(p.out)];
  const q = new Array<number>(nops).fill(0);
  for (let o = 0; o < outCount; o++) {
    let acc = 0n;
    for (let j = 0; j < nops; j++) q[j] = ptr[j] as number;
    for (let r = 0; r < sumCount; r++) {
      let prod = 1n;
      for (let j = 0; j < nops; j++) prod *= mem[q[j] as number] as bigint;
      acc += prod;
      inner(q);
    }
    const w = ptr[nops] as number;
    // The store wraps modulo 2^64 (signed or unsigned by the view), as NumPy's int64/uint64 do.
    mem[w] = p.add ? (mem[w] as bigint) + acc : acc;
    outer(ptr);
  }
}
