/**
 * What the van needs from a network: one receiving endpoint and one outgoing channel per peer,
 * frames in, frames out. ps-lite's ZMQVan is the one implementation here (zmq-transport.ts: a
 * ROUTER to receive, a DEALER per peer whose identity `ps<id>` names the sender); a WebSocket van
 * can implement the same interface later. Nothing in this file loads a native module, so browsers
 * can import the van and apps.
 */

/** Frames as they arrived: `identity` is the peer's routing identity, `frames` are [meta, data…]. */
export type ReceiveHandler = (identity: Uint8Array, frames: Uint8Array[]) => void;

/** A message transport for the van. */
export interface Transport {
  /**
   * Starts receiving at `host:port` (port 0 or undefined: any free port). With `retries` > 0 a
   * port that is taken is replaced by a free one, as ps-lite's Bind does. Resolves with the port.
   */
  bind(host: string, port: number | undefined, retries: number): Promise<number>;
  /** Sets where received frames go; frames that arrive earlier are held. */
  onReceive(handler: ReceiveHandler): void;
  /**
   * Opens (or replaces) the outgoing channel to `peer` at `host:port`; `identity` is what the peer
   * sees as the sender (null: none, as before the scheduler assigned our id).
   */
  connect(peer: number, host: string, port: number, identity: string | null): void;
  /** Whether the channel to `peer` ever reached it (for error messages). */
  reached(peer: number): boolean;
  /** The address the channel to `peer` uses, e.g. `tcp://127.0.0.1:9000`. */
  address(peer: number): string | undefined;
  /** Queues `frames` to `peer`; rejects if there is no channel or the transport closed. */
  send(peer: number, frames: Uint8Array[]): Promise<void>;
  /** Closes every socket (pending sends are dropped). */
  close(): Promise<void>;
}

/** Creates a transport; the van calls it once per node. */
export type TransportFactory = () => Promise<Transport>;
