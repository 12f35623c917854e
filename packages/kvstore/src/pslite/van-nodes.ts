/**
 * Who is in the job as one node sees it, kept apart from the van's messaging so both stay readable:
 * ps-lite's `connected_nodes_` (address → id), the scheduler's node list and id assignment, the last
 * heartbeat of each peer, the nodes known dead and why, and ps-lite's recovery: a node registering
 * after the start takes the id of a dead node of its role (`is_recovery`, `UpdateLocalID`), and
 * every node forgets that id's death when the scheduler announces the replacement.
 */
import { MXNetError } from '@mx/base';
import { Role } from './api.js';
import type { NodeInfo } from './codec.js';
import { sortNodesLikePsLite } from './van-parts.js';

const address = (n: NodeInfo) => `${n.hostname}:${n.port}`;

export class NodeTable {
  /** Scheduler: every registered node (with ids once assigned; recovered nodes replace the dead). */
  readonly registered: NodeInfo[] = [];
  /** Scheduler: nodes that registered after the start and wait for a node of their role to die. */
  readonly waiting: NodeInfo[] = [];
  /** Peers this node has a socket to, by address. */
  readonly connected = new Map<string, number>();
  /** Last heartbeat (ms) per node id. */
  readonly heartbeats = new Map<number, number>();
  /** Nodes known dead, with the error that says why. */
  readonly dead = new Map<number, MXNetError>();

  /** Whether this node has a socket to `node`'s address. */
  isLinked(node: NodeInfo): boolean {
    return this.connected.has(address(node));
  }

  /** Records a socket to `node` (its address now names its id, an old one is forgotten) and a beat now. */
  link(node: NodeInfo, now: number): void {
    for (const [addr, id] of this.connected) if (id === node.id) this.connected.delete(addr);
    this.connected.set(address(node), node.id);
    this.heartbeats.set(node.id, now);
  }

  /**
   * Scheduler: ps-lite's id assignment over the registered nodes (sorted as ps-lite sorts them;
   * servers 8 + 2·rank, workers 9 + 2·rank). Returns the error when the roles do not add up.
   */
  assignIds(numServers: number, numWorkers: number): MXNetError | undefined {
    sortNodesLikePsLite(this.registered);
    let servers = 0;
    let workers = 0;
    for (const n of this.registered) n.id = n.role === Role.Server ? 8 + 2 * servers++ : 9 + 2 * workers++;
    if (servers === numServers && workers === numWorkers) return undefined;
    return new MXNetError(
      `registered ${servers} servers and ${workers} workers, expected DMLC_NUM_SERVER=${numServers} and DMLC_NUM_WORKER=${numWorkers}`,
      { op: 'pslite.start', hint: 'give every process the same DMLC_NUM_SERVER / DMLC_NUM_WORKER' },
    );
  }

  /**
   * Scheduler: `node` registered after the start (ps-lite's "some node dies and restarts"). It takes
   * the place and id of the first dead node of its role, flagged `isRecovery`; that id is no longer
   * dead. Returns the new record, or undefined when no node of its role is dead (it is kept in
   * `waiting` until one is: a restart may be faster than the heartbeat timeout).
   */
  recover(node: NodeInfo): NodeInfo | undefined {
    const i = this.registered.findIndex((n) => n.role === node.role && this.dead.has(n.id));
    if (i < 0) {
      if (!this.waiting.some((w) => address(w) === address(node))) this.waiting.push(node);
      return undefined;
    }
    const rec: NodeInfo = { ...node, id: (this.registered[i] as NodeInfo).id, isRecovery: true };
    this.registered[i] = rec;
    this.dead.delete(rec.id);
    const w = this.waiting.findIndex((n) => address(n) === address(node));
    if (w >= 0) this.waiting.splice(w, 1);
    return rec;
  }

  /** Any node: `node` replaced a dead one (announced by the scheduler): its id is alive again. */
  revive(node: NodeInfo, now: number): void {
    this.dead.delete(node.id);
    this.link(node, now);
  }
}
