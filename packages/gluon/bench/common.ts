/**
 * Shared plumbing of Gluon's benchmarks, the same discipline as packages/symbol/bench/common.ts:
 * workload selection (`MX_BENCH_ONLY`, `MX_BENCH_PEERS=0`), variants timed in turns with medians
 * (so a slow phase of this shared machine hits every variant alike and their ratios hold), the
 * tfjs-wasm peer loaded once and skipped with a printed reason when it cannot load or run, and one
 * line of text per figure next to the JSON report. Kept here rather than imported from the symbol
 * bench so that each package's bench only depends on built packages and @mx/bench-kit.
 */
import {
  type BenchResult,
  type MeasureOptions,
  measure,
  result,
  type Samples,
  summarize,
} from '@mx/bench-kit';
import * as peers from '@mx/peers';

/** Workloads named in `MX_BENCH_ONLY` (comma-separated); all when unset. */
export const selected = (process.env.MX_BENCH_ONLY ?? '').split(',').filter(Boolean);
export const want = (key: string): boolean => selected.length === 0 || selected.includes(key);
export const withPeers = process.env.MX_BENCH_PEERS !== '0';

/** A workload variant: one timed repetition (awaited) and its cleanup. */
export interface Variant {
  readonly run: () => unknown;
  readonly dispose: () => void;
}

export interface InterleaveOptions {
  /** Untimed runs of each variant first. Default 3. */
  readonly warm?: number;
  /** Total time for all variants together (ms). Default 4000. */
  readonly budgetMs?: number;
  /** Each turn runs a variant for about this long (at least once). Default 40 ms. */
  readonly blockMs?: number;
  /** At least this many samples of each variant. Default 7. */
  readonly minSamples?: number;
}

/**
 * Time several variants in turns (A for ~blockMs, then B, ..., repeated until the budget is
 * spent). Every run is one sample; medians per variant.
 */
export async function timeInterleaved(
  variants: readonly Variant[],
  opts: InterleaveOptions = {},
): Promise<Samples[]> {
  const { warm = 3, budgetMs = 4000, blockMs = 40, minSamples = 7 } = opts;
  for (const v of variants) for (let i = 0; i < warm; i++) await v.run();
  await new Promise((r) => setTimeout(r, 200));
  const times: number[][] = variants.map(() => []);
  const start = performance.now();
  while (performance.now() - start < budgetMs || times.some((t) => t.length < minSamples)) {
    for (const [i, v] of variants.entries()) {
      const t = times[i] as number[];
      const turn = performance.now();
      do {
        const t0 = performance.now();
        await v.run();
        t.push(performance.now() - t0);
      } while (performance.now() - turn < blockMs && t.length < 5000);
    }
  }
  return times.map((t) => summarize(t));
}

export const fmt = (x: number, digits = 2): string => x.toFixed(digits);
export const firstLine = (e: unknown): string => String(e).split('\n')[0] as string;

/** Collects results (one printed line per figure) and times the tfjs-wasm peer. */
export class Report {
  readonly results: BenchResult[] = [];
  #tfjs: Promise<peers.Tfjs | string> | undefined;

  /** tfjs with the wasm backend, or the reason it is unavailable (printed once). */
  tfjsWasm(): Promise<peers.Tfjs | string> {
    if (!withPeers) return Promise.resolve('MX_BENCH_PEERS=0');
    this.#tfjs ??= peers.loadTfjs('wasm').catch((e: unknown) => {
      const reason = `tfjs-wasm unavailable: ${firstLine(e)}`;
      console.log(`peers skipped (${reason})`);
      return reason;
    });
    return this.#tfjs;
  }

  /** Time a peer workload (made lazily, so a peer that cannot run it is reported, not fatal). */
  async timePeer(
    make: (tf: peers.Tfjs) => peers.Workload,
    opts: MeasureOptions = {},
  ): Promise<{ medianMs: number } | { skipped: string }> {
    const tf = await this.tfjsWasm();
    if (typeof tf === 'string') return { skipped: tf };
    let w: peers.Workload;
    try {
      w = make(tf);
    } catch (e) {
      return { skipped: firstLine(e) };
    }
    try {
      w.run();
      const s = await measure(w.run, { budgetMs: 3000, minSamples: 3, warmup: 1, ...opts });
      return { medianMs: s.medianMs };
    } catch (e) {
      return { skipped: firstLine(e) };
    } finally {
      w.dispose();
    }
  }

  add(
    name: string,
    params: Record<string, unknown>,
    s: Samples,
    more: { rate?: { value: number; unit: string }; target?: string; extra?: Record<string, unknown> },
    line: string,
  ): void {
    this.results.push(result(name, params, s, more));
    console.log(`${name}: ${line}`);
  }

  skip(name: string, reason: string): void {
    this.results.push({
      name,
      params: {},
      medianMs: 0,
      minMs: 0,
      maxMs: 0,
      samples: 0,
      extra: { skipped: reason },
    });
    console.log(`${name}: skipped (${reason})`);
  }
}
