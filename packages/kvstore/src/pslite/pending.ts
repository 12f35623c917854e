/**
 * ps-lite's Customer request tracker: every request gets the next timestamp of its customer and
 * waits for one answer per receiver; answers are matched by (timestamp, sender). Unlike ps-lite,
 * a request also knows *which* peers it waits on, so a peer reported dead fails exactly the
 * requests waiting on it (with the van's MXNetError naming the node) instead of hanging them.
 */
import { MXNetError } from '@mx/base';
import type { KVPairs } from './api.js';
import { deferred } from './util.js';

/** An open request. */
export interface DeferredRequest {
  readonly timestamp: number;
  /** The answers' data in the order of the peers given to `open`. */
  readonly done: Promise<(KVPairs | undefined)[]>;
}

interface Entry {
  peers: number[];
  answers: (KVPairs | undefined)[];
  answered: boolean[];
  left: number;
  what: string;
  resolve(v: (KVPairs | undefined)[]): void;
  reject(e: unknown): void;
}

/** Where a tracker asks whether a peer is already known dead. */
export interface PeerHealth {
  deadError(id: number): MXNetError | undefined;
}

/** One customer's requests in flight. */
export class PendingRequests {
  private next = 0;
  private readonly open_ = new Map<number, Entry>();

  constructor(private readonly health: PeerHealth) {}

  /** Opens a request to `peers`; with none it is done at once (ps-lite: all slices skipped). */
  open(peers: readonly number[], what: string): DeferredRequest {
    const timestamp = this.next++;
    const d = deferred<(KVPairs | undefined)[]>();
    if (peers.length === 0) {
      d.resolve([]);
      return { timestamp, done: d.promise };
    }
    for (const p of peers) {
      const err = this.health.deadError(p);
      if (err) {
        d.reject(err);
        return { timestamp, done: d.promise };
      }
    }
    this.open_.set(timestamp, {
      peers: [...peers],
      answers: peers.map(() => undefined),
      answered: peers.map(() => false),
      left: peers.length,
      what,
      resolve: d.resolve,
      reject: d.reject,
    });
    return { timestamp, done: d.promise };
  }

  /** Records `sender`'s answer to request `timestamp`. */
  answer(timestamp: number, sender: number, data: KVPairs | undefined): void {
    const e = this.open_.get(timestamp);
    const i = e ? e.peers.indexOf(sender) : -1;
    if (!e || i < 0 || e.answered[i]) {
      throw new MXNetError(`an unexpected answer from node ${sender} to request ${timestamp}`, {
        op: 'pslite.answer',
        params: { timestamp, sender },
      });
    }
    e.answered[i] = true;
    e.answers[i] = data;
    if (--e.left === 0) {
      this.open_.delete(timestamp);
      e.resolve(e.answers);
    }
  }

  /** Fails every request still waiting on one of `ids`. */
  failPeers(ids: readonly number[], error: MXNetError): void {
    for (const [ts, e] of this.open_) {
      const waiting = e.peers.filter((p, i) => !e.answered[i] && ids.includes(p));
      if (waiting.length === 0) continue;
      this.open_.delete(ts);
      e.reject(
        new MXNetError(`${e.what} request ${ts} cannot complete: ${error.message.split('\n')[0]}`, {
          op: error.op ?? 'pslite',
          params: { timestamp: ts, waitingOn: waiting },
          hint: error.hint,
          cause: error,
        }),
      );
    }
  }

  /** Requests in flight. */
  get size(): number {
    return this.open_.size;
  }
}
