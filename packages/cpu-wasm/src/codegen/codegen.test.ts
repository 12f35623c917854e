/**
 * Expression compiler behaviour beyond the golden values: in-place and req=null/add on raw blobs,
 * random N-d broadcasts against a JS reference, SIMD math accuracy over wide sweeps (vector body
 * and scalar tail), unsupported dtypes, and the harness staying usable after errors.
 */
import { cpu, type DTypeName, isMXNetError, type Shape, shapeSize } from '@mx/base';
import { E, type Expr, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CpuWasmRuntime } from '../runtime.js';
import { createOpHarness } from '../test-util/run-op.js';
import { compileElementwise } from './compile.js';
import { erf } from './js-math.js';
import { defineExprOp } from './test-cases.js';

const h = createOpHarness();
const rt = h.backend.runtime;
const alloc = h.backend.allocator(cpu());
const ctx = { isTrain: false, needGrad: false, ctx: cpu(), requested: [] };
let nOps = 0;

function blob(shape: Shape, dtype: DTypeName, data?: ArrayLike<number>): TBlob<number> {
  const size = shapeSize(shape);
  const ptr = alloc.alloc(Math.max(1, size * rt.itemSize(dtype))) as number;
  const b = { ptr: size === 0 ? null : ptr, byteOffset: 0, shape: [...shape], dtype, size };
  if (data) (rt.view(b) as Float32Array).set(data);
  return b;
}

function kernelOf(e: Expr, nIn: number, dtype: DTypeName, broadcast = false) {
  const name = defineExprOp(h.registry, `_cg_unit${nOps++}`, e, nIn, dtype, broadcast);
  const k = h.registry.kernel(h.registry.get(name), 'cpu-wasm');
  if (!k?.compute) throw new Error('no kernel');
  const compute = k.compute;
  return (ins: TBlob<number>[], out: TBlob<number>, req: OpReqType = OpReq.write, attrs = {}) =>
    compute(attrs, ctx, ins, [req], [out]);
}

const ulp32 = (v: number): number => {
  const a = Math.abs(Math.fround(v));
  return a === 0 ? 2 ** -149 : 2 ** Math.max(Math.floor(Math.log2(a)) - 23, -149);
};

