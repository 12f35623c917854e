/**
 * Benchmark 2: elementwise graphs. (a) Softmax over [1024, 1000] written from elementwise and
 * reduction ops — exp(x - max(x, axis=1, keepdims)) / sum(..., keepdims), broadcast ops — as an
 * executor forward (inference; fusion on and off), the same ops eagerly, tfjs-wasm's `tf.softmax`
 * and tfjs-wasm written from the same ops; output read back in every case, as the peer does (the
 * fused graph without the readback is timed too, to show what the readback costs). (b) `a*b+c`
 * over 16M float32 as one fused kernel (GB/s counting three reads and one write) and unfused
 * (executor with fusion off, and eager), op only: pushed and waited, no readback.
 * (c) sum((a - b)^2, axis=-1) over [1024, 16384] as one fused reduction, unfused and eager.
 * Our variants are timed in turns (common.ts) and checked against the eager result first.
 */
import type { Samples } from '@mx/bench-kit';
import { fmt, timeInterleaved, type Variant, want } from '@mx/bench-kit';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { TfjsWasmReport as Report } from '@mx/peers';
import * as peers from '@mx/peers';
import type { Executor, Symbol as MxSymbol, SymbolApi } from '@mx/symbol';
import { bindInferenceTo, graphStats, statsText } from './graph-api.js';
import { profileRuns, profiling, withEnv } from './profile.js';

/** An executor bound for one variant, with what it says about its graph. */
interface Bound {
  readonly name: string;
  readonly fusion: boolean;
  readonly ex: Executor;
  readonly out: NDArray;
  readonly stats: Record<string, number>;
}

/** Bind `symbol` with fusion on and off; a variant that cannot bind is reported as skipped. */
function bindBoth(
  report: Report,
  prefix: string,
  symbol: MxSymbol,
  args: Readonly<Record<string, NDArray>>,
  check: (out: NDArray, name: string) => void,
): Bound[] {
  const out: Bound[] = [];
  for (const fusion of [true, false]) {
    const name = `${prefix}.executor${fusion ? '' : '.nofuse'}`;
    try {
      const ex = bindInferenceTo(symbol, args, fusion);
      const o = ex.outputs[0] as NDArray;
      ex.forward();
      check(o, name);
      out.push({ name, fusion, ex, out: o, stats: graphStats(ex) });
    } catch (err) {
      report.skip(name, String(err).split('\n')[0] as string);
    }
  }
  return out;
}

/** Per-kernel profile of an inference graph, fusion on and off, one engine op per node. */
function profileForward(
  rt: Runtime,
  label: string,
  symbol: MxSymbol,
  args: Readonly<Record<string, NDArray>>,
): void {
  for (const fusion of [true, false]) {
    const ex = withEnv({ MXNET_EXEC_BULK_EXEC_INFERENCE: '0' }, () => bindInferenceTo(symbol, args, fusion));
    const out = ex.outputs[0] as NDArray;
    const run = () => {
      ex.forward();
      out.waitToReadSync();
    };
    run();
    profileRuns(rt, `${label} executor (fusion ${fusion ? 'on' : 'off'}, unbulked, no readback)`, run);
    ex.dispose();
  }
}

/** tfjs-wasm's softmax written from elementwise ops (what our graph computes), read back. */
function tfjsSoftmaxComposite(tf: peers.Tfjs, rows: number, cols: number): peers.Workload {
  const a = tf.randomUniform([rows, cols], -1, 1, 'float32', 42);
  return {
    run: () => {
      const s = tf.tidy(() => {
        const e = tf.exp(tf.sub(a, tf.max(a, 1, true)));
        return tf.div(e, tf.sum(e, 1, true));
      });
      s.dataSync();
      s.dispose();
    },
    dispose: () => a.dispose(),
  };
}

