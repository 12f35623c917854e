/**
 * ps-lite's ZMQVan sockets on zeromq.js: a ROUTER bound at `tcp://host:port` receives
 * `[identity, meta, data…]`; a DEALER per peer sends `[meta, data…]` with ZMQ_IDENTITY `ps<myId>`
 * (no identity before the scheduler assigned one), so the receiving side learns the sender from the
 * identity frame, exactly as the C++ van does. zeromq is imported lazily by a computed specifier so
 * bundles for browsers never pull in the native addon. zeromq.js allows one send in flight per
 * socket, so each DEALER has a promise chain.
 */
import { MXNetError } from '@mx/base';
import type { ReceiveHandler, Transport } from './transport.js';

interface ZmqSocket {
  linger: number;
  close(): void;
  readonly closed: boolean;
}
interface ZmqRouter extends ZmqSocket {
  bind(address: string): Promise<void>;
  readonly lastEndpoint: string | null;
  receive(): Promise<Buffer[]>;
}
interface ZmqDealer extends ZmqSocket {
  connect(address: string): void;
  send(frames: Uint8Array[]): Promise<void>;
  readonly events: { on(type: 'connect', listener: () => void): unknown };
}
interface ZmqModule {
  Router: new (opts?: Record<string, unknown>) => ZmqRouter;
  Dealer: new (opts?: Record<string, unknown>) => ZmqDealer;
}

/** Loads zeromq (Node only). */
export async function loadZeromq(): Promise<ZmqModule> {
  const specifier = 'zeromq';
  try {
    return (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as ZmqModule;
  } catch (e) {
    throw new MXNetError('cannot load zeromq, the transport of ps-lite nodes in Node', {
      op: 'pslite.ZmqTransport',
      cause: e,
      hint: 'install it (npm install zeromq@6.8.0); browsers need another transport',
    });
  }
}

interface Peer {
  socket: ZmqDealer;
  address: string;
  reached: boolean;
  chain: Promise<void>;
}

/** The ZeroMQ transport (ps-lite's `ZMQVan`). */
export class ZmqTransport implements Transport {
  private readonly zmq: ZmqModule;
  private router: ZmqRouter | undefined;
  private readonly peers = new Map<number, Peer>();
  private handler: ReceiveHandler | undefined;
  private readonly held: [Uint8Array, Uint8Array[]][] = [];
  private closed = false;

  private constructor(zmq: ZmqModule) {
    this.zmq = zmq;
  }

  /** Loads zeromq and creates the transport. */
  static async create(): Promise<ZmqTransport> {
    return new ZmqTransport(await loadZeromq());
  }

  async bind(host: string, port: number | undefined, retries: number): Promise<number> {
    const router = new this.zmq.Router({ linger: 0 });
    let lastError: unknown;
    for (let i = 0; i <= retries; i++) {
      const p = i === 0 && port ? String(port) : '*';
      try {
        await router.bind(`tcp://${host}:${p}`);
        lastError = undefined;
        break;
      } catch (e) {
        lastError = e;
      }
    }
    if (lastError !== undefined) {
      router.close();
      throw new MXNetError(`cannot bind tcp://${host}:${port ?? '*'}: ${(lastError as Error).message}`, {
        op: 'pslite.bind',
        params: { host, port },
        cause: lastError,
        hint: 'choose a free port / an address of this machine (DMLC_PS_ROOT_PORT for the scheduler, PORT and DMLC_NODE_HOST for the others)',
      });
    }
    this.router = router;
    const endpoint = router.lastEndpoint ?? '';
    const bound = Number(endpoint.slice(endpoint.lastIndexOf(':') + 1));
    void this.receiveLoop(router);
    return bound;
  }

  private async receiveLoop(router: ZmqRouter): Promise<void> {
    while (!this.closed && !router.closed) {
      let frames: Buffer[];
      try {
        frames = await router.receive();
      } catch {
        return; // closed
      }
      const [identity, ...rest] = frames.map((f) => new Uint8Array(f.buffer, f.byteOffset, f.byteLength));
      if (identity === undefined) continue;
      if (this.handler) this.handler(identity, rest);
      else this.held.push([identity, rest]);
    }
  }

  onReceive(handler: ReceiveHandler): void {
    this.handler = handler;
    for (const [id, frames] of this.held.splice(0)) handler(id, frames);
  }

  connect(peer: number, host: string, port: number, identity: string | null): void {
    const old = this.peers.get(peer);
    if (old) old.socket.close();
    const opts: Record<string, unknown> = { linger: 0 };
    if (identity !== null) opts.routingId = identity;
    const socket = new this.zmq.Dealer(opts);
    const address = `tcp://${host}:${port}`;
    const entry: Peer = { socket, address, reached: false, chain: Promise.resolve() };
    socket.events.on('connect', () => {
      entry.reached = true;
    });
    try {
      socket.connect(address);
    } catch (e) {
      socket.close();
      throw new MXNetError(`cannot connect to node ${peer} at ${address}: ${(e as Error).message}`, {
        op: 'pslite.connect',
        params: { peer, address },
        cause: e,
      });
    }
    this.peers.set(peer, entry);
  }

  reached(peer: number): boolean {
    return this.peers.get(peer)?.reached ?? false;
  }

  address(peer: number): string | undefined {
    return this.peers.get(peer)?.address;
  }

  send(peer: number, frames: Uint8Array[]): Promise<void> {
    const entry = this.peers.get(peer);
    if (!entry || this.closed) {
      return Promise.reject(
        new MXNetError(`there is no socket to node ${peer}`, { op: 'pslite.send', params: { peer } }),
      );
    }
    const socket = entry.socket;
    const next = entry.chain.then(() => socket.send(frames));
    entry.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.peers.values()) p.socket.close();
    this.peers.clear();
    this.router?.close();
  }
}
