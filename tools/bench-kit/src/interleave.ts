/**
 * What the graph-level benchmarks share (@mx/symbol's and @mx/gluon's): workload selection from
 * `MX_BENCH_ONLY` / `MX_BENCH_PEERS`, variants timed in turns so a slow phase of this shared machine
 * hits every variant alike and their ratios hold, and a report that prints one line per figure and
 * times a peer (tfjs) loaded once, skipped with a printed reason when it cannot load or run. The
 * peer is given as a loader, so this kit depends on no peer library.
 */
import { type BenchResult, type MeasureOptions, measure, result, type Samples, summarize } from './core.js';

/** Workloads named in `MX_BENCH_ONLY` (comma-separated); all when unset. */
export const selected: readonly string[] = (process.env.MX_BENCH_ONLY ?? '').split(',').filter(Boolean);
export const want = (key: string): boolean => selected.length === 0 || selected.includes(key);
/** False when `MX_BENCH_PEERS=0`. */
export const withPeers = process.env.MX_BENCH_PEERS !== '0';

export const fmt = (x: number, digits = 2): string => x.toFixed(digits);
export const firstLine = (e: unknown): string => String(e).split('\n')[0] as string;

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

/** A peer's workload: one synchronous run and its cleanup. */
export interface PeerWorkload {
  readonly run: () => unknown;
  readonly dispose: () => void;
}

/** Collects one run's results (one printed line per figure) and times a peer, loaded once. */
export class Report<P = unknown> {
  readonly results: BenchResult[] = [];
  readonly #loadPeer: (() => Promise<P>) | undefined;
  readonly #peerName: string;
  #peer: Promise<P | string> | undefined;

  /** `loadPeer` makes the peer (e.g. tfjs with its wasm backend); none: peers are skipped. */
  constructor(loadPeer?: () => Promise<P>, peerName = 'tfjs-wasm') {
    this.#loadPeer = loadPeer;
    this.#peerName = peerName;
  }

  /** The peer, or the reason it is unavailable (printed once). */
  peer(): Promise<P | string> {
    if (!withPeers) return Promise.resolve('MX_BENCH_PEERS=0');
    const load = this.#loadPeer;
    if (load === undefined) return Promise.resolve('no peer');
    this.#peer ??= load().catch((e: unknown) => {
      const reason = `${this.#peerName} unavailable: ${firstLine(e)}`;
      console.log(`peers skipped (${reason})`);
      return reason;
    });
    return this.#peer;
  }

  /** Time a peer workload (made lazily, so a peer that cannot run it is reported, not fatal). */
  async timePeer(
    make: (peer: P) => PeerWorkload,
    opts: MeasureOptions = {},
  ): Promise<{ medianMs: number } | { skipped: string }> {
    const p = await this.peer();
    if (typeof p === 'string') return { skipped: p };
    let w: PeerWorkload;
    try {
      w = make(p);
      w.run();
    } catch (e) {
      return { skipped: firstLine(e) };
    }
    try {
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

  /** A figure that is not a timing (memory plans): a zero-sample result carrying `extra`. */
  addStatic(
    name: string,
    params: Record<string, unknown>,
    extra: Record<string, unknown>,
    line: string,
  ): void {
    this.results.push({ name, params, medianMs: 0, minMs: 0, maxMs: 0, samples: 0, extra });
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
