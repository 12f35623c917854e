/**
 * An in-memory ps-lite: N servers, M workers and a scheduler in one process, implementing the
 * contract of ../pslite/api.ts. It is the test double of the ZeroMQ transport, so it keeps the
 * ps-lite behaviour the distributed store depends on:
 *
 * - `KVWorker` splits a request by the servers' key ranges (ps-lite's DefaultSlicer: keys must be
 *   ascending; `lens` cut `vals`), sends one message per server that has keys, and completes when
 *   every one of them answered; pull answers are merged in key order (sorted by first key, then
 *   concatenated), and their total size is checked against the keys' expected parts.
 * - Pull requests carry keys only (empty `vals` and `lens`), as ps-lite sends them.
 * - Messages are delivered asynchronously (`setImmediate`), in the order they were sent.
 * - Barriers count the nodes of a group (a sum of SCHEDULER / SERVER_GROUP / WORKER_GROUP) and
 *   release them together; `finalize` is a barrier over everyone.
 * - `SimpleApp.request` to a group reaches every node of it and resolves when all answered.
 *
 * Where the real transport would crash a process (a handler throwing), the request's promise is
 * rejected instead, so tests see the error. `messages` records every data request for tests.
 */
import { MXNetError } from '@mx/base';
import { mergeAnswers } from '../pslite/answers.js';
import {
  type KeyRange,
  type KVMeta,
  type KVPairs,
  type KVServerApi,
  type KVWorkerApi,
  type PsNode,
  Role,
  SCHEDULER,
  SERVER_GROUP,
  type SimpleAppApi,
  serverRankToId,
  WORKER_GROUP,
  workerRankToId,
} from '../pslite/api.js';
import { serverKeyRanges } from './encoding.js';

/** What one node of the job gets: its place, its KV app and its command app. */
export interface PsApps {
  readonly node: PsNode;
  /** Workers: the KVWorker (undefined on servers and the scheduler). */
  readonly worker?: KVWorkerApi;
  /** Servers: the KVServer. */
  readonly server?: KVServerApi;
  /** The SimpleApp of this node (commands). */
  readonly app: SimpleAppApi;
}

/** One data request as a server received it (for tests). */
export interface MemoryMessage {
  readonly sender: number;
  readonly recipient: number;
  readonly cmd: number;
  readonly push: boolean;
  readonly pull: boolean;
  readonly keys: readonly bigint[];
  readonly lens: readonly number[];
}

type ServerHandle = (meta: KVMeta, data: KVPairs, server: KVServerApi) => void;
type AppHandle = (head: number, body: Uint8Array, sender: number) => void | Promise<void>;

interface Pending {
  remaining: number;
  readonly answers: KVPairs[];
  readonly resolve: (answers: KVPairs[]) => void;
  readonly reject: (e: unknown) => void;
}

const EMPTY_KEYS = new BigUint64Array(0);
const EMPTY_VALS = new Uint8Array(0);
const EMPTY_LENS = new Int32Array(0);

/** An in-memory job of `numWorkers` workers and `numServers` servers. */
export class MemoryPs {
  readonly numWorkers: number;
  readonly numServers: number;
  readonly ranges: readonly KeyRange[];
  /** Every data request delivered to a server, in delivery order. */
  readonly messages: MemoryMessage[] = [];
  readonly #serverHandles = new Map<number, ServerHandle>();
  readonly #queued = new Map<number, (() => void)[]>();
  readonly #appHandles = new Map<number, AppHandle>();
  readonly #appQueued = new Map<number, (() => void)[]>();
  readonly #pending = new Map<string, Pending>();
  readonly #barriers = new Map<number, { arrived: number; waiters: (() => void)[] }>();
  readonly #servers = new Map<number, KVServerApi>();
  #timestamp = 0;

  constructor(options: { readonly numWorkers: number; readonly numServers: number }) {
    const { numWorkers, numServers } = options;
    if (!(Number.isInteger(numWorkers) && numWorkers > 0 && Number.isInteger(numServers) && numServers > 0)) {
      throw new MXNetError(
        `a job needs at least one worker and one server, got ${numWorkers} and ${numServers}`,
        {
          op: 'MemoryPs',
        },
      );
    }
    this.numWorkers = numWorkers;
    this.numServers = numServers;
    this.ranges = serverKeyRanges(numServers);
  }

