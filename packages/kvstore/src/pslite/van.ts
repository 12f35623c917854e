/**
 * ps-lite's Van and Postoffice in one object per node (`PsPostoffice`): the startup handshake
 * (ADD_NODE to the scheduler, which sorts the nodes as ps-lite does, assigns ids and broadcasts the
 * list), recovery (a node registering after the start takes a dead node's id; van-nodes.ts),
 * barriers counted by the scheduler per group, heartbeats, the resender, and dispatch of data
 * messages to the apps (customers). No process-wide singleton: a process may hold several nodes.
 *
 * Where ps-lite would hang or abort, this van fails with an MXNetError instead: a scheduler that
 * never answers (PS_CONNECT_TIMEOUT), a node whose heartbeats stop (the scheduler notices and sends
 * the NODE_FAILED extension; the others notice a silent scheduler themselves), a message never
 * ACKed under PS_RESEND; garbage frames are logged and dropped, the node keeps serving.
 */
import { MXNetError } from '@mx/base';
import { idToRank, type KeyRange, type PsNode, Role, SCHEDULER, SERVER_GROUP, WORKER_GROUP } from './api.js';
import { Barriers } from './barriers.js';
import {
  Command,
  controlMessage,
  debugString,
  K_EMPTY,
  type Message,
  MetaCodec,
  makeNode,
  type NodeInfo,
} from './codec.js';
import { type PsConfig, readPsConfig } from './env.js';
import { Resender } from './resender.js';
import type { Transport } from './transport.js';
import { deferred, firstIPv4, roleName, serverKeyRanges, withTimeout } from './util.js';
import { NodeTable } from './van-nodes.js';
import {
  type Customer,
  checkBarrierGroup,
  connectTimeoutError,
  deadNodeError,
  groupNodeIds,
  HeldMessages,
  type PostofficeOptions,
  resendGaveUpError,
} from './van-parts.js';

export type { Customer, PostofficeOptions } from './van-parts.js';

const HOLD_MS = 5000;

/** One ps-lite node: its Van and Postoffice. Create with {@link startPostoffice}. */
export class PsPostoffice implements PsNode {
  readonly config: PsConfig;
  readonly role: Role;
  readonly numWorkers: number;
  readonly numServers: number;
  /** Frames rejected by the decoder (each one logged). */
  rejectedFrames = 0;
  private readonly codec = new MetaCodec();
  private readonly log: (line: string) => void;
  private me: NodeInfo;
  private timestamp = 0;
  private ready = false;
  private stopped = false;
  private readyWait = deferred<void>();
  private readonly nodes = new NodeTable();
  private readonly barriers: Barriers;
  private readonly customers = new Map<string, Customer>();
  private readonly held = new HeldMessages(HOLD_MS, (t) => this.warn(t));
  private resender: Resender | undefined;
  private timers: ReturnType<typeof setInterval>[] = [];
  private startTime = Date.now();

  private constructor(
    config: PsConfig,
    private readonly transport: Transport,
    log: (line: string) => void,
    private readonly tap?: PostofficeOptions['tap'],
  ) {
    this.config = config;
    this.role = config.role;
    this.numWorkers = config.numWorker;
    this.numServers = config.numServer;
    this.log = log;
    const nodes = this.nodes;
    this.barriers = new Barriers(
      { nodeIds: (g) => this.nodeIds(g), deadError: (i) => nodes.dead.get(i) },
      config.recoveryTimeoutSec * 1000,
    );
    this.me =
      config.role === Role.Scheduler
        ? makeNode(Role.Scheduler, { id: SCHEDULER, hostname: config.rootUri, port: config.rootPort })
        : makeNode(config.role, { hostname: '', port: 0 });
  }

