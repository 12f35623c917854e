/**
 * cpu-wasm kernels for index-driven gathers: take (blocks along an axis; clip, wrap or raise —
 * raise checks every index before writing anything, so a bad index never leaves a half-written
 * output), pick (one element per position) and one_hot (fill off_value, then set on_value).
 * Indices of any dtype are read as truncated integers. take with int32/int64 indices and blocks
 * of 64 bytes or more runs in wasm (check, resolve and `memory.copy` per block in one call);
 * otherwise blocks move as raw words (8-byte types as word pairs).
 */
import { DType, MXNetError } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { FunctionBuilder, I32, I64, ModuleBuilder } from '../../wasm/assembler.js';
import { encodeScalar, fillDense, readIndices, wordView } from './dtype-bits.js';
import { addr, type Blob, defineKernel, withTarget } from './kernel-util.js';

const norm = (a: number, n: number) => (a < 0 ? a + n : a);

type Check = (idx: number, n: number, k: number) => number;
type Rows = (
  src: number,
  idx: number,
  n: number,
  dst: number,
  bb: number,
  k: number,
  outer: number,
  mode: number,
) => void;
const MODES: Readonly<Record<string, number>> = { raise: 0, clip: 1, wrap: 2 };

/**
 * The wasm take of int32/int64 indices (one module per index width): `check(idx, n, k)` gives the
 * first position whose index is outside [0, k) plus one (0: none); `rows(src, idx, n, dst, bb, k,
 * outer, mode)` copies, for each outer block and position i, the block of `bb` bytes at the
 * resolved index (mode 0: as is, 1: clipped, 2: wrapped) with `memory.copy`. One call per op keeps
 * the per-index work out of JavaScript, which a few calls never get to optimise.
 */
function takeModule(rt: CpuWasmRuntime, wide: boolean) {
  const k = rt.kernel(`shape-take:${wide ? 'i64' : 'i32'}`, () => {
    const t = wide ? 'i64' : 'i32';
    const load = (f: FunctionBuilder, idx: number, i: number) => {
      f.get(idx)
        .get(i)
        .i32Const(wide ? 3 : 2)
        .op('i32.shl', 'i32.add')
        .mem(`${t}.load`, 0, 0);
    };
    const kk = (f: FunctionBuilder, k: number) => {
      f.get(k);
      if (wide) f.op('i64.extend_i32_u');
    };
    // check(idx, n, k) -> i32
    const c = new FunctionBuilder([I32, I32, I32], [I32]);
    {
      const i = c.local(I32);
      c.block().loop().get(i).get(1).op('i32.ge_u').brIf(1);
      load(c, 0, i);
      kk(c, 2);
      c.op(`${t}.ge_u`).if().get(i).i32Const(1).op('i32.add', 'return').end();
      c.get(i).i32Const(1).op('i32.add').set(i).br(0).end().end();
      c.i32Const(0);
    }
    // rows(src, idx, n, dst, bb, k, outer, mode)
    const r = new FunctionBuilder([I32, I32, I32, I32, I32, I32, I32, I32]);
    {
      const [src, idx, n, dst, bb, k, outer, mode] = [0, 1, 2, 3, 4, 5, 6, 7];
      const o = r.local(I32);
      const i = r.local(I32);
      const j = r.local(wide ? I64 : I32);
      const jj = r.local(I32);
      const sBase = r.local(I32);
      const d = r.local(I32);
      const kt = r.local(wide ? I64 : I32);
      kk(r, k);
      r.set(kt);
      r.get(dst).set(d);
      r.get(src).set(sBase);
      r.block().loop().get(o).get(outer).op('i32.ge_u').brIf(1);
      r.i32Const(0).set(i);
      r.block().loop().get(i).get(n).op('i32.ge_u').brIf(1);
      load(r, idx, i);
      r.set(j);
      const zero = () => (wide ? r.i64Const(0) : r.i32Const(0));
      // clip: j < 0 → 0, j >= k → k - 1; wrap (below): ((j % k) + k) % k.
      r.get(mode).i32Const(1).op('i32.eq').if();
      r.get(j);
      zero();
      r.op(`${t}.lt_s`).if();
      zero();
      r.set(j).else().get(j).get(kt).op(`${t}.ge_s`).if().get(kt);
      if (wide) r.i64Const(1);
      else r.i32Const(1);
      r.op(`${t}.sub`).set(j).end().end();
      r.end();
      r.get(mode).i32Const(2).op('i32.eq').if();
      r.get(j).get(kt).op(`${t}.rem_s`).get(kt).op(`${t}.add`).get(kt).op(`${t}.rem_s`).set(j);
      r.end();
      r.get(j);
      if (wide) r.op('i32.wrap_i64');
      r.set(jj);
      // memory.copy(d, sBase + jj * bb, bb)
      r.get(d).get(sBase).get(jj).get(bb).op('i32.mul', 'i32.add').get(bb).op('memory.copy');
      r.get(d).get(bb).op('i32.add').set(d);
      r.get(i).i32Const(1).op('i32.add').set(i).br(0).end().end();
      r.get(sBase).get(k).get(bb).op('i32.mul', 'i32.add').set(sBase);
      r.get(o).i32Const(1).op('i32.add').set(o).br(0).end().end();
    }
    return new ModuleBuilder()
      .importMemory(rt.memoryImport())
      .addFunctionChain(c, 'check')
      .addFunctionChain(r, 'rows');
  });
  return { check: k.exports.check as Check, rows: k.exports.rows as Rows };
}