/** tfjs-wasm's a*b+c over n float32 (op only: its kernels run synchronously). */
function tfjsFma(tf: peers.Tfjs, n: number): peers.Workload {
  const ts = [1, 2, 3].map((seed) => tf.randomUniform([n], -1, 1, 'float32', seed));
  const [a, b, c] = ts as [(typeof ts)[0], (typeof ts)[0], (typeof ts)[0]];
  return {
    run: () => tf.tidy(() => tf.add(tf.mul(a, b), c)).dispose(),
    dispose: () => {
      for (const t of ts) t.dispose();
    },
  };
}

const median = (p: { medianMs: number } | { skipped: string }) => ('medianMs' in p ? p.medianMs : undefined);
const firstLine = (e: unknown) => String(e).split('\n')[0] as string;

async function softmaxBench(rt: Runtime, sym: SymbolApi, report: Report): Promise<void> {
  const { nd } = rt;
  const [rows, cols] = [1024, 1000];
  const prefix = 'softmax_composite.1024x1000';
  const x = nd._random_uniform({ shape: [rows, cols], low: -1, high: 1 });
  const eagerRun = () =>
    nd.scopeSync(() => {
      const e = x.sub(x.max({ axis: -1, keepdims: true })).exp();
      return (e.div(e.sum({ axis: -1, keepdims: true })).dataSync() as Float32Array).slice();
    });
  const expected = eagerRun();
  const v = sym.var('x');
  const e = sym.exp(sym.broadcast_sub(v, sym.max(v, { axis: 1, keepdims: true })));
  const softmax = sym.broadcast_div(e, sym.sum(e, { axis: 1, keepdims: true }));
  const graphs = bindBoth(report, prefix, softmax, { x }, (out, name) => {
    const got = out.dataSync() as Float32Array;
    let diff = 0;
    for (let i = 0; i < got.length; i++)
      diff = Math.max(diff, Math.abs((got[i] as number) - (expected[i] as number)));
    if (diff > 1e-6) throw new Error(`${name} differs from the eager softmax by ${diff}`);
  });
  const fused = graphs.find((g) => g.fusion);
  const variants: Variant[] = [
    { run: eagerRun, dispose: () => {} },
    ...graphs.map((g) => ({
      run: () => {
        g.ex.forward();
        g.out.dataSync();
      },
      dispose: () => {},
    })),
  ];
  if (fused !== undefined) {
    variants.push({
      run: () => {
        fused.ex.forward();
        fused.out.waitToReadSync();
      },
      dispose: () => {},
    });
  }
  const samples = await timeInterleaved(variants, { budgetMs: 5000 });
  const eager = samples[0] as Samples;
  const noReadback = fused === undefined ? undefined : (samples[samples.length - 1] as Samples).medianMs;
  const peer = median(await report.timePeer((tf) => peers.softmax(tf, rows, cols)));
  // Compute alone on both sides: tfjs-wasm's op call runs its kernel synchronously; ours is the
  // forward plus waiting for the output. Neither copies the 4 MB result out to a new JS array.
  const peerCompute = median(
    await report.timePeer((tf) => peers.softmax(tf, rows, cols, { readback: false })),
  );
  const peerComp = median(await report.timePeer((tf) => tfjsSoftmaxComposite(tf, rows, cols)));
  const params = { shape: [rows, cols], ops: 'max, broadcast_sub, exp, sum, broadcast_div', readback: true };
  const peerText = (ms: number) => {
    const soft =
      peer === undefined
        ? 'tfjs-wasm tf.softmax skipped'
        : `tfjs-wasm tf.softmax / ours = ${fmt(peer / ms)} (${peer / ms >= 2 ? 'meets' : 'misses'} >= 2)`;
    const comp = peerComp === undefined ? 'skipped' : `${fmt(peerComp / ms)}`;
    return `${soft} with readback; tfjs-wasm composite / ours = ${comp}`;
  };
  const computeText = (ours: number) =>
    `compute only ${fmt(ours)} ms${peerCompute === undefined ? '' : `, tfjs-wasm tf.softmax compute only ${fmt(peerCompute)} ms = ${fmt(peerCompute / ours)}x ours (${peerCompute / ours >= 2 ? 'meets' : 'misses'} >= 2)`}`;
  report.add(
    `${prefix}.eager`,
    params,
    eager,
    {
      rate: { value: eager.medianMs, unit: 'ms' },
      extra: { tfjsWasmSoftmaxMs: peer, tfjsWasmCompositeMs: peerComp },
    },
    `${fmt(eager.medianMs)} ms; tfjs-wasm tf.softmax ${peer === undefined ? 'skipped' : `${fmt(peer)} ms`}, tfjs-wasm composite ${peerComp === undefined ? 'skipped' : `${fmt(peerComp)} ms`}`,
  );
  graphs.forEach((g, i) => {
    const s = samples[i + 1] as Samples;
    const ms = s.medianMs;
    const vsPeer = peer === undefined ? undefined : peer / ms;
    report.add(
      g.name,
      { ...params, fusion: g.fusion },
      s,
      {
        rate: { value: ms, unit: 'ms' },
        target: '>= 2x tfjs-wasm tf.softmax (peer time / ours >= 2)',
        extra: {
          eagerMs: eager.medianMs,
          graphOverEager: ms / eager.medianMs,
          forwardWithoutReadbackMs: g.fusion ? noReadback : undefined,
          tfjsWasmSoftmaxMs: peer,
          tfjsWasmOverGraph: vsPeer,
          tfjsWasmSoftmaxComputeMs: g.fusion ? peerCompute : undefined,
          tfjsWasmComputeOverGraphCompute:
            g.fusion && peerCompute !== undefined && noReadback !== undefined
              ? peerCompute / noReadback
              : undefined,
          tfjsWasmCompositeMs: peerComp,
          tfjsWasmCompositeOverGraph: peerComp === undefined ? undefined : peerComp / ms,
          ...g.stats,
          meetsTarget: vsPeer === undefined ? undefined : vsPeer >= 2,
          meetsTargetComputeOnly:
            g.fusion && peerCompute !== undefined && noReadback !== undefined
              ? peerCompute / noReadback >= 2
              : undefined,
        },
      },
      `${fmt(ms)} ms = ${fmt(ms / eager.medianMs)}x eager; ${peerText(ms)}${g.fusion && noReadback !== undefined ? `; ${computeText(noReadback)}` : ''}; ${statsText(g.stats)}`,
    );
  });
  if (profiling) {
    if (fused !== undefined) {
      fused.out.waitToReadSync();
      const t0 = performance.now();
      for (let i = 0; i < 20; i++) fused.out.dataSync();
      console.log(
        `  readback of a ready [1024, 1000] float32 output: ${fmt((performance.now() - t0) / 20, 3)} ms`,
      );
    }
    profileRuns(rt, 'softmax eager (with readback)', eagerRun);
    profileForward(rt, 'softmax', softmax, { x });
  }
  for (const g of graphs) g.ex.dispose();
  x.dispose();
}

