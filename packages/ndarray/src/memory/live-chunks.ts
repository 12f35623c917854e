/**
 * The runtime's record of live chunks under memory pressure, and the "what holds the memory" report
 * of an out-of-memory error: live chunks of the failing device grouped by allocation site (creating
 * op, dtype, shape), with counts and bytes, largest first, and a JS creation stack where one was
 * sampled.
 *
 * Recording costs something on every allocation (a node, list links, and old-to-young pointer
 * writes that make each scavenge slower), and a program that stays under its high-water mark never
 * needs the report. So nothing is recorded until a device first passes its mark (the first
 * reclaim): from then on every new chunk gets a node in an intrusive doubly linked list (O(1) in and
 * out, no Set), and one in `sampleEvery` gets a creation stack. A program heading for an
 * out-of-memory error has passed its mark long before it fails, so the sites that keep growing are
 * itemized by then; chunks made before recording began are counted in a closing line. `leakCheck`
 * keeps a stack for every array it watches; this is the cheap always-available counterpart, and it
 * works the same in browsers.
 */
import type { Context, DTypeName } from '@mx/base';
import { formatSize } from '@mx/storage';

const STACK_FRAMES = 6;
/** Frames inside the runtime (this package, the engine, storage, ops), tests excepted. */
const INTERNAL_FRAME = /[\\/](?:ndarray|engine|storage|ops)[\\/](?:src|dist)[\\/]|node:internal/;
const TEST_FRAME = /\.(?:test|spec)\.[cm]?[jt]s/;

/** The caller's stack from the first frame outside the runtime (a few lines). */
export function creationStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 32;
  const raw = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = raw
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const first = Math.max(
    0,
    frames.findIndex((l) => !INTERNAL_FRAME.test(l) || TEST_FRAME.test(l)),
  );
  return frames.slice(first, first + STACK_FRAMES).join('\n');
}

/** One recorded chunk (a chunk points at its node; the node does not point back). */
export class LiveNode {
  prev: LiveNode | null = null;
  next: LiveNode | null = null;
  constructor(
    readonly ctx: Context,
    readonly bytes: number,
    readonly site: string,
    readonly dtype: DTypeName,
    readonly shape: readonly number[],
    readonly stack: string | undefined,
  ) {}
}

/** What `add`/`remove` need from a chunk. */
export interface Recorded {
  liveNode: LiveNode | null;
}

/** One allocation site in a report. */
export interface SiteSummary {
  /** e.g. `FullyConnected float32 (128, 512)`. */
  readonly site: string;
  readonly chunks: number;
  readonly bytes: number;
  /** A creation stack of one of its chunks, if one was sampled. */
  readonly stack: string | undefined;
}

export class LiveChunks {
  /** Whether new chunks are recorded (off until the first reclaim). */
  recording = false;
  /** Capture a stack for one recorded chunk in this many (0: none). */
  sampleEvery = 0;
  #head: LiveNode | null = null;
  #count = 0;
  #sinceSample = 0;

  /** Chunks recorded and still live. */
  get size(): number {
    return this.#count;
  }

  /** Record a new chunk (call only while `recording`). */
  add(
    chunk: Recorded,
    ctx: Context,
    bytes: number,
    site: string,
    dtype: DTypeName,
    shape: readonly number[],
  ): void {
    let stack: string | undefined;
    if (this.sampleEvery > 0 && ++this.#sinceSample >= this.sampleEvery) {
      this.#sinceSample = 0;
      stack = creationStack();
    }
    const node = new LiveNode(ctx, bytes, site, dtype, shape, stack);
    const head = this.#head;
    node.next = head;
    if (head !== null) head.prev = node;
    this.#head = node;
    this.#count++;
    chunk.liveNode = node;
  }

  /** Forget a chunk that is being released (no-op for one never recorded). */
  remove(chunk: Recorded): void {
    const node = chunk.liveNode;
    if (node === null) return;
    chunk.liveNode = null;
    const { prev, next } = node;
    if (prev !== null) prev.next = next;
    else this.#head = next;
    if (next !== null) next.prev = prev;
    node.prev = null;
    node.next = null;
    this.#count--;
  }

  /** Recorded live chunks on `ctx` grouped by site, largest first. */
  sites(ctx: Context): SiteSummary[] {
    const groups = new Map<
      string,
      { site: string; chunks: number; bytes: number; stack: string | undefined }
    >();
    for (let n = this.#head; n !== null; n = n.next) {
      if (n.ctx.key !== ctx.key) continue;
      const shape = n.shape.length === 1 ? `(${n.shape[0]},)` : `(${n.shape.join(', ')})`;
      const site = `${n.site} ${n.dtype} ${shape}`;
      let g = groups.get(site);
      if (g === undefined) {
        g = { site, chunks: 0, bytes: 0, stack: undefined };
        groups.set(site, g);
      }
      g.chunks++;
      g.bytes += n.bytes;
      g.stack ??= n.stack;
    }
    return [...groups.values()].sort(
      (a, b) => b.bytes - a.bytes || b.chunks - a.chunks || (a.site < b.site ? -1 : a.site > b.site ? 1 : 0),
    );
  }

  /**
   * The out-of-memory report: the largest `limit` sites of `ctx`, a summary of the rest, and how
   * many live chunks (all devices) predate recording (`unrecorded`).
   */
  report(ctx: Context, unrecorded: number, limit = 8): string {
    const sites = this.sites(ctx);
    const lines: string[] = [];
    if (sites.length === 0) lines.push(`no recorded live arrays on ${ctx.toString()}`);
    else {
      const chunks = sites.reduce((t, s) => t + s.chunks, 0);
      const bytes = sites.reduce((t, s) => t + s.bytes, 0);
      lines.push(
        `live arrays on ${ctx.toString()} by allocation site (${chunks} storage chunks, ${formatSize(bytes)}; largest first):`,
      );
      for (const s of sites.slice(0, limit)) {
        lines.push(`  ${s.chunks} × ${s.site} = ${formatSize(s.bytes)}`);
        if (s.stack !== undefined) lines.push(...s.stack.split('\n').map((l) => `      ${l}`));
      }
      const rest = sites.slice(limit);
      if (rest.length > 0) {
        const restBytes = rest.reduce((t, s) => t + s.bytes, 0);
        lines.push(`  … and ${rest.length} more site(s), ${formatSize(restBytes)}`);
      }
    }
    if (unrecorded > 0) {
      lines.push(
        `  (${unrecorded} older live chunk(s) on all devices predate the first reclaim and are not itemized)`,
      );
    }
    if (!sites.some((s) => s.stack !== undefined)) {
      lines.push('  (no creation stacks sampled; nd.leakCheck(fn) records one for every array)');
    }
    return lines.join('\n');
  }
}
