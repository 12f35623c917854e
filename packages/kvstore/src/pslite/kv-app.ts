/**
 * ps-lite's apps over a {@link PsPostoffice}: `KVWorker<char>` (a request is sliced by the servers'
 * key ranges, one message per server, answers merged in key order), `KVServer<char>` and
 * `SimpleApp` (head + body commands). Each app is one ps-lite customer: requests carry its app id,
 * customer id and a per-customer timestamp (the index of the request in its tracker), and answers
 * are matched by that timestamp, as in ps-lite, so C++ peers see the same messages.
 *
 * Like ps-lite's KVWorker/KVServer, both KV apps are SimpleApps too: `simpleApp` sends and handles
 * commands on the same customer (MXNet sends its controller commands that way).
 */
import { MXNetError } from '@mx/base';
import { mergeAnswers } from './answers.js';
import type { KVMeta, KVPairs, KVServerApi, KVWorkerApi, SimpleAppApi, SimpleAppHost } from './api.js';
import { Role } from './api.js';
import {
  addData,
  bytesOf,
  DataType,
  emptyMeta,
  K_EMPTY,
  keysFromBytes,
  lensFromBytes,
  type Message,
} from './codec.js';
import { type DeferredRequest, PendingRequests } from './pending.js';
import type { Customer, PsPostoffice } from './van.js';

type CommandHandle = (head: number, body: Uint8Array, sender: number) => void | Promise<void>;

/** A customer with SimpleApp's request/response handling; the KV apps extend it. */
export class SimpleApp implements SimpleAppApi, Customer {
  protected readonly pending: PendingRequests;
  private commandHandle: CommandHandle = () => undefined;

  constructor(
    readonly po: PsPostoffice,
    readonly appId = 0,
    readonly customerId = 0,
  ) {
    this.pending = new PendingRequests(po);
    po.addCustomer(appId, this.customerIdForDispatch(), this);
  }

  /** The key the van dispatches on (servers and the scheduler use the app id). */
  protected customerIdForDispatch(): number {
    return this.po.role === Role.Worker ? this.customerId : this.appId;
  }

  /** This app as a SimpleApp (for KV apps: the same customer, as in ps-lite). */
  get simpleApp(): SimpleAppApi {
    return this;
  }

  async request(head: number, body: Uint8Array | string, recvId: number): Promise<void> {
    const ids = this.po.nodeIds(recvId);
    const req = this.pending.open(ids, `command ${head}`);
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    for (const r of ids) {
      const msg: Message = { meta: emptyMeta(), data: [] };
      msg.meta.head = head;
      if (bytes.length) msg.meta.body = bytes;
      msg.meta.timestamp = req.timestamp;
      msg.meta.request = true;
      msg.meta.simpleApp = true;
      msg.meta.appId = this.appId;
      msg.meta.customerId = this.customerId;
      msg.meta.recver = r;
      this.po.send(msg);
    }
    await req.done;
  }

  setRequestHandle(handle: CommandHandle): void {
    this.commandHandle = handle;
  }

  accept(msg: Message): void {
    if (msg.meta.simpleApp) this.processCommand(msg);
    else this.processData(msg);
  }

  nodeFailed(ids: readonly number[], error: MXNetError): void {
    this.pending.failPeers(ids, error);
  }

  /** Removes this customer from its node. */
  close(): void {
    this.po.removeCustomer(this.appId, this.customerIdForDispatch());
  }

  protected processData(msg: Message): void {
    throw new MXNetError(`SimpleApp ${this.appId} got a KV message from node ${msg.meta.sender}`, {
      op: 'pslite.SimpleApp',
    });
  }

  private processCommand(msg: Message): void {
    const m = msg.meta;
    if (!m.request) {
      this.pending.answer(m.timestamp, m.sender, undefined);
      return;
    }
    const respond = () => {
      const res: Message = { meta: emptyMeta(), data: [] };
      res.meta.head = m.head;
      res.meta.timestamp = m.timestamp;
      res.meta.request = false;
      res.meta.simpleApp = true;
      res.meta.appId = this.appId;
      res.meta.customerId = m.customerId;
      res.meta.recver = m.sender;
      this.po.send(res);
    };
    let out: void | Promise<void>;
    try {
      out = this.commandHandle(m.head === K_EMPTY ? 0 : m.head, m.body, m.sender);
    } catch (e) {
      respond();
      throw e;
    }
    if (out && typeof (out as Promise<void>).then === 'function')
      (out as Promise<void>).then(respond, respond);
    else respond();
  }
}

function checkPairs(kv: KVPairs, op: string, needVals: boolean): void {
  const n = kv.keys.length;
  // ps-lite's slicer needs the keys grouped by server, in range order (send checks that); within
  // one server's range any order goes (MXNet's compressed push puts its size key after the data).
  if (!needVals) return;
  if (kv.lens.length !== 0 && kv.lens.length !== n) {
    throw new MXNetError(`lens has ${kv.lens.length} entries for ${n} keys`, {
      op,
      hint: 'give one length per key',
    });
  }
  const total = kv.lens.length ? kv.lens.reduce((a, b) => a + b, 0) : kv.vals.length;
  if (
    total !== kv.vals.length ||
    kv.lens.some((l) => l < 0) ||
    (kv.lens.length === 0 && n > 0 && kv.vals.length % n !== 0)
  ) {
    throw new MXNetError(`vals has ${kv.vals.length} bytes, which the lens do not add up to`, {
      op,
      params: { keys: n, vals: kv.vals.length },
    });
  }
}

