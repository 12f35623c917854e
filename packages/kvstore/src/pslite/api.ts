/**
 * The contract between ps-lite's transport (this folder: van, postoffice, KV apps over ZeroMQ,
 * wire-compatible with dmlc/ps-lite) and MXNet's distributed KVStore on top of it (../distributed/). It
 * mirrors ps-lite's public C++ API (`ps::KVWorker<char>`, `ps::KVServer<char>`, `ps::SimpleApp`,
 * `ps::Postoffice`) in TypeScript form, so the dist store is written against ps-lite's semantics
 * and can be tested with an in-memory implementation, and another transport (WebSocket) can
 * implement it later.
 *
 * Values are bytes (MXNet instantiates ps-lite with `Val = char`): `vals` is the concatenation of
 * every key's bytes, `lens[i]` the byte length of key i's part (ps-lite allows `lens` empty when
 * all parts have the same length; this API always fills it).
 */

/** ps-lite's node roles (PBNode.role). */
export const Role = { Server: 0, Worker: 1, Scheduler: 2 } as const;
export type Role = (typeof Role)[keyof typeof Role];

/** ps-lite's group ids (sums address several groups): scheduler 1, servers 2, workers 4. */
export const SCHEDULER = 1;
export const SERVER_GROUP = 2;
export const WORKER_GROUP = 4;

/** A node id from a rank: server r → 8 + 2r, worker r → 9 + 2r (ps-lite's Postoffice). */
export function serverRankToId(rank: number): number {
  return 8 + 2 * rank;
}
export function workerRankToId(rank: number): number {
  return 9 + 2 * rank;
}
export function idToRank(id: number): number {
  return Math.max(0, Math.floor((id - 8) / 2));
}

/** A half-open range of ps-lite keys `[begin, end)` (uint64). */
export interface KeyRange {
  readonly begin: bigint;
  readonly end: bigint;
}

/** ps-lite's `KVPairs<char>`: keys ascending. */
export interface KVPairs {
  readonly keys: BigUint64Array;
  readonly vals: Uint8Array;
  readonly lens: Int32Array;
}

/** What a server learns about a request (ps-lite's `KVMeta`). */
export interface KVMeta {
  /** The request's `head` (MXNet packs the request type and dtype into it). */
  readonly cmd: number;
  readonly push: boolean;
  readonly pull: boolean;
  /** Node id of the worker that sent it. */
  readonly sender: number;
  readonly timestamp: number;
  readonly customerId: number;
}

/** ps-lite's `Postoffice` as seen by the apps: this node's place in the job. */
export interface PsNode {
  readonly role: Role;
  /** Rank within the role (0-based). */
  readonly rank: number;
  readonly id: number;
  readonly numWorkers: number;
  readonly numServers: number;
  /**
   * ps-lite's `is_recovery()`: this node registered after the job started and took the place (id,
   * rank) of a dead node of its role. MXNet then skips the start and init barriers.
   */
  readonly isRecovery: boolean;
  /** Key range owned by each server, by server rank (ps-lite: an equal split of [0, 2^64)). */
  serverKeyRanges(): readonly KeyRange[];
  /** Waits until every node in `group` (a sum of the group ids) reached this barrier. */
  barrier(group: number): Promise<void>;
  /**
   * Nodes dead as this node knows it (ps-lite `GetDeadNodes`: no heartbeat within `timeoutSec` —
   * the scheduler watches every node, the others the scheduler — plus nodes reported dead to it).
   */
  deadNodes(timeoutSec: number): number[];
  /** Leaves the job (ps-lite `Finalize`: a barrier over everyone, then TERMINATE). */
  finalize(): Promise<void>;
}

/** `ps::KVWorker<char>`: requests are split by the servers' key ranges, one message per server. */
export interface KVWorkerApi {
  /** ZPush; resolves when every server involved has answered. */
  zpush(kv: KVPairs, cmd?: number, priority?: number): Promise<void>;
  /**
   * ZPull of `keys`; resolves with the servers' answers merged in key order. With `into` (ps-lite's
   * caller-provided `vals`, exactly the answered bytes) the values are written there, not to a new
   * buffer.
   */
  zpull(keys: BigUint64Array, cmd?: number, priority?: number, into?: Uint8Array): Promise<KVPairs>;
  /** ZPushPull: push `kv` and get the servers' answers for the same keys in one round trip. */
  zpushPull(kv: KVPairs, cmd?: number, priority?: number, into?: Uint8Array): Promise<KVPairs>;
}

/** `ps::KVServer<char>`. */
export interface KVServerApi {
  /** The handler runs for every request; it must answer each with `response` (now or later). */
  setRequestHandle(handle: (meta: KVMeta, data: KVPairs, server: KVServerApi) => void): void;
  /** Answers a request: an empty answer for a push, the pulled pairs for a pull. */
  response(meta: KVMeta, res?: KVPairs): void;
}

/** `ps::SimpleApp`: commands (head + string body), as MXNet sends its controller commands. */
export interface SimpleAppApi {
  /** Sends `head`/`body` to `recvId` (a node id or a group); resolves when all answered. */
  request(head: number, body: Uint8Array | string, recvId: number): Promise<void>;
  /** Handler of requests; the request is answered when it returns (or its promise settles). */
  setRequestHandle(handle: (head: number, body: Uint8Array, sender: number) => void | Promise<void>): void;
}

/**
 * Added with the ZeroMQ transport: in ps-lite, `KVWorker` and `KVServer` *are* SimpleApps on the
 * same customer (app 0, customer 0), and MXNet's commands (kController, kSyncMode, kStopServer…)
 * travel that way — a separate SimpleApp would use another app id, which a C++ server ignores.
 * The KV apps of this transport expose that side as `simpleApp`.
 */
export interface SimpleAppHost {
  readonly simpleApp: SimpleAppApi;
}