  /** Starts a node: bind, register with the scheduler, wait for the node list, then a barrier. */
  static async start(options: PostofficeOptions = {}): Promise<PsPostoffice> {
    const env =
      options.env ?? (globalThis as { process?: { env: Record<string, string> } }).process?.env ?? {};
    const config = readPsConfig(env, options.config);
    const factory =
      options.transport ?? (async () => (await import('./zmq-transport.js')).ZmqTransport.create());
    const log =
      options.log ??
      ((line: string) =>
        (globalThis as { process?: { stderr: { write(s: string): void } } }).process?.stderr.write(
          `${line}\n`,
        ));
    const po = new PsPostoffice(config, await factory(), log, options.tap);
    try {
      await po.startVan(options.customerId ?? 0, options.onBound);
      // ps-lite: a recovering node skips it (the others passed it long ago).
      if ((options.doBarrier ?? true) && !po.isRecovery)
        await po.barrier(SCHEDULER + SERVER_GROUP + WORKER_GROUP);
    } catch (e) {
      await po.close();
      throw e;
    }
    return po;
  }

  get id(): number {
    return this.me.id;
  }
  get rank(): number {
    return idToRank(this.me.id);
  }
  /** Where this node listens. */
  get hostname(): string {
    return this.me.hostname;
  }
  get port(): number {
    return this.me.port;
  }
  /** ps-lite's `is_recovery()`: this node took the place of a dead one after the job started. */
  get isRecovery(): boolean {
    return this.me.isRecovery;
  }
  get isReady(): boolean {
    return this.ready && !this.stopped;
  }
  /** ps-lite's van timestamp (`GetTimestamp`). */
  nextTimestamp(): number {
    return this.timestamp++;
  }

  serverKeyRanges(): readonly KeyRange[] {
    return serverKeyRanges(this.numServers);
  }

  /** ps-lite's `GetNodeIDs`: the ids of a node id or a sum of groups. */
  nodeIds(group: number): number[] {
    return groupNodeIds(group, this.numServers, this.numWorkers);
  }

  /** The error that made `id` dead, if it is. */
  deadError(id: number): MXNetError | undefined {
    return this.nodes.dead.get(id);
  }

  /** Registers an app's customer (ps-lite's `AddCustomer`); held messages for it are delivered. */
  addCustomer(appId: number, customerId: number, customer: Customer): void {
    const key = `${appId}:${customerId}`;
    if (this.customers.has(key)) {
      throw new MXNetError(`customer ${customerId} of app ${appId} already exists`, {
        op: 'pslite.addCustomer',
      });
    }
    this.customers.set(key, customer);
    // Held messages go out on a later turn: the app's constructor (which calls this) and its
    // `setRequestHandle` finish first.
    setTimeout(() => {
      for (const m of this.held.take(key)) this.deliver(customer, m);
    }, 0);
  }

  removeCustomer(appId: number, customerId: number): void {
    this.customers.delete(`${appId}:${customerId}`);
  }

  async barrier(group: number): Promise<void> {
    const ids = this.nodeIds(group);
    if (ids.length <= 1) return;
    checkBarrierGroup(this.role, group);
    const stopped = this.stoppedError();
    if (stopped) throw stopped;
    const wait = this.barriers.wait(group);
    const ts = this.nextTimestamp();
    const f = { request: true, barrierGroup: group, appId: 0, customerId: 0, timestamp: ts };
    this.send(controlMessage(SCHEDULER, Command.BARRIER, f));
    return wait;
  }

  deadNodes(timeoutSec: number): number[] {
    // ps-lite's GetDeadNodes (the scheduler watches every node, the others the scheduler), plus the
    // nodes this one knows dead (the scheduler's NODE_FAILED, a resend given up).
    const out = new Set(this.nodes.dead.keys());
    const now = Date.now();
    const t = timeoutSec * 1000;
    if (this.ready && timeoutSec > 0 && this.startTime + t < now) {
      const ids = this.role === Role.Scheduler ? this.nodeIds(WORKER_GROUP + SERVER_GROUP) : [SCHEDULER];
      for (const r of ids) {
        const beat = this.nodes.heartbeats.get(r);
        if (beat === undefined || beat + t < now) out.add(r);
      }
    }
    return [...out].sort((a, b) => a - b);
  }

