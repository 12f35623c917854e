/**
 * Every norm loop pass (passes.ts) against a float64 JavaScript evaluation of its terms, for both
 * dtypes, with and without SIMD, through the chunk driver: odd lengths (vector steps + scalar tail),
 * a long run (several sum blocks), several items per chunk, div/mod/stride/ostride bindings, the
 * count loop capped by countTotal, output write and add modes, and in-place accumulators.
 */
import { describe, expect, it } from 'vitest';
import { WasmMemory } from '../../../memory.js';
import { CpuWasmRuntime, detectFeatures } from '../../../runtime.js';
import type { LoopDef, Term } from './loops.js';
import * as PASSES from './passes.js';
import { type Bind, withCall } from './runner.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const features = detectFeatures();
const runtimes = [
  ['simd', new CpuWasmRuntime(new WasmMemory({ initialPages: 64, shared: false }), features, 0)],
  [
    'scalar',
    new CpuWasmRuntime(new WasmMemory({ initialPages: 64, shared: false }), { ...features, simd: false }, 0),
  ],
] as const;

function evalTerm(t: Term, ops: readonly number[], lets: readonly number[]): number {
  if (t.k === 'op') return ops[t.i] as number;
  if (t.k === 'let') return lets[t.i] as number;
  const a = evalTerm(t.a, ops, lets);
  const b = evalTerm(t.b, ops, lets);
  return t.f === 'add' ? a + b : t.f === 'sub' ? a - b : a * b;
}

const DEFS = Object.values(PASSES) as LoopDef[];

describe('norm loop passes', () => {
  for (const [label, rt] of runtimes) {
    for (const dt of ['float32', 'float64'] as const) {
      for (const def of DEFS) {
        for (const len of [37, 5003]) {
          it(`${def.name} ${dt} ${label} len ${len}`, () => {
            const rnd = lcg(len * 7 + def.name.length);
            const round = dt === 'float32' ? Math.fround : (v: number) => v;
            const items = 5;
            const per = 2;
            const count = 2;
            const countTotal = 9; // the last item runs once
            const streamLen = items * count * len;
            const nStreams = def.ops.filter((o) => o === 'v').length;
            const streams = Array.from({ length: nStreams + 1 }, () =>
              Array.from({ length: streamLen }, () => round(rnd() * 4 - 2)),
            );
            // Scalars per item pair (div 2), modulo 2.
            const scalars = def.ops.map(() => [round(rnd() * 2 - 1), round(rnd() * 2 - 1)]);
            const nAcc = def.accs?.length ?? 0;
            const nSum = def.sums?.length ?? 0;
            const accInit = Array.from({ length: nAcc }, () =>
              Array.from({ length: 3 * len }, () => round(rnd())),
            );
            const sz = dt === 'float32' ? 4 : 8;
            withCall(rt, dt, 'test', (call) => {
              const sAddr = streams.map((s) => call.dtOf(s));
              const scAddr = scalars.map((s) => call.f64Of(s));
              const accAddr = accInit.map((a) => call.dtOf(a));
              const sumAddr = Array.from({ length: nSum }, () => call.f64(items));
              let si = 0;
              const ops: Bind[] = def.ops.map((o, k) =>
                o === 'v'
                  ? { base: sAddr[si++] as number, stride: count * len * sz, ostride: len * sz }
                  : { base: scAddr[k] as number, div: 2, mod: 2, stride: 8 },
              );
              const outAddr = sAddr[nStreams] as number;
              for (const mode of def.out ? [0, 1] : [0]) {
                const outBefore = Array.from(call.vdt(outAddr, streamLen));
                const accBefore = accAddr.map((a) => Array.from(call.vdt(a, 3 * len)));
                call.run(def, {
                  items,
                  per,
                  count,
                  countTotal,
                  len,
                  ops,
                  ...(def.out
                    ? { out: { base: outAddr, stride: count * len * sz, ostride: len * sz }, mode }
                    : {}),
                  // Accumulators shared by the items of a chunk (div = per).
                  accs: accAddr.map((a) => ({ base: a, div: per, stride: len * sz })),
                  sums: sumAddr,
                });
                const outAfter = call.vdt(outAddr, streamLen);
                const sums = sumAddr.map((a) => call.read64(a, items));
                const accAfter = accAddr.map((a) => Array.from(call.vdt(a, 3 * len)));
                const wantSums = Array.from({ length: nSum }, () => new Array<number>(items).fill(0));
                const wantAcc = accBefore.map((a) => a.slice());
                for (let i = 0; i < items; i++) {
                  const oc = Math.min(count, countTotal - i * count);
                  for (let o = 0; o < oc; o++) {
                    for (let e = 0; e < len; e++) {
                      const idx = (i * count + o) * len + e;
                      let vs = 0;
                      const vals = def.ops.map((kind, k) =>
                        kind === 'v'
                          ? ((streams[vs++] as number[])[idx] as number)
                          : ((scalars[k] as number[])[Math.floor(i / 2) % 2] as number),
                      );
                      const lets: number[] = [];
                      for (const t of def.lets ?? []) lets.push(evalTerm(t, vals, lets));
                      def.sums?.forEach((t, s) => {
                        const ws = wantSums[s] as number[];
                        ws[i] = (ws[i] as number) + evalTerm(t, vals, lets);
                      });
                      def.accs?.forEach((t, j) => {
                        const slot = Math.floor(i / per) * len + e;
                        const wa = wantAcc[j] as number[];
                        wa[slot] = (wa[slot] as number) + evalTerm(t, vals, lets);
                      });
                      if (def.out) {
                        const v = evalTerm(def.out, vals, lets);
                        const want = mode === 1 ? (outBefore[idx] as number) + v : v;
                        const got = outAfter[idx] as number;
                        const tol =
                          dt === 'float32' ? 2e-5 * (1 + Math.abs(want)) : 1e-12 * (1 + Math.abs(want));
                        if (Math.abs(got - want) > tol) expect(`${idx}: ${got}`).toBe(`${idx}: ${want}`);
                      }
                    }
                  }
                }
                const rel = dt === 'float32' ? 1e-5 : 1e-12;
                wantSums.forEach((w, s) => {
                  w.forEach((v, i) => {
                    const got = (sums[s] as Float64Array)[i] as number;
                    expect(Math.abs(got - v)).toBeLessThanOrEqual(rel * len * 4 + rel * Math.abs(v));
                  });
                });
                wantAcc.forEach((w, j) => {
                  w.forEach((v, k) => {
                    const got = (accAfter[j] as number[])[k] as number;
                    expect(Math.abs(got - v)).toBeLessThanOrEqual(rel * 40 * (1 + Math.abs(v)));
                  });
                });
              }
            });
          });
        }
      }
    }
  }
});