/** Time the eager run and each bound graph's forward (pushed and waited, no readback), in turns. */
function timeOpOnly(eagerRun: () => void, graphs: readonly Bound[]): Promise<Samples[]> {
  return timeInterleaved(
    [
      { run: eagerRun, dispose: () => {} },
      ...graphs.map((g) => ({
        run: () => {
          g.ex.forward();
          g.out.waitToReadSync();
        },
        dispose: () => {},
      })),
    ],
    { budgetMs: 5000 },
  );
}

async function fmaBench(rt: Runtime, sym: SymbolApi, report: Report): Promise<void> {
  const { nd } = rt;
  const n = 1 << 24;
  const bytes = 4 * n * 4; // three reads, one write
  const gbs = (ms: number) => bytes / ms / 1e6;
  const prefix = 'fma.a*b+c.16M';
  const arrays = [0, 1, 2].map(() => nd._random_uniform({ shape: [n], low: -1, high: 1 }));
  const [a, b, c] = arrays as [NDArray, NDArray, NDArray];
  const probe = [0, 1, n >> 1, n - 1];
  const expected = nd.scopeSync(() => {
    const r = a.mul(b).add(c).dataSync() as Float32Array;
    return probe.map((i) => r[i] as number);
  });
  const fma = sym.var('a').mul(sym.var('b')).add(sym.var('c'));
  const graphs = bindBoth(report, prefix, fma, { a, b, c }, (out, name) => {
    const got = out.dataSync() as Float32Array;
    probe.forEach((i, k) => {
      if (Math.abs((got[i] as number) - (expected[k] as number)) > 1e-6) {
        throw new Error(`${name}: element ${i} is ${got[i]}, eager computed ${expected[k]}`);
      }
    });
  });
  const eagerRun = () =>
    nd.scopeSync(() => {
      a.mul(b).add(c).waitToReadSync();
    });
  const samples = await timeOpOnly(eagerRun, graphs);
  const eager = samples[0] as Samples;
  let peer: number | undefined;
  let peerNote: string | undefined;
  try {
    const p = await report.timePeer((tf) => tfjsFma(tf, n));
    peer = median(p);
    if ('skipped' in p) peerNote = p.skipped;
  } catch (err) {
    peerNote = firstLine(err);
  }
  const params = {
    n,
    dtype: 'float32',
    bytes,
    note: 'bytes = 3 reads + 1 write; op only (pushed and waited)',
  };
  report.add(
    `${prefix}.eager`,
    { ...params, kernels: 2 },
    eager,
    {
      rate: { value: gbs(eager.medianMs), unit: 'GB/s' },
      extra: { tfjsWasmMs: peer ?? peerNote, tfjsWasmGBs: peer === undefined ? undefined : gbs(peer) },
    },
    `${fmt(eager.medianMs)} ms, ${fmt(gbs(eager.medianMs), 1)} GB/s (2 kernels)${peer === undefined ? '' : `; tfjs-wasm ${fmt(peer)} ms, ${fmt(gbs(peer), 1)} GB/s`}`,
  );
  graphs.forEach((g, i) => {
    const s = samples[i + 1] as Samples;
    const rate = gbs(s.medianMs);
    report.add(
      g.name,
      { ...params, fusion: g.fusion },
      s,
      {
        rate: { value: rate, unit: 'GB/s' },
        target: g.fusion ? '>= 30 GB/s as one fused kernel' : 'reported (unfused: 2 kernels)',
        extra: {
          eagerMs: eager.medianMs,
          graphOverEager: s.medianMs / eager.medianMs,
          tfjsWasmMs: peer,
          ...g.stats,
          meetsTarget: g.fusion ? rate >= 30 : undefined,
        },
      },
      `${fmt(s.medianMs)} ms, ${fmt(rate, 1)} GB/s${g.fusion ? ` (${rate >= 30 ? 'meets' : 'misses'} >= 30)` : ''}; ${fmt(s.medianMs / eager.medianMs)}x eager; ${statsText(g.stats)}`,
    );
  });
  if (profiling) {
    profileRuns(rt, 'fma eager', eagerRun);
    profileForward(rt, 'fma', fma, { a, b, c });
  }
  for (const g of graphs) g.ex.dispose();
  for (const t of arrays) t.dispose();
}