describe('elementwise compiler', () => {
  it('runs in place (output aliasing an input) and honours req null and add', () => {
    const n = 1003;
    const x = blob(
      [n],
      'float32',
      Array.from({ length: n }, (_, i) => i - 500),
    );
    const k = kernelOf(E.add(E.mul(E.x, E.x), 1), 1, 'float32');
    k([x], x, OpReq.inplace);
    expect((rt.view(x) as Float32Array)[0]).toBe(250001);
    expect((rt.view(x) as Float32Array)[n - 1]).toBe(502 * 502 + 1);
    k([x], x, OpReq.null);
    expect((rt.view(x) as Float32Array)[n - 1]).toBe(502 * 502 + 1);
    const y = blob([n], 'float32', new Float32Array(n).fill(2));
    const o = blob([n], 'float32', new Float32Array(n).fill(10));
    k([y], o, OpReq.add);
    expect([...(rt.view(o) as Float32Array)].every((v) => v === 15)).toBe(true);
  });

  it('handles zero-size outputs without touching memory', () => {
    const k = kernelOf(E.add(E.x, E.y), 2, 'float64', true);
    const o = blob([0, 4], 'float64');
    k([blob([0, 4], 'float64'), blob([4], 'float64')], o);
    expect(o.size).toBe(0);
  });

  it('broadcasts random N-d shapes like NumPy', () => {
    let seed = 7;
    const rnd = (m: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % m;
    };
    const k = kernelOf(E.sub(E.mul(E.x, 3), E.y), 2, 'int32', true);
    for (let t = 0; t < 60; t++) {
      const nd = 1 + rnd(5);
      const out = Array.from({ length: nd }, () => 1 + rnd(5));
      const sa = out.map((d) => (rnd(3) === 0 ? 1 : d)).slice(rnd(2));
      const sb = out.map((d) => (rnd(3) === 0 ? 1 : d)).slice(rnd(nd));
      const shapeOut = out.map((_, i) =>
        Math.max(sa[i - (nd - sa.length)] ?? 1, sb[i - (nd - sb.length)] ?? 1),
      );
      const a = Array.from({ length: shapeSize(sa) }, () => rnd(100) - 50);
      const b = Array.from({ length: shapeSize(sb) }, () => rnd(100) - 50);
      const o = blob(shapeOut, 'int32');
      k([blob(sa, 'int32', a), blob(sb, 'int32', b)], o);
      const got = rt.view(o) as Int32Array;
      const idx = (flat: number, s: number[]) => {
        // Row-major offset of the output index `flat` inside an input of shape s (broadcast).
        let off = 0;
        let stride = 1;
        let rem = flat;
        const coords = shapeOut.map(() => 0);
        for (let d = shapeOut.length - 1; d >= 0; d--) {
          coords[d] = rem % (shapeOut[d] as number);
          rem = Math.floor(rem / (shapeOut[d] as number));
        }
        for (let d = s.length - 1; d >= 0; d--) {
          const c = coords[d + shapeOut.length - s.length] as number;
          off += (s[d] === 1 ? 0 : c) * stride;
          stride *= s[d] as number;
        }
        return off;
      };
      for (let i = 0; i < o.size; i++) {
        expect(got[i], `${sa} ${sb} -> ${shapeOut} at ${i}`).toBe(
          3 * (a[idx(i, sa)] as number) - (b[idx(i, sb)] as number),
        );
      }
    }
  });

  it('computes exp, log, tanh, erf and sigmoid in SIMD within 2-2.5 ulp (float32) / 2e-15 (float64)', () => {
    const n = 20003; // SIMD body plus a scalar tail
    const ranges: Record<string, [number, number, (x: number) => number]> = {
      exp: [-100, 88, Math.exp],
      log: [1e-30, 1e30, Math.log],
      tanh: [-10, 10, Math.tanh],
      erf: [-5, 5, erf],
      sigmoid: [-30, 30, (x) => 1 / (1 + Math.exp(-x))],
    };
    for (const [fn, [lo, hi, ref]] of Object.entries(ranges)) {
      const e = fn === 'sigmoid' ? E.div(1, E.add(1, E.exp(E.neg(E.x)))) : E[fn as 'exp'](E.x);
      for (const dt of ['float32', 'float64'] as const) {
        const xs = Array.from({ length: n }, (_, i) =>
          fn === 'log' ? Math.exp(Math.log(lo) + (Math.log(hi / lo) * i) / n) : lo + ((hi - lo) * i) / n,
        );
        const x = blob([n], dt, xs);
        const o = blob([n], dt);
        kernelOf(e, 1, dt)([x], o);
        const xv = rt.view(x) as Float64Array;
        const ov = rt.view(o) as Float64Array;
        let worst = 0;
        for (let i = 0; i < n; i++) {
          const want = ref(xv[i] as number);
          const err = Math.abs((ov[i] as number) - want);
          worst = Math.max(
            worst,
            dt === 'float32' ? err / ulp32(want) : err / Math.max(Math.abs(want), 1e-300),
          );
        }
        expect(worst, `${fn} ${dt}`).toBeLessThanOrEqual(
          dt === 'float32' ? (fn === 'sigmoid' || fn === 'erf' ? 2.5 : 2) : 2e-15,
        );
      }
    }
  });

  it('reuses compiled modules across ops with the same expression', () => {
    const a = kernelOf(E.hypot(E.x, E.y), 2, 'float32');
    const b = kernelOf(E.hypot(E.x, E.y), 2, 'float32');
    const x = blob([5], 'float32', [3, 5, 8, 7, 20]);
    const y = blob([5], 'float32', [4, 12, 15, 24, 21]);
    const o1 = blob([5], 'float32');
    const o2 = blob([5], 'float32');
    a([x, y], o1);
    b([x, y], o2);
    expect([...(rt.view(o1) as Float32Array)]).toEqual([5, 13, 17, 25, 29]);
    expect([...(rt.view(o2) as Float32Array)]).toEqual([5, 13, 17, 25, 29]);
  });

  it('rejects dtypes cpu-wasm does not compute in, naming op, dtype and device, and keeps working', () => {
    const k = kernelOf(E.neg(E.x), 1, 'float16');
    let thrown: unknown;
    try {
      k([blob([3], 'float16')], blob([3], 'float16'));
    } catch (e) {
      thrown = e;
    }
    expect(isMXNetError(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(/_cg_unit\d+: dtype float16 is not supported on cpu\(0\)/);
    const x = blob([3], 'int8', [1, -2, 127]);
    const o = blob([3], 'int8');
    kernelOf(E.neg(E.x), 1, 'int8')([x], o);
    expect([...(rt.view(o) as Int8Array)]).toEqual([-1, 2, -127]);
  });
});

describe('without SIMD', () => {
  it('gives the same results from the scalar loops alone', () => {
    const scalarRt = new CpuWasmRuntime(rt.memory, { simd: false, relaxedSimd: false, threads: false });
    const exprs: Expr[] = [
      E.div(1, E.add(1, E.exp(E.neg(E.x)))),
      E.select(E.gt(E.x, 0), E.mul(E.x, E.y), E.mod(E.x, E.y)),
      E.add(E.tanh(E.x), E.erf(E.y)),
    ];
    for (const dt of ['float32', 'float64', 'int8', 'int32'] as const) {
      for (const e of exprs) {
        const name = defineExprOp(h.registry, `_cg_unit${nOps++}`, e, 2, dt);
        const op = h.registry.get(name);
        const n = 37;
        const x = blob(
          [n],
          dt,
          Array.from({ length: n }, (_, i) => (i % 9) - 4),
        );
        const y = blob(
          [n],
          dt,
          Array.from({ length: n }, (_, i) => (i % 5) - 2),
        );
        const o1 = blob([n], dt);
        const o2 = blob([n], dt);
        compileElementwise(rt, op).compute?.({}, ctx, [x, y], [OpReq.write], [o1]);
        compileElementwise(scalarRt, op).compute?.({}, ctx, [x, y], [OpReq.write], [o2]);
        const a = [...(rt.view(o1) as Float64Array)];
        const b = [...(rt.view(o2) as Float64Array)];
        a.forEach((v, i) => {
          expect(Math.abs(v - (b[i] as number)), `${dt} ${i}`).toBeLessThanOrEqual(Math.abs(v) * 3e-7);
        });
      }
    }
  });
});
