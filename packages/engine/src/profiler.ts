/**
 * Profiler: records every op the engine runs (name, context, lane, start/end, skipped/failed) and
 * writes MXNet-style outputs: a Chrome trace (`chrome://tracing`, Perfetto) like `mx.profiler.dump()`,
 * and aggregate statistics like `mx.profiler.dumps()`.
 *
 * It belongs to an engine (`engine.profiler`), not to the module, so two engines profile
 * separately. When not running it costs the engine one boolean check per op. Besides timestamps,
 * each record carries start/end sequence numbers from one counter, so the exact order of events is
 * known even when timestamps tie (tests replay schedules from them).
 */
import { type Context, MXNetError } from '@mx/base';

/** @internal What the profiler reads from a running op (the engine's op block). */
export interface ProfiledOp {
  readonly name: string;
  readonly ctx: Context;
  readonly skipped: boolean;
  readonly profArgs: Readonly<Record<string, unknown>> | null;
  profStart: number;
  profStartSeq: number;
}

export interface ProfileRecord {
  readonly name: string;
  /** Context, e.g. `cpu(0)`. */
  readonly ctx: string;
  /** Lane kind: worker, copy or priority. */
  readonly lane: string;
  /** Process/thread ids used in the Chrome trace. */
  readonly pid: number;
  readonly tid: number;
  /** performance.now() at start and end, in ms. */
  readonly start: number;
  readonly end: number;
  /** Order of the start and end events among all recorded events. */
  readonly startSeq: number;
  readonly endSeq: number;
  /** The op's function was not called (an input carried an error, or shutdown). */
  readonly skipped: boolean;
  /** The op ended with an error (its own or inherited). */
  readonly failed: boolean;
  readonly args?: Readonly<Record<string, unknown>>;
}

export interface ProfilerConfig {
  /** File `dump()` writes the Chrome trace to. Default `profile.json` (MXNet's default). */
  readonly filename?: string;
  /** Keep aggregate statistics for `dumps()`. Default true. */
  readonly aggregateStats?: boolean;
  /** Record imperative ops (everything pushed to the engine). Default true. */
  readonly profileImperative?: boolean;
}

export interface AggregateStat {
  readonly name: string;
  readonly ctx: string;
  readonly count: number;
  readonly totalMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly avgMs: number;
}

export type ProfilerState = 'run' | 'stop';