/** `ps::KVWorker<char>`. */
export class KVWorker extends SimpleApp implements KVWorkerApi, SimpleAppHost {
  async zpush(kv: KVPairs, cmd = 0, priority = 0): Promise<void> {
    checkPairs(kv, 'KVWorker.zpush', true);
    await this.sendKV(kv, true, false, cmd, priority);
  }

  async zpull(keys: BigUint64Array, cmd = 0, priority = 0, into?: Uint8Array): Promise<KVPairs> {
    const kv = { keys, vals: new Uint8Array(0), lens: new Int32Array(0) };
    checkPairs(kv, 'KVWorker.zpull', false);
    return mergeAnswers(keys, await this.sendKV(kv, false, true, cmd, priority), into);
  }

  async zpushPull(kv: KVPairs, cmd = 0, priority = 0, into?: Uint8Array): Promise<KVPairs> {
    checkPairs(kv, 'KVWorker.zpushPull', true);
    return mergeAnswers(kv.keys, await this.sendKV(kv, true, true, cmd, priority), into);
  }

  /** ps-lite's `KVWorker::Send` with the default slicer. */
  private sendKV(
    kv: KVPairs,
    push: boolean,
    pull: boolean,
    cmd: number,
    priority: number,
  ): Promise<(KVPairs | undefined)[]> {
    const ranges = this.po.serverKeyRanges();
    const servers: number[] = [];
    const slices: { server: number; from: number; to: number; vFrom: number; vTo: number }[] = [];
    const n = kv.keys.length;
    const width = !kv.lens.length && n > 0 ? kv.vals.length / n : 0;
    let k = 0;
    let v = 0;
    for (let i = 0; i < ranges.length; i++) {
      const r = ranges[i] as { begin: bigint; end: bigint };
      const from = k;
      while (k < n && (kv.keys[k] as bigint) < r.end) {
        if ((kv.keys[k] as bigint) < r.begin)
          throw new MXNetError(`key ${kv.keys[k]} (at ${k}) follows keys of a later server's range`, {
            op: 'KVWorker.send',
            hint: "group the keys by server, in the servers' key-range order (ps-lite's slicer)",
          });
        v += kv.lens.length ? (kv.lens[k] as number) : width;
        k++;
      }
      if (k > from) {
        const server = 8 + 2 * i;
        servers.push(server);
        const vFrom = kv.lens.length ? v - sum(kv.lens, from, k) : from * width;
        slices.push({ server, from, to: k, vFrom, vTo: v });
      }
    }
    if (k < n) {
      throw new MXNetError(`key ${kv.keys[k]} is beyond the last server's range`, {
        op: 'KVWorker.send',
        hint: `keys must be below ${ranges.at(-1)?.end}`,
      });
    }
    for (const s of servers) {
      const err = this.po.deadError(s);
      if (err) return Promise.reject(err);
    }
    const req: DeferredRequest = this.pending.open(servers, push ? (pull ? 'pushpull' : 'push') : 'pull');
    for (const s of slices) {
      const msg: Message = { meta: emptyMeta(), data: [] };
      msg.meta.appId = this.appId;
      msg.meta.customerId = this.customerId;
      msg.meta.request = true;
      msg.meta.push = push;
      msg.meta.pull = pull;
      msg.meta.head = cmd;
      msg.meta.timestamp = req.timestamp;
      msg.meta.recver = s.server;
      msg.meta.priority = priority;
      addData(msg, bytesOf(kv.keys.subarray(s.from, s.to)), DataType.UINT64);
      addData(msg, kv.vals.subarray(s.vFrom, s.vTo), DataType.CHAR);
      if (kv.lens.length) addData(msg, bytesOf(kv.lens.subarray(s.from, s.to)), DataType.INT32);
      this.po.send(msg);
    }
    return req.done;
  }

  protected override processData(msg: Message): void {
    const m = msg.meta;
    if (m.request)
      throw new MXNetError(`a worker got a KV request from node ${m.sender}`, { op: 'KVWorker' });
    let part: KVPairs | undefined;
    if (m.pull) {
      if (msg.data.length < 2)
        throw new MXNetError(`a pull answer from node ${m.sender} has ${msg.data.length} data frames`, {
          op: 'KVWorker',
        });
      const keys = keysFromBytes(msg.data[0] as Uint8Array);
      const vals = msg.data[1] as Uint8Array;
      let lens: Int32Array;
      if (msg.data.length > 2) lens = lensFromBytes(msg.data[2] as Uint8Array);
      else {
        const w = keys.length ? vals.length / keys.length : 0;
        if (!Number.isInteger(w))
          throw new MXNetError(
            `node ${m.sender} answered ${vals.length} bytes for ${keys.length} keys without lens`,
            { op: 'KVWorker' },
          );
        lens = new Int32Array(keys.length).fill(w);
      }
      if (lens.length !== keys.length)
        throw new MXNetError(`node ${m.sender} answered ${keys.length} keys with ${lens.length} lens`, {
          op: 'KVWorker',
        });
      part = { keys, vals, lens };
    }
    this.pending.answer(m.timestamp, m.sender, part);
  }
}