  async finalize(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.barrier(SCHEDULER + SERVER_GROUP + WORKER_GROUP);
    } finally {
      await this.close();
    }
  }

  /** Stops at once, without the final barrier (what waits is failed); ps-lite's `Van::Stop`. */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.ready = false;
    this.vlog(1, `${this.short()} is stopping`);
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.resender?.stop();
    const err = this.stoppedError() as MXNetError;
    this.readyWait.reject(err);
    this.barriers.failAll(err);
    const everyone = this.nodeIds(SCHEDULER + SERVER_GROUP + WORKER_GROUP);
    for (const c of this.customers.values()) c.nodeFailed(everyone, err);
    await this.transport.close();
  }

  /** Sends a message (ps-lite's `Van::Send`); a message to this node is delivered locally. */
  send(msg: Message): void {
    if (this.stopped) return;
    if (msg.meta.recver === this.me.id && this.me.id !== K_EMPTY) {
      msg.meta.sender = this.me.id;
      setTimeout(() => this.process(msg), 0);
      return;
    }
    if (this.config.verbose >= 2) this.vlog(2, `send ${debugString(msg)}`);
    this.resender?.addOutgoing(msg);
    this.transmit(msg);
  }

  private transmit(msg: Message): void {
    const to = msg.meta.recver;
    this.transport.send(to, this.codec.encodeMessage(msg)).catch((e: unknown) => {
      if (!this.stopped) this.warn(`failed to send to node ${to}: ${(e as Error).message}`);
    });
  }

  // --- startup -------------------------------------------------------------------------------

  private async startVan(customerId: number, onBound?: (port: number) => void): Promise<void> {
    const c = this.config;
    this.transport.onReceive((identity, frames) => this.onFrames(identity, frames));
    if (this.role === Role.Scheduler) {
      this.me.port = await this.transport.bind(c.rootUri, c.rootPort, 0);
    } else {
      this.me.hostname = c.nodeHost ?? firstIPv4(c.interface);
      this.me.port = await this.transport.bind(this.me.hostname, c.port, 40);
      this.me.customerId = customerId;
      this.transport.connect(SCHEDULER, c.rootUri, c.rootPort, null);
    }
    this.vlog(1, `Bind to role=${roleName(this.role)}, ip=${this.me.hostname}, port=${this.me.port}`);
    onBound?.(this.me.port);
    if (this.role !== Role.Scheduler) {
      const f = { node: [this.me], timestamp: this.nextTimestamp() };
      this.transmit(controlMessage(SCHEDULER, Command.ADD_NODE, f));
    }
    await withTimeout(this.readyWait.promise, c.connectTimeoutSec * 1000, () => this.connectTimeoutError());
    this.startTime = Date.now();
    if (c.resend) {
      this.resender = new Resender(c.resendTimeoutMs, 10, {
        myId: () => this.me.id,
        resend: (m) => this.transmit(m),
        ack: (peer, sig) => {
          this.transmit(controlMessage(peer, Command.ACK, { msgSig: sig }));
        },
        onGiveUp: (m, n) =>
          this.markDead([m.meta.recver], resendGaveUpError(m.meta.recver, n, c.resendTimeoutMs)),
        warn: (t) => this.warn(t),
        now: () => Date.now(),
      });
    }
    this.startHeartbeats();
  }

  private connectTimeoutError(): MXNetError {
    const reached = this.role !== Role.Scheduler && this.transport.reached(SCHEDULER);
    return connectTimeoutError(this.config, this.me.port, this.nodes.registered.length, reached);
  }

  private startHeartbeats(): void {
    const { heartbeatIntervalSec: interval, heartbeatTimeoutSec: timeout } = this.config;
    if (interval > 0 && this.role !== Role.Scheduler) {
      const t = setInterval(() => {
        const f = { node: [this.me], timestamp: this.nextTimestamp() };
        this.send(controlMessage(SCHEDULER, Command.HEARTBEAT, f));
      }, interval * 1000);
      this.timers.push(t);
    }
    if (timeout > 0 && interval > 0) {
      const t = setInterval(() => this.checkDead(), Math.min(500, timeout * 250));
      this.timers.push(t);
    }
    for (const t of this.timers) (t as { unref?: () => void }).unref?.();
  }

  private checkDead(): void {
    const timeout = this.config.heartbeatTimeoutSec;
    for (const id of this.deadNodes(timeout))
      if (!this.nodes.dead.has(id)) this.markDead([id], deadNodeError(id, timeout));
  }

  /** Marks nodes dead: fails what waits on them, and (scheduler) tells everyone else. */
  private markDead(ids: number[], error: MXNetError): void {
    const fresh = ids.filter((i) => !this.nodes.dead.has(i));
    if (fresh.length === 0 || this.stopped) return;
    for (const i of fresh) this.nodes.dead.set(i, error);
    this.warn(error.message.split('\n')[0] as string);
    for (const i of fresh) this.resender?.forgetPeer(i);
    this.barriers.nodesDied(fresh, error, this.role === Role.Scheduler ? undefined : SCHEDULER);
    for (const c of this.customers.values()) c.nodeFailed(fresh, error);
    if (this.role === Role.Scheduler) {
      for (const r of this.nodeIds(WORKER_GROUP + SERVER_GROUP)) {
        if (this.nodes.dead.has(r)) continue;
        const node = fresh.map((id) => makeNode(id % 2 === 0 ? Role.Server : Role.Worker, { id, port: 0 }));
        const body = new TextEncoder().encode(error.message.split('\n')[0]);
        this.send(controlMessage(r, Command.NODE_FAILED, { node, body, timestamp: this.nextTimestamp() }));
      }
      for (const n of this.nodes.waiting.slice()) this.recoverNode(n);
    }
  }

  // --- receiving -----------------------------------------------------------------------------

  private onFrames(identity: Uint8Array, frames: Uint8Array[]): void {
    if (this.stopped) return;
    this.tap?.(identity, frames);
    let msg: Message;
    try {
      msg = this.codec.decodeFrames([identity, ...frames], this.me.id);
    } catch (e) {
      this.rejectedFrames++;
      this.warn(`rejected a message: ${(e as Error).message.split('\n')[0]}`);
      return;
    }
    if (this.ready && this.config.dropRate > 0 && Math.random() * 100 < this.config.dropRate) {
      this.warn(`drop message ${debugString(msg)} (PS_DROP_MSG)`);
      return;
    }
    if (this.config.verbose >= 2) this.vlog(2, `recv ${debugString(msg)}`);
    if (this.resender?.addIncoming(msg)) return;
    this.process(msg);
  }

  private process(msg: Message): void {
    try {
      const cmd = msg.meta.control.cmd;
      if (cmd === Command.EMPTY) this.processData(msg);
      else if (cmd === Command.TERMINATE) {
        if (msg.meta.sender === this.me.id) void this.close();
        else this.warn(`ignored TERMINATE from node ${msg.meta.sender} (only a node itself stops itself)`);
      } else if (cmd === Command.ADD_NODE) this.processAddNode(msg);
      else if (cmd === Command.BARRIER) this.processBarrier(msg);
      else if (cmd === Command.HEARTBEAT) this.processHeartbeat(msg);
      else if (cmd === Command.NODE_FAILED) this.processNodeFailed(msg);
      else if (cmd !== Command.ACK) this.warn(`drop unknown typed message ${debugString(msg)}`);
    } catch (e) {
      this.rejectedFrames++;
      this.warn(`dropped a message (${debugString(msg)}): ${(e as Error).message.split('\n')[0]}`);
    }
  }

  private processData(msg: Message): void {
    const m = msg.meta;
    if (m.sender === K_EMPTY || m.appId === K_EMPTY || !this.ready) {
      throw new MXNetError(
        `a data message needs a known sender and app id${this.ready ? '' : ' (and a started node)'}`,
        { op: 'pslite.recv' },
      );
    }
    const customerId = this.role === Role.Worker ? m.customerId : m.appId;
    const key = `${m.appId}:${customerId}`;
    const customer = this.customers.get(key);
    if (customer) {
      this.deliver(customer, msg);
      return;
    }
    this.held.hold(key, msg, Date.now());
  }

  private deliver(customer: Customer, msg: Message): void {
    try {
      customer.accept(msg);
    } catch (e) {
      this.rejectedFrames++;
      this.warn(
        `app ${msg.meta.appId} rejected a message from node ${msg.meta.sender}: ${(e as Error).message.split('\n')[0]}`,
      );
    }
  }

  private processAddNode(msg: Message): void {
    const nodes = msg.meta.control.node;
    if (this.role === Role.Scheduler) {
      if (msg.meta.sender !== K_EMPTY || nodes.length !== 1)
        throw new MXNetError('ADD_NODE to the scheduler must come from a new node with its own record', {
          op: 'pslite.addNode',
        });
      const node = nodes[0] as NodeInfo;
      if (node.role === Role.Scheduler || !node.hostname || !(node.port > 0 && node.port < 65536)) {
        throw new MXNetError(
          `ADD_NODE with an invalid node (role ${node.role}, ${node.hostname}:${node.port})`,
          { op: 'pslite.addNode' },
        );
      }
      if (this.ready) {
        this.recoverNode(node);
        return;
      }
      const registered = this.nodes.registered;
      registered.push({ ...node, id: K_EMPTY, isRecovery: false });
      this.vlog(
        1,
        `${roleName(node.role)} at ${node.hostname}:${node.port} registered (${registered.length}/${this.numServers + this.numWorkers})`,
      );
      if (registered.length === this.numServers + this.numWorkers) this.assignIds();
      return;
    }
    if (msg.meta.sender !== SCHEDULER)
      throw new MXNetError(`ADD_NODE from node ${msg.meta.sender}, not the scheduler`, {
        op: 'pslite.addNode',
      });
    for (const n of nodes) {
      if (n.hostname === this.me.hostname && n.port === this.me.port) this.me = { ...n };
    }
    if (this.me.id === K_EMPTY)
      throw new MXNetError('the node list from the scheduler does not contain this node', {
        op: 'pslite.addNode',
      });
    const now = Date.now();
    for (const n of nodes) {
      if (this.nodes.isLinked(n)) continue;
      // After the start, the list names a node that replaced a dead one (ps-lite's recovery).
      if (this.ready && n.isRecovery && n.id !== this.me.id) {
        this.vlog(1, `node ${n.id} rejoined from ${n.hostname}:${n.port}`);
        this.nodes.revive(n, now);
      } else this.nodes.link(n, now);
      if (n.id === this.me.id || (n.role === this.me.role && n.id !== this.me.id)) continue;
      this.transport.connect(n.id, n.hostname, n.port, `ps${this.me.id}`);
    }
    this.vlog(1, `${this.short()} is connected to others`);
    this.ready = true;
    this.readyWait.resolve();
  }

  /** The scheduler's id assignment: ps-lite's order (hostname descending, then port ascending). */
  private assignIds(): void {
    const nodes = this.nodes.registered;
    const err = this.nodes.assignIds(this.numServers, this.numWorkers);
    const now = Date.now();
    for (const n of nodes) {
      this.vlog(1, `assign rank=${n.id} to node role=${roleName(n.role)}, ip=${n.hostname}, port=${n.port}`);
      this.transport.connect(n.id, n.hostname, n.port, `ps${SCHEDULER}`);
      this.nodes.link(n, now);
    }
    if (err !== undefined) {
      this.readyWait.reject(err);
      return;
    }
    const workers = this.numWorkers;
    const servers = this.numServers;
    const list = [...nodes, { ...this.me }];
    for (const r of this.nodeIds(WORKER_GROUP + SERVER_GROUP)) {
      this.send(controlMessage(r, Command.ADD_NODE, { node: list, timestamp: this.nextTimestamp() }));
    }
    this.vlog(1, `the scheduler is connected to ${workers} workers and ${servers} servers`);
    this.ready = true;
    this.readyWait.resolve();
  }

  /**
   * The scheduler's side of ps-lite's recovery: `node` registered after the start and takes the id
   * of a dead node of its role; it gets the whole list, the live nodes just the new record (they
   * reconnect to that id). Without a dead node of its role it waits for one.
   */
  private recoverNode(node: NodeInfo): void {
    const rec = this.nodes.recover(node);
    const where = `${roleName(node.role)} at ${node.hostname}:${node.port}`;
    if (rec === undefined) {
      this.vlog(1, `${where} registered after the start; it waits for a ${roleName(node.role)} to die`);
      return;
    }
    this.warn(`${where} replaces dead node ${rec.id} (recovery)`);
    this.transport.connect(rec.id, rec.hostname, rec.port, `ps${SCHEDULER}`);
    this.nodes.revive(rec, Date.now());
    const list = [...this.nodes.registered, { ...this.me }];
    for (const r of this.nodeIds(WORKER_GROUP + SERVER_GROUP)) {
      if (r !== rec.id && this.nodes.dead.has(r)) continue;
      const node = r === rec.id ? list : [rec];
      this.send(controlMessage(r, Command.ADD_NODE, { node, timestamp: this.nextTimestamp() }));
    }
  }

  private processBarrier(msg: Message): void {
    const m = msg.meta;
    if (!m.request) {
      if (m.sender !== SCHEDULER)
        throw new MXNetError(`a barrier release from node ${m.sender}, not the scheduler`, {
          op: 'pslite.barrier',
        });
      this.barriers.release();
      return;
    }
    if (this.role !== Role.Scheduler)
      throw new MXNetError('a barrier request sent to a node that is not the scheduler', {
        op: 'pslite.barrier',
      });
    const group = m.control.barrierGroup;
    this.nodeIds(group); // an unknown group throws here
    this.vlog(1, `Barrier count for ${group} : ${this.barriers.asked(group) + 1}`);
    const ids = this.barriers.arrive(group, m.sender);
    if (ids === undefined) return;
    // Servers are released first: a released worker may push at once, and a C++ server whose van
    // gets that push before its own release blocks its receive thread waiting for its app, which
    // its main thread creates only after the release (ps-lite releases workers first).
    for (const r of [
      ...ids.filter((i) => i >= 8 && i % 2 === 0),
      ...ids.filter((i) => i < 8 || i % 2 === 1),
    ]) {
      const f = { request: false, appId: m.appId, customerId: m.customerId, timestamp: this.nextTimestamp() };
      this.send(controlMessage(r, Command.BARRIER, f));
    }
  }

  private processHeartbeat(msg: Message): void {
    const now = Date.now();
    const answer = this.role === Role.Scheduler && this.ready;
    for (const n of msg.meta.control.node) {
      this.nodes.heartbeats.set(n.id, now);
      if (answer && !this.nodes.dead.has(n.id) && msg.meta.sender === n.id) {
        const f = { node: [this.me], timestamp: this.nextTimestamp() };
        this.send(controlMessage(n.id, Command.HEARTBEAT, f));
      }
    }
  }

  private processNodeFailed(msg: Message): void {
    if (msg.meta.sender !== SCHEDULER)
      throw new MXNetError(`NODE_FAILED from node ${msg.meta.sender}, not the scheduler`, {
        op: 'pslite.nodeFailed',
      });
    const reason = new TextDecoder().decode(msg.meta.body) || 'reported dead by the scheduler';
    const ids = msg.meta.control.node.map((n) => n.id);
    this.markDead(
      ids,
      new MXNetError(`node ${ids.join(', ')} failed: ${reason}`, {
        op: 'pslite.heartbeat',
        params: { nodes: ids },
      }),
    );
  }

  // --- logging -------------------------------------------------------------------------------

  private short(): string {
    const r = this.role === Role.Server ? 'S' : this.role === Role.Worker ? 'W' : 'H';
    return this.me.id === K_EMPTY ? r : `${r}[${this.me.id}]`;
  }
  private vlog(level: number, text: string): void {
    if (this.config.verbose >= level) this.log(`[pslite ${this.short()}] ${text}`);
  }
  private warn(text: string): void {
    this.log(`[pslite ${this.short()}] warning: ${text}`);
  }
  private stoppedError(): MXNetError | undefined {
    return this.stopped
      ? new MXNetError(`node ${this.short()} has stopped`, { op: 'pslite', hint: 'start a new node' })
      : undefined;
  }
}

/** Starts a ps-lite node (ps-lite's `ps::Start`). */
export function startPostoffice(options: PostofficeOptions = {}): Promise<PsPostoffice> {
  return PsPostoffice.start(options);
}
