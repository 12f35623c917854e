/**
 * The pieces of the van that need none of its state: the options and customer interfaces, ps-lite's
 * node order at the scheduler, the data messages held for an app that is not registered yet, and
 * the errors for a silent scheduler, a dead node or a message never ACKed (kept here so van.ts
 * stays readable).
 */
import { MXNetError } from '@mx/base';
import { idToRank, Role, SCHEDULER, SERVER_GROUP, WORKER_GROUP } from './api.js';
import type { Message, NodeInfo } from './codec.js';
import type { PsConfig } from './env.js';
import type { TransportFactory } from './transport.js';
import { roleName } from './util.js';

/** How an app receives messages and learns of failures. */
export interface Customer {
  accept(msg: Message): void;
  /** Peers that died or never answered; the app fails what waits on them. */
  nodeFailed(ids: readonly number[], error: MXNetError): void;
}

/** How to start a node. */
export interface PostofficeOptions {
  /** The DMLC_* / PS_* variables (default: process.env where it exists). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Settings that win over `env`. */
  config?: Partial<PsConfig>;
  /** The network (default: ZeroMQ, loaded lazily). */
  transport?: TransportFactory;
  /** Where log lines go (default: stderr). */
  log?: (line: string) => void;
  /** ps-lite's customer id given to Start (default 0). */
  customerId?: number;
  /** Run the global barrier at the end of the start (ps::Start: true, ps::StartAsync: false). */
  doBarrier?: boolean;
  /** Called once the node listens, with its port (a scheduler given `config.rootPort: 0` binds any free port). */
  onBound?: (port: number) => void;
  /** Sees every received message's raw frames before decoding (captures, debugging). */
  tap?: (identity: Uint8Array, frames: readonly Uint8Array[]) => void;
}

/**
 * The scheduler's order before assigning ids, as ps-lite's comparator
 * `(a.hostname.compare(b.hostname) | (a.port < b.port)) > 0`: hostnames descending, then ports
 * ascending.
 */
export function sortNodesLikePsLite(nodes: NodeInfo[]): void {
  nodes.sort((a, b) => {
    const c = a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0;
    const before = c > 0 || (c === 0 && a.port < b.port);
    const after = c < 0 || (c === 0 && b.port < a.port);
    return before ? -1 : after ? 1 : 0;
  });
}

/** The error of a start that got no node list in time (scheduler: not every node registered). */
export function connectTimeoutError(
  c: PsConfig,
  myPort: number,
  registered: number,
  reached: boolean,
): MXNetError {
  if (c.role === Role.Scheduler) {
    return new MXNetError(
      `only ${registered} of ${c.numServer + c.numWorker} nodes registered with the scheduler at tcp://${c.rootUri}:${myPort} within ${c.connectTimeoutSec} s`,
      {
        op: 'pslite.start',
        params: { DMLC_NUM_SERVER: c.numServer, DMLC_NUM_WORKER: c.numWorker },
        hint: 'start every server and worker with this DMLC_PS_ROOT_URI/PORT, or raise PS_CONNECT_TIMEOUT',
      },
    );
  }
  const addr = `tcp://${c.rootUri}:${c.rootPort}`;
  return new MXNetError(
    reached
      ? `the scheduler at ${addr} accepted the connection but sent no node list within ${c.connectTimeoutSec} s (it waits for ${c.numServer} servers + ${c.numWorker} workers)`
      : `cannot reach the scheduler at ${addr} within ${c.connectTimeoutSec} s`,
    {
      op: 'pslite.start',
      params: { DMLC_PS_ROOT_URI: c.rootUri, DMLC_PS_ROOT_PORT: c.rootPort },
      hint: 'check DMLC_PS_ROOT_URI/DMLC_PS_ROOT_PORT and that the scheduler runs, or raise PS_CONNECT_TIMEOUT',
    },
  );
}

/** The error of a node whose heartbeats stopped. */
export function deadNodeError(id: number, timeoutSec: number): MXNetError {
  const what =
    id === SCHEDULER
      ? 'the scheduler'
      : `${roleName(id % 2 === 0 ? Role.Server : Role.Worker)} rank ${idToRank(id)}`;
  return new MXNetError(`node ${id} (${what}) sent no heartbeat for ${timeoutSec} s; it is considered dead`, {
    op: 'pslite.heartbeat',
    params: { node: id, PS_HEARTBEAT_TIMEOUT: timeoutSec },
    hint: 'the process died or hangs: restart it with the same DMLC_* variables to rejoin (ps-lite recovery, meant for dist_async workers), or restart the job',
  });
}

/** A node joins barriers of groups that include its role only. */
export function checkBarrierGroup(role: Role, group: number): void {
  const bit = role === Role.Scheduler ? SCHEDULER : role === Role.Worker ? WORKER_GROUP : SERVER_GROUP;
  if (!(group & bit)) {
    throw new MXNetError(`a ${roleName(role)} cannot join a barrier of group ${group}`, {
      op: 'pslite.barrier',
      params: { group },
      hint: "the group must include this node's role (1 scheduler, 2 servers, 4 workers)",
    });
  }
}

/** The error of a message a peer never ACKed under PS_RESEND. */
export function resendGaveUpError(node: number, tries: number, timeoutMs: number): MXNetError {
  return new MXNetError(
    `node ${node} did not ACK a message after ${tries} tries (PS_RESEND_TIMEOUT=${timeoutMs} ms)`,
    { op: 'pslite.resend', params: { node } },
  );
}

/**
 * Data messages for an app (customer) not registered yet — a peer may send before this node's app
 * exists — held for `holdMs`, then dropped with a warning.
 */
export class HeldMessages {
  #held: { key: string; msg: Message; at: number }[] = [];

  constructor(
    private readonly holdMs: number,
    private readonly warn: (text: string) => void,
  ) {}

  /** Holds `msg` for the app `key` ("appId:customerId"); drops what waited too long. */
  hold(key: string, msg: Message, now: number): void {
    this.#held = this.#held.filter((h) => {
      if (h.at + this.holdMs >= now) return true;
      this.warn(
        `no app ${h.msg.meta.appId} customer ${h.key.split(':')[1]} after ${this.holdMs / 1000} s; message dropped`,
      );
      return false;
    });
    this.#held.push({ key, msg, at: now });
  }

  /** Removes and returns the messages held for `key`, in arrival order. */
  take(key: string): Message[] {
    const mine = this.#held.filter((h) => h.key === key).map((h) => h.msg);
    this.#held = this.#held.filter((h) => h.key !== key);
    return mine;
  }
}

/** ps-lite's `GetNodeIDs`: the ids of a node id or a sum of groups (workers, servers, scheduler). */
export function groupNodeIds(group: number, numServers: number, numWorkers: number): number[] {
  if (group >= 8) {
    const isServer = group % 2 === 0;
    if (idToRank(group) < (isServer ? numServers : numWorkers)) return [group];
  } else if (group >= 1) {
    const ids: number[] = [];
    if (group & WORKER_GROUP) for (let r = 0; r < numWorkers; r++) ids.push(9 + 2 * r);
    if (group & SERVER_GROUP) for (let r = 0; r < numServers; r++) ids.push(8 + 2 * r);
    if (group & SCHEDULER) ids.push(SCHEDULER);
    return ids;
  }
  throw new MXNetError(`node or group ${group} does not exist`, {
    op: 'pslite.nodeIds',
    params: { group, numServers, numWorkers },
    hint: 'use 1 (scheduler), 2 (servers), 4 (workers), a sum of them, or an id 8+2·rank / 9+2·rank',
  });
}
