/**
 * Benchmark 3: graph overhead. A chain of 10,000 ops on a 1-element array, alternating
 * `_plus_scalar(1)` and `_mul_scalar(1)` (the result, input + 5000, checks that every node ran),
 * run as an executor forward (inference: the whole chain is one bulked engine op) with fusion
 * off — the runner's per-node cost — and with fusion on (the chain collapses into a few fused
 * kernels), and eagerly (one `invoke` per op) for comparison. Time per forward (the input is
 * rewritten before each one and the 1-element result read back) divided by 10,000, timed in
 * turns; bind time is reported too.
 */
import type { Samples } from '@mx/bench-kit';
import { fmt, timeInterleaved, type Variant, want } from '@mx/bench-kit';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { TfjsWasmReport as Report } from '@mx/peers';
import type { Executor, Symbol as MxSymbol, SymbolApi } from '@mx/symbol';
import { bindInferenceTo, graphStats, statsText } from './graph-api.js';

const K = 10_000;
const ADDED = K / 2;

export async function overheadBench(rt: Runtime, sym: SymbolApi, report: Report): Promise<void> {
  if (!want('chain')) return;
  const { nd } = rt;
  const params = { nodes: K, elements: 1, ops: '_plus_scalar(1), _mul_scalar(1) alternating' };
  const perNode = (ms: number) => (ms * 1000) / K;
  const eager: Variant = {
    run: () => {
      let x: NDArray = nd.zeros([1]);
      for (let i = 0; i < K; i++) {
        const y = i % 2 === 0 ? nd._plus_scalar(x, { scalar: 1 }) : nd._mul_scalar(x, { scalar: 1 });
        x.dispose();
        x = y;
      }
      const v = (x.dataSync() as Float32Array)[0];
      x.dispose();
      if (v !== ADDED) throw new Error(`eager chain computed ${v}, expected ${ADDED}`);
    },
    dispose: () => {},
  };

  let chain: MxSymbol = sym.var('x');
  for (let i = 0; i < K; i++) {
    chain = i % 2 === 0 ? sym._plus_scalar(chain, { scalar: 1 }) : sym._mul_scalar(chain, { scalar: 1 });
  }
  const x = nd.zeros([1]);
  let start = 0;
  const graphs: {
    name: string;
    fusion: boolean;
    ex: Executor;
    bindMs: number;
    stats: Record<string, number>;
  }[] = [];
  for (const fusion of [false, true]) {
    const name = `chain.10000x1.executor${fusion ? '' : '.nofuse'}`;
    const t0 = performance.now();
    try {
      const ex = bindInferenceTo(chain, { x }, fusion);
      graphs.push({ name, fusion, ex, bindMs: performance.now() - t0, stats: graphStats(ex) });
    } catch (err) {
      report.skip(name, String(err).split('\n')[0] as string);
    }
  }
  const variants: Variant[] = graphs.map(({ name, ex }) => {
    const out = ex.outputs[0] as NDArray;
    return {
      run: () => {
        // A new input each call, so a forward that did not run cannot pass the check.
        start = (start + 1) % 1000;
        x.set([start]);
        ex.forward();
        const v = (out.dataSync() as Float32Array)[0];
        if (v !== start + ADDED) throw new Error(`${name} computed ${v}, expected ${start + ADDED}`);
      },
      dispose: () => ex.dispose(),
    };
  });
  let samples: Samples[];
  try {
    samples = await timeInterleaved([eager, ...variants], { budgetMs: 4000, blockMs: 60 });
  } finally {
    for (const v of variants) v.dispose();
    x.dispose();
  }
  const e = samples[0] as Samples;
  report.add(
    'chain.10000x1.eager',
    params,
    e,
    { rate: { value: perNode(e.medianMs), unit: 'us/node' } },
    `${fmt(e.medianMs)} ms per chain, ${fmt(perNode(e.medianMs), 3)} us/op`,
  );
  graphs.forEach((g, i) => {
    const s = samples[i + 1] as Samples;
    const us = perNode(s.medianMs);
    report.add(
      g.name,
      { ...params, fusion: g.fusion },
      s,
      {
        rate: { value: us, unit: 'us/node' },
        target: g.fusion ? 'reported' : '<= 0.3 us per node (fusion off)',
        extra: {
          bindMs: g.bindMs,
          eagerMs: e.medianMs,
          eagerOverGraph: e.medianMs / s.medianMs,
          ...g.stats,
          meetsTarget: g.fusion ? undefined : us <= 0.3,
        },
      },
      `${fmt(s.medianMs, 3)} ms per forward, ${fmt(us, 3)} us/node${g.fusion ? '' : ` (${us <= 0.3 ? 'meets' : 'misses'} <= 0.3)`}; eager ${fmt(e.medianMs / s.medianMs, 1)}x slower; bind ${fmt(g.bindMs, 0)} ms; ${statsText(g.stats)}`,
    );
  });
}