function sum(a: Int32Array, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += a[i] as number;
  return s;
}

type KVHandle = (meta: KVMeta, data: KVPairs, server: KVServerApi) => void;

/** `ps::KVServer<char>`: app id = customer id. */
export class KVServer extends SimpleApp implements KVServerApi, SimpleAppHost {
  private handle: KVHandle | undefined;
  /** Requests that arrived before `setRequestHandle` (a C++ worker may push right after the start). */
  private early: [KVMeta, KVPairs][] = [];

  constructor(po: PsPostoffice, appId = 0) {
    super(po, appId, appId);
  }

  /** Sets the KV request handler (`set_request_handle`); commands use `simpleApp.setRequestHandle`. */
  override setRequestHandle(handle: KVHandle | CommandHandle): void {
    this.handle = handle as KVHandle;
    for (const [meta, data] of this.early.splice(0)) this.handle(meta, data, this);
  }

  /** The command side of this server (ps-lite: the SimpleApp base of KVServer). */
  override get simpleApp(): SimpleAppApi {
    return {
      request: (head, body, recvId) => SimpleApp.prototype.request.call(this, head, body, recvId),
      setRequestHandle: (h) => SimpleApp.prototype.setRequestHandle.call(this, h),
    };
  }

  response(meta: KVMeta, res?: KVPairs): void {
    const msg: Message = { meta: emptyMeta(), data: [] };
    msg.meta.appId = this.appId;
    msg.meta.customerId = meta.customerId;
    msg.meta.request = false;
    msg.meta.push = meta.push;
    msg.meta.pull = meta.pull;
    msg.meta.head = meta.cmd;
    msg.meta.timestamp = meta.timestamp;
    msg.meta.recver = meta.sender;
    if (res?.keys.length) {
      addData(msg, bytesOf(res.keys), DataType.UINT64);
      addData(msg, res.vals, DataType.CHAR);
      if (res.lens.length) addData(msg, bytesOf(res.lens), DataType.INT32);
    }
    this.po.send(msg);
  }

  protected override processData(msg: Message): void {
    const m = msg.meta;
    if (!m.request)
      throw new MXNetError(`a server got a KV answer from node ${m.sender}`, { op: 'KVServer' });
    const meta: KVMeta = {
      cmd: m.head,
      push: m.push,
      pull: m.pull,
      sender: m.sender,
      timestamp: m.timestamp,
      customerId: m.customerId,
    };
    let data: KVPairs = { keys: new BigUint64Array(0), vals: new Uint8Array(0), lens: new Int32Array(0) };
    const n = msg.data.length;
    if (n) {
      if (n !== 2 && n !== 3)
        throw new MXNetError(
          `a KV request from node ${m.sender} has ${n} data frames (ps-lite: keys, vals[, lens])`,
          { op: 'KVServer' },
        );
      const keys = keysFromBytes(msg.data[0] as Uint8Array);
      const vals = msg.data[1] as Uint8Array;
      let lens = n === 3 ? lensFromBytes(msg.data[2] as Uint8Array) : new Int32Array(0);
      if (n === 3 && lens.length !== keys.length)
        throw new MXNetError(
          `a KV request from node ${m.sender} has ${keys.length} keys but ${lens.length} lens`,
          { op: 'KVServer' },
        );
      if (n === 2 && keys.length) {
        const w = vals.length / keys.length;
        if (m.push && !Number.isInteger(w))
          throw new MXNetError(
            `a push from node ${m.sender} has ${vals.length} bytes for ${keys.length} keys without lens`,
            { op: 'KVServer' },
          );
        lens = new Int32Array(keys.length).fill(m.push ? w : 0);
      }
      if (m.push && lens.reduce((a, b) => a + b, 0) !== vals.length)
        throw new MXNetError(`a push from node ${m.sender}: lens do not add up to ${vals.length} bytes`, {
          op: 'KVServer',
        });
      data = { keys, vals, lens };
    }
    if (this.handle) this.handle(meta, data, this);
    else this.early.push([meta, data]);
  }
}

/** The apps a distributed-store worker uses: ps-lite's `KVWorker<char>(0, 0)` and its SimpleApp side. */
export function workerApps(node: PsPostoffice): { node: PsPostoffice; worker: KVWorker; app: SimpleAppApi } {
  const worker = new KVWorker(node, 0, 0);
  return { node, worker, app: worker.simpleApp };
}

/** The apps a distributed-store server uses: ps-lite's `KVServer<char>(0)` and its SimpleApp side. */
export function serverApps(node: PsPostoffice): { node: PsPostoffice; server: KVServer; app: SimpleAppApi } {
  const server = new KVServer(node, 0);
  return { node, server, app: server.simpleApp };
}