  /** Worker `rank`'s node and apps. */
  worker(rank: number): PsApps {
    const id = workerRankToId(this.#checkRank(rank, this.numWorkers, 'worker'));
    return { node: this.#node(Role.Worker, rank, id), worker: this.#kvWorker(id), app: this.#app(id) };
  }

  /** Server `rank`'s node and apps. */
  server(rank: number): PsApps {
    const id = serverRankToId(this.#checkRank(rank, this.numServers, 'server'));
    return { node: this.#node(Role.Server, rank, id), server: this.#kvServer(id), app: this.#app(id) };
  }

  /** The scheduler's node and app. */
  scheduler(): PsApps {
    return { node: this.#node(Role.Scheduler, 0, SCHEDULER), app: this.#app(SCHEDULER) };
  }

  #checkRank(rank: number, n: number, what: string): number {
    if (!Number.isInteger(rank) || rank < 0 || rank >= n) {
      throw new MXNetError(`no ${what} of rank ${rank} in a job of ${n}`, { op: 'MemoryPs' });
    }
    return rank;
  }

  #groupIds(group: number): number[] {
    const ids: number[] = [];
    if (group & SCHEDULER) ids.push(SCHEDULER);
    if (group & SERVER_GROUP) for (let r = 0; r < this.numServers; r++) ids.push(serverRankToId(r));
    if (group & WORKER_GROUP) for (let r = 0; r < this.numWorkers; r++) ids.push(workerRankToId(r));
    // A plain node id (>= 8) addresses that node.
    if (group >= 8) ids.push(group);
    return ids;
  }

  #node(role: Role, rank: number, id: number): PsNode {
    return {
      role,
      rank,
      id,
      numWorkers: this.numWorkers,
      numServers: this.numServers,
      isRecovery: false,
      serverKeyRanges: () => this.ranges,
      barrier: (group) => this.#barrier(group),
      deadNodes: () => [],
      finalize: () => this.#barrier(SCHEDULER + SERVER_GROUP + WORKER_GROUP),
    };
  }

  #barrier(group: number): Promise<void> {
    const count = this.#groupIds(group).length;
    let b = this.#barriers.get(group);
    if (b === undefined) {
      b = { arrived: 0, waiters: [] };
      this.#barriers.set(group, b);
    }
    const state = b;
    return new Promise((resolve) => {
      state.waiters.push(resolve);
      state.arrived++;
      if (state.arrived === count) {
        this.#barriers.delete(group);
        for (const w of state.waiters) setImmediate(w);
      }
    });
  }

  #kvWorker(id: number): KVWorkerApi {
    const request = (kv: KVPairs, cmd: number, push: boolean, pull: boolean): Promise<KVPairs[]> => {
      const slices = this.#slice(kv, push);
      const ts = ++this.#timestamp;
      return new Promise<KVPairs[]>((resolve, reject) => {
        if (slices.length === 0) {
          resolve([]);
          return;
        }
        this.#pending.set(`${id}:${ts}`, { remaining: slices.length, answers: [], resolve, reject });
        for (const [server, data] of slices) {
          const meta: KVMeta = { cmd, push, pull, sender: id, timestamp: ts, customerId: 0 };
          const send = () => this.#serve(server, meta, data);
          setImmediate(() => {
            if (this.#serverHandles.has(server)) send();
            else this.#queued.set(server, [...(this.#queued.get(server) ?? []), send]);
          });
        }
      });
    };
    return {
      zpush: async (kv, cmd = 0) => {
        await request(kv, cmd, true, false);
      },
      zpull: async (keys, cmd = 0, _priority = 0, into?: Uint8Array) =>
        mergeAnswers(
          keys,
          await request({ keys, vals: EMPTY_VALS, lens: EMPTY_LENS }, cmd, false, true),
          into,
        ),
      zpushPull: async (kv, cmd = 0, _priority = 0, into?: Uint8Array) =>
        mergeAnswers(kv.keys, await request(kv, cmd, true, true), into),
    };
  }

  /** ps-lite's DefaultSlicer: [server id, the part of `kv` in its range], for servers with keys. */
  #slice(kv: KVPairs, withVals: boolean): [number, KVPairs][] {
    const { keys, vals, lens } = kv;
    // ps-lite's lower_bound slicing needs the keys grouped by server, servers in order (MXNet's
    // compressed pushes put a meta key above the data key within one server's range).
    let last = -1;
    for (const k of keys) {
      const r = this.ranges.findIndex((x) => k >= x.begin && k < x.end);
      if (r < last || r < 0) {
        throw new MXNetError('ps-lite keys must be grouped by server, in the order of the key ranges', {
          op: 'KVWorker.Send',
        });
      }
      last = r;
    }
    if (withVals && lens.length !== keys.length) {
      throw new MXNetError(`${keys.length} keys need ${keys.length} lens, got ${lens.length}`, {
        op: 'KVWorker.Send',
      });
    }
    const out: [number, KVPairs][] = [];
    let k = 0;
    let offset = 0;
    this.ranges.forEach((r, s) => {
      const start = k;
      const startOffset = offset;
      while (k < keys.length && (keys[k] as bigint) < r.end) {
        if (withVals) offset += lens[k] as number;
        k++;
      }
      if (k > start) {
        out.push([
          serverRankToId(s),
          withVals
            ? {
                keys: keys.slice(start, k),
                vals: vals.slice(startOffset, offset),
                lens: lens.slice(start, k),
              }
            : { keys: keys.slice(start, k), vals: EMPTY_VALS, lens: EMPTY_LENS },
        ]);
      }
    });
    if (withVals && offset !== vals.length) {
      throw new MXNetError(`lens add up to ${offset} bytes, vals has ${vals.length}`, {
        op: 'KVWorker.Send',
      });
    }
    return out;
  }