function prod(shape: readonly number[], from: number, to: number): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** The raise-mode refusal of index `j` at position `i` (MXNet's text, then NumPy's). */
function outOfBound(
  a: { axis: number; mode: string },
  src: Blob,
  idxBlob: Blob,
  axis: number,
  K: number,
  i: number,
  j: number,
): never {
  throw new MXNetError(
    `Take indices contains indices out of bound: index ${j} is out of bounds for axis ${axis} with size ${K} (position ${i})`,
    {
      op: 'take',
      params: a,
      shapes: [src.shape, idxBlob.shape],
      hint: `indices must lie in [0, ${K - 1}] with mode='raise'; use mode='clip' or 'wrap' otherwise`,
    },
  );
}

/** Resolve an index into [0, k) by mode (`clip` clamps, `wrap` takes it modulo k). */
function resolve(j: number, k: number, mode: string): number {
  if (mode === 'wrap') {
    const m = j % k;
    return m < 0 ? m + k : m;
  }
  return j < 0 ? 0 : j >= k ? k - 1 : j;
}

/** Words per element view: `W` indexes words, element `i` of a blob at word `base + i * e`. */
function words(rt: CpuWasmRuntime, dtype: keyof typeof DType) {
  const bytes = DType[dtype].bytes;
  const w = (bytes === 8 ? 4 : bytes) as 1 | 2 | 4;
  return { W: wordView(rt, w), w, e: bytes / w };
}

export function installGather(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<{ axis: number; mode: string }>(registry, 'take', (a, [data, ind], [r], [y]) => {
    const src = data as Blob;
    const idxBlob = ind as Blob;
    const out = y as Blob;
    if (out.size === 0 || r === 0) return;
    const axis = norm(a.axis, src.shape.length);
    const K = src.shape[axis] as number;
    const outer = prod(src.shape, 0, axis);
    const inner = prod(src.shape, axis + 1, src.shape.length);
    const N = idxBlob.size;
    const bb = inner * DType[src.dtype].bytes;
    const wide = idxBlob.dtype === 'int64';
    if ((wide || idxBlob.dtype === 'int32') && bb >= 64 && N > 0 && K > 0) {
      // The common case in wasm: integer indices, blocks of 64 bytes or more.
      const m = takeModule(rt, wide);
      const ip = addr(rt, idxBlob);
      const bad = a.mode === 'raise' ? m.check(ip, N, K) - 1 : -1;
      if (bad >= 0)
        outOfBound(a, src, idxBlob, axis, K, bad, readIndices(rt, idxBlob.dtype, ip, N)[bad] as number);
      withTarget(rt, out, r as OpReqType, 'take', (t) => {
        m.rows(addr(rt, src), ip, N, addr(rt, t), bb, K, outer, MODES[a.mode] as number);
      });
      return;
    }
    const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), N);
    if (a.mode === 'raise') {
      for (let i = 0; i < N; i++) {
        const j = idx[i] as number;
        if (j < 0 || j >= K) outOfBound(a, src, idxBlob, axis, K, i, j);
      }
    }
    for (let i = 0; i < N; i++) idx[i] = resolve(idx[i] as number, K, a.mode);
    withTarget(rt, out, r as OpReqType, 'take', (t) => {
      const { W, w, e } = words(rt, src.dtype);
      const blk = inner * e;
      const s0 = addr(rt, src) / w;
      const d0 = addr(rt, t) / w;
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < N; i++) {
          const sp = s0 + (o * K + (idx[i] as number)) * blk;
          const dp = d0 + (o * N + i) * blk;
          for (let k = 0; k < blk; k++) W[dp + k] = W[sp + k] as number;
        }
      }
    });
  });

  defineKernel<{ axis: number | null; mode: string }>(registry, 'pick', (a, [data, ind], [r], [y]) => {
    const src = data as Blob;
    const idxBlob = ind as Blob;
    const out = y as Blob;
    if (out.size === 0 || r === 0) return;
    const axis = norm(a.axis ?? -1, src.shape.length);
    const K = src.shape[axis] as number;
    const outer = prod(src.shape, 0, axis);
    const inner = prod(src.shape, axis + 1, src.shape.length);
    const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), idxBlob.size);
    withTarget(rt, out, r as OpReqType, 'pick', (t) => {
      const { W, w, e } = words(rt, src.dtype);
      const s0 = addr(rt, src) / w;
      const d0 = addr(rt, t) / w;
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < inner; i++) {
          const p = o * inner + i;
          const j = resolve(idx[p] as number, K, a.mode);
          const sp = s0 + ((o * K + j) * inner + i) * e;
          const dp = d0 + p * e;
          W[dp] = W[sp] as number;
          if (e === 2) W[dp + 1] = W[sp + 1] as number;
        }
      }
    });
  });

  defineKernel<{ depth: number; on_value: number; off_value: number }>(
    registry,
    'one_hot',
    (a, [ind], [r], [y]) => {
      const idxBlob = ind as Blob;
      const out = y as Blob;
      if (out.size === 0 || r === 0) return;
      const idx = readIndices(rt, idxBlob.dtype, addr(rt, idxBlob), idxBlob.size);
      withTarget(rt, out, r as OpReqType, 'one_hot', (t) => {
        const base = addr(rt, t);
        fillDense(rt, t.dtype, base, t.size, a.off_value);
        const view = rt.memory.view(t.dtype, base, t.size) as unknown as (number | bigint)[];
        const on = encodeScalar(t.dtype, a.on_value);
        const onv = DType[t.dtype].bigint && typeof on === 'number' ? BigInt(on) : on;
        for (let i = 0; i < idx.length; i++) {
          const j = idx[i] as number;
          if (j >= 0 && j < a.depth) view[i * a.depth + j] = onv;
        }
      });
    },
  );
}