export class Profiler {
  #state: ProfilerState = 'stop';
  #paused = false;
  #config: Required<ProfilerConfig> = {
    filename: 'profile.json',
    aggregateStats: true,
    profileImperative: true,
  };
  #records: ProfileRecord[] = [];
  #seq = 0;
  readonly #contexts = new Map<number, string>();

  /** MXNet `mx.profiler.set_config`. */
  setConfig(config: ProfilerConfig): void {
    this.#config = { ...this.#config, ...config };
  }

  get config(): Readonly<Required<ProfilerConfig>> {
    return this.#config;
  }

  /** MXNet `mx.profiler.set_state('run' | 'stop')`. */
  setState(state: ProfilerState): void {
    if (state !== 'run' && state !== 'stop') {
      throw new MXNetError(`invalid profiler state "${String(state)}"`, {
        op: 'Profiler.setState',
        hint: "use 'run' or 'stop'",
      });
    }
    this.#state = state;
  }

  get state(): ProfilerState {
    return this.#state;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
  }

  /** True when ops should be recorded now. */
  get isProfiling(): boolean {
    return this.#state === 'run' && !this.#paused && this.#config.profileImperative;
  }

  /** @internal Next event sequence number. */
  nextSeq(): number {
    return ++this.#seq;
  }

  /** @internal Mark an op's start (when profiling). */
  startOp(op: ProfiledOp): void {
    op.profStart = performance.now();
    op.profStartSeq = this.nextSeq();
  }

  /** @internal Record an op that started with startOp and has just ended. */
  endOp(op: ProfiledOp, lane: string, tid: number, failed: boolean): void {
    this.record({
      name: op.name,
      ctx: op.ctx.toString(),
      lane,
      pid: op.ctx.key,
      tid,
      start: op.profStart,
      end: performance.now(),
      startSeq: op.profStartSeq,
      endSeq: this.nextSeq(),
      skipped: op.skipped,
      failed,
      ...(op.profArgs === null ? {} : { args: op.profArgs }),
    });
  }

  /** @internal Add one op record. */
  record(rec: ProfileRecord): void {
    this.#contexts.set(rec.pid, rec.ctx);
    this.#records.push(rec);
  }

  /** Recorded ops, in completion order. */
  records(): readonly ProfileRecord[] {
    return this.#records;
  }

  /** Forget all records. */
  reset(): void {
    this.#records = [];
  }

  /** The records as a Chrome trace object (`traceEvents` with complete "X" events). */
  chromeTrace(): { traceEvents: Record<string, unknown>[]; displayTimeUnit: string } {
    const events: Record<string, unknown>[] = [];
    for (const [pid, ctx] of this.#contexts) {
      events.push({ name: 'process_name', ph: 'M', pid, tid: 0, args: { name: ctx } });
    }
    const threads = new Map<string, Record<string, unknown>>();
    for (const r of this.#records) {
      const key = `${r.pid}:${r.tid}`;
      if (!threads.has(key)) {
        threads.set(key, { name: 'thread_name', ph: 'M', pid: r.pid, tid: r.tid, args: { name: r.lane } });
      }
    }
    events.push(...threads.values());
    for (const r of this.#records) {
      events.push({
        name: r.name,
        cat: 'operator',
        ph: 'X',
        ts: r.start * 1000,
        dur: Math.max(0, (r.end - r.start) * 1000),
        pid: r.pid,
        tid: r.tid,
        args: { ...r.args, ...(r.skipped ? { skipped: true } : {}), ...(r.failed ? { failed: true } : {}) },
      });
    }
    return { traceEvents: events, displayTimeUnit: 'ms' };
  }

  /** Aggregate statistics per (context, op name). */
  aggregate(): AggregateStat[] {
    const byKey = new Map<
      string,
      { name: string; ctx: string; n: number; total: number; min: number; max: number }
    >();
    for (const r of this.#records) {
      const key = `${r.ctx}\u0000${r.name}`;
      const d = r.end - r.start;
      const s = byKey.get(key);
      if (s === undefined) byKey.set(key, { name: r.name, ctx: r.ctx, n: 1, total: d, min: d, max: d });
      else {
        s.n++;
        s.total += d;
        s.min = Math.min(s.min, d);
        s.max = Math.max(s.max, d);
      }
    }
    return [...byKey.values()].map((s) => ({
      name: s.name,
      ctx: s.ctx,
      count: s.n,
      totalMs: s.total,
      minMs: s.min,
      maxMs: s.max,
      avgMs: s.total / s.n,
    }));
  }

  /**
   * MXNet `mx.profiler.dumps()`: aggregate statistics as a table or JSON, sorted by `sortBy`.
   * With `reset`, records are cleared afterwards.
   */
  dumps(
    options: {
      format?: 'table' | 'json';
      reset?: boolean;
      sortBy?: 'total' | 'avg' | 'min' | 'max' | 'count';
      ascending?: boolean;
    } = {},
  ): string {
    const { format = 'table', reset = false, sortBy = 'total', ascending = false } = options;
    const field = { total: 'totalMs', avg: 'avgMs', min: 'minMs', max: 'maxMs', count: 'count' } as const;
    const f = field[sortBy];
    const stats = this.aggregate().sort((a, b) => (ascending ? a[f] - b[f] : b[f] - a[f]));
    if (reset) this.reset();
    if (format === 'json') return JSON.stringify(stats, null, 2);
    const lines = ['Profile Statistics:', '\tNote that times are wall-clock times on the event loop.'];
    const byCtx = new Map<string, AggregateStat[]>();
    for (const s of stats) byCtx.set(s.ctx, [...(byCtx.get(s.ctx) ?? []), s]);
    const cols = ['Total Count', 'Time (ms)', 'Min Time (ms)', 'Max Time (ms)', 'Avg Time (ms)'];
    for (const [ctx, list] of byCtx) {
      lines.push('', `operator (${ctx})`, '='.repeat(17 + ctx.length));
      lines.push(`${'Name'.padEnd(40)}${cols.map((c) => c.padStart(16)).join('')}`);
      lines.push(`${'----'.padEnd(40)}${cols.map((c) => '-'.repeat(c.length).padStart(16)).join('')}`);
      for (const s of list) {
        const nums = [s.count, s.totalMs, s.minMs, s.maxMs, s.avgMs].map((v, i) =>
          (i === 0 ? String(v) : v.toFixed(4)).padStart(16),
        );
        lines.push(`${s.name.slice(0, 39).padEnd(40)}${nums.join('')}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }

  /** The Chrome trace as JSON text. */
  traceJSON(): string {
    return JSON.stringify(this.chromeTrace());
  }

  /**
   * MXNet `mx.profiler.dump()`: write the Chrome trace to `config.filename` (Node only). Returns the
   * path written. In browsers, use `traceJSON()` and save it yourself.
   */
  async dump(options: { filename?: string; reset?: boolean } = {}): Promise<string> {
    const filename = options.filename ?? this.#config.filename;
    // Reached through process.getBuiltinModule (Node >= 20.16), not an import, so bundlers for
    // browsers never see node:fs.
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const fs = proc?.getBuiltinModule?.('node:fs/promises') as
      | { writeFile(path: string, data: string): Promise<void> }
      | undefined;
    if (fs === undefined) {
      throw new MXNetError('Profiler.dump needs a file system (Node)', {
        op: 'Profiler.dump',
        hint: 'use profiler.traceJSON() and save the text yourself',
      });
    }
    await fs.writeFile(filename, this.traceJSON());
    if (options.reset) this.reset();
    return filename;
  }
}