  #serve(server: number, meta: KVMeta, data: KVPairs): void {
    this.messages.push({
      sender: meta.sender,
      recipient: server,
      cmd: meta.cmd,
      push: meta.push,
      pull: meta.pull,
      keys: [...data.keys],
      lens: [...data.lens],
    });
    const handle = this.#serverHandles.get(server) as ServerHandle;
    try {
      handle(meta, data, this.#servers.get(server) as KVServerApi);
    } catch (e) {
      const p = this.#pending.get(`${meta.sender}:${meta.timestamp}`);
      this.#pending.delete(`${meta.sender}:${meta.timestamp}`);
      p?.reject(e);
    }
  }

  #kvServer(id: number): KVServerApi {
    const existing = this.#servers.get(id);
    if (existing !== undefined) return existing;
    const api: KVServerApi = {
      setRequestHandle: (handle) => {
        this.#serverHandles.set(id, handle);
        const q = this.#queued.get(id) ?? [];
        this.#queued.delete(id);
        for (const fn of q) fn();
      },
      response: (meta, res) => {
        const answer: KVPairs = res ?? { keys: EMPTY_KEYS, vals: EMPTY_VALS, lens: EMPTY_LENS };
        setImmediate(() => {
          const key = `${meta.sender}:${meta.timestamp}`;
          const p = this.#pending.get(key);
          if (p === undefined) return;
          p.answers.push(answer);
          if (--p.remaining === 0) {
            this.#pending.delete(key);
            p.resolve(p.answers);
          }
        });
      },
    };
    this.#servers.set(id, api);
    return api;
  }

  #app(id: number): SimpleAppApi {
    return {
      setRequestHandle: (handle) => {
        this.#appHandles.set(id, handle);
        const q = this.#appQueued.get(id) ?? [];
        this.#appQueued.delete(id);
        for (const fn of q) fn();
      },
      request: (head, body, recvId) => {
        const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
        const targets = this.#groupIds(recvId);
        return Promise.all(
          targets.map(
            (to) =>
              new Promise<void>((resolve, reject) => {
                const run = () => {
                  try {
                    Promise.resolve((this.#appHandles.get(to) as AppHandle)(head, bytes.slice(), id)).then(
                      () => setImmediate(resolve),
                      reject,
                    );
                  } catch (e) {
                    reject(e);
                  }
                };
                setImmediate(() => {
                  if (this.#appHandles.has(to)) run();
                  else this.#appQueued.set(to, [...(this.#appQueued.get(to) ?? []), run]);
                });
              }),
          ),
        ).then(() => undefined);
      },
    };
  }
}