/** tfjs-wasm's sum((a - b)^2, axis -1) over [rows, cols] (op only: its kernels run synchronously). */
function tfjsSqdiffSum(tf: peers.Tfjs, rows: number, cols: number): peers.Workload {
  const ts = [1, 2].map((seed) => tf.randomUniform([rows, cols], -1, 1, 'float32', seed));
  const [a, b] = ts as [(typeof ts)[0], (typeof ts)[0]];
  return {
    run: () => tf.tidy(() => tf.sum(tf.squaredDifference(a, b), -1)).dispose(),
    dispose: () => {
      for (const t of ts) t.dispose();
    },
  };
}

/**
 * A reduction with an elementwise prologue: sum((a - b)^2, axis=-1) over [1024, 16384] float32 as
 * one fused-reduction kernel (reads a and b once, writes the 1,024 row sums), unfused (a fused
 * square-difference kernel writing 64 MB, then the sum) and eagerly (three kernels); GB/s count the
 * two 64 MB reads.
 */
async function reduceBench(rt: Runtime, sym: SymbolApi, report: Report): Promise<void> {
  const { nd } = rt;
  const [rows, cols] = [1024, 16384];
  const bytes = 2 * 4 * rows * cols;
  const gbs = (ms: number) => bytes / ms / 1e6;
  const prefix = 'sqdiff_sum.1024x16384';
  const arrays = [0, 1].map(() => nd._random_uniform({ shape: [rows, cols], low: -1, high: 1 }));
  const [a, b] = arrays as [NDArray, NDArray];
  const eagerRun = () =>
    nd.scopeSync(() => {
      a.sub(b).square().sum({ axis: -1 }).waitToReadSync();
    });
  const expected = nd.scopeSync(() =>
    Array.from(a.sub(b).square().sum({ axis: -1 }).dataSync() as Float32Array),
  );
  const symbol = sym.sum(sym.square(sym.elemwise_sub(sym.var('a'), sym.var('b'))), { axis: -1 });
  const graphs = bindBoth(report, prefix, symbol, { a, b }, (out, name) => {
    const got = out.dataSync() as Float32Array;
    expected.forEach((w, i) => {
      if (Math.abs((got[i] as number) - w) > 1e-5 * Math.abs(w)) {
        throw new Error(`${name}: row ${i} sums to ${got[i]}, eager computed ${w}`);
      }
    });
  });
  const samples = await timeOpOnly(eagerRun, graphs);
  const eager = samples[0] as Samples;
  const peer = median(await report.timePeer((tf) => tfjsSqdiffSum(tf, rows, cols)));
  const params = { shape: [rows, cols], dtype: 'float32', bytes, note: 'bytes = 2 reads; op only' };
  report.add(
    `${prefix}.eager`,
    { ...params, kernels: 3 },
    eager,
    { rate: { value: gbs(eager.medianMs), unit: 'GB/s' }, extra: { tfjsWasmMs: peer } },
    `${fmt(eager.medianMs)} ms, ${fmt(gbs(eager.medianMs), 1)} GB/s${peer === undefined ? '' : `; tfjs-wasm ${fmt(peer)} ms`}`,
  );
  graphs.forEach((g, i) => {
    const sm = samples[i + 1] as Samples;
    report.add(
      g.name,
      { ...params, fusion: g.fusion },
      sm,
      {
        rate: { value: gbs(sm.medianMs), unit: 'GB/s' },
        extra: {
          eagerMs: eager.medianMs,
          graphOverEager: sm.medianMs / eager.medianMs,
          tfjsWasmMs: peer,
          tfjsWasmOverGraph: peer === undefined ? undefined : peer / sm.medianMs,
          ...g.stats,
        },
      },
      `${fmt(sm.medianMs)} ms, ${fmt(gbs(sm.medianMs), 1)} GB/s; ${fmt(sm.medianMs / eager.medianMs)}x eager${peer === undefined ? '' : `; tfjs-wasm ${fmt(peer / sm.medianMs)}x slower`}; ${statsText(g.stats)}`,
    );
  });
  for (const g of graphs) g.ex.dispose();
  for (const t of arrays) t.dispose();
}

export async function elementwiseBench(rt: Runtime, sym: SymbolApi, report: Report): Promise<void> {
  if (want('softmax')) await softmaxBench(rt, sym, report);
  if (want('fma')) await fmaBench(rt, sym, report);
  if (want('reduce')) await reduceBench(rt, sym, report);
}
