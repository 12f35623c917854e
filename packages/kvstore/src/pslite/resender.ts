/**
 * ps-lite's Resender (PS_RESEND): every message sent is kept until the receiver ACKs its signature;
 * a message not ACKed after `timeout·(1+retries)` ms is sent again; a receiver ACKs everything and
 * drops what it saw before. The signature is ps-lite's 64-bit key
 * `app_id:16 | sender:8 | recver:8 | timestamp<<1 | request`, computed the same way on both sides
 * so ACKs interoperate with the C++ van. Where ps-lite aborts the process after 10 tries, we hand
 * the message to `onGiveUp` so the van fails the requests waiting on that peer.
 */
import { Command, K_EMPTY, type Message } from './codec.js';

/** ps-lite's message signature (`Resender::GetKey`). */
export function messageSignature(msg: Message, myId: number): bigint {
  const m = msg.meta;
  const app = BigInt(m.appId & 0xffff);
  const sender = BigInt((m.sender === K_EMPTY ? myId : m.sender) & 0xff);
  const recver = BigInt(m.recver & 0xff);
  // ps-lite computes `timestamp << 1` as a 32-bit int, then widens it (sign-extending) into the key.
  const ts = BigInt.asUintN(64, BigInt((m.timestamp << 1) | 0));
  return (app << 48n) | (sender << 40n) | (recver << 32n) | ts | (m.request ? 1n : 0n);
}

interface Entry {
  msg: Message;
  sent: number;
  retries: number;
}

/** Hooks the resender needs from its van. */
export interface ResenderHost {
  myId(): number;
  /** Sends without registering again. */
  resend(msg: Message): void;
  /** Sends an ACK carrying `sig` to `peer`. */
  ack(peer: number, sig: bigint): void;
  /** Called once per message that was never ACKed after the last retry. */
  onGiveUp(msg: Message, retries: number): void;
  warn(text: string): void;
  now(): number;
}

/** ps-lite's Resender. */
export class Resender {
  private readonly sendBuffer = new Map<bigint, Entry>();
  private readonly acked = new Set<bigint>();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxRetries: number,
    private readonly host: ResenderHost,
  ) {
    this.timer = setInterval(() => this.monitor(), timeoutMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Remembers an outgoing message (ACKs are not tracked). */
  addOutgoing(msg: Message): void {
    if (msg.meta.control.cmd === Command.ACK || msg.meta.timestamp === K_EMPTY) return;
    const key = messageSignature(msg, this.host.myId());
    if (this.sendBuffer.has(key)) return;
    this.sendBuffer.set(key, { msg, sent: this.host.now(), retries: 0 });
  }

  /** Handles an incoming message; true when it is an ACK or a duplicate (then the van drops it). */
  addIncoming(msg: Message): boolean {
    const cmd = msg.meta.control.cmd;
    if (cmd === Command.TERMINATE) return false;
    if (cmd === Command.ACK) {
      this.sendBuffer.delete(msg.meta.control.msgSig);
      return true;
    }
    if (msg.meta.timestamp === K_EMPTY || msg.meta.sender === K_EMPTY) return false;
    const key = messageSignature(msg, this.host.myId());
    const duplicated = this.acked.has(key);
    if (!duplicated) this.acked.add(key);
    this.host.ack(msg.meta.sender, key);
    if (duplicated) this.host.warn(`duplicated message from node ${msg.meta.sender} dropped`);
    return duplicated;
  }

  /** Forgets every message to `peer` (it is gone). */
  forgetPeer(peer: number): void {
    for (const [k, e] of this.sendBuffer) if (e.msg.meta.recver === peer) this.sendBuffer.delete(k);
  }

  /** How many messages wait for an ACK. */
  get pending(): number {
    return this.sendBuffer.size;
  }

  private monitor(): void {
    const now = this.host.now();
    for (const [key, e] of this.sendBuffer) {
      if (e.sent + this.timeoutMs * (1 + e.retries) >= now) continue;
      e.retries++;
      if (e.retries >= this.maxRetries) {
        this.sendBuffer.delete(key);
        this.host.onGiveUp(e.msg, e.retries);
        continue;
      }
      this.host.warn(
        `timeout waiting for the ACK of a message to node ${e.msg.meta.recver}; resend (retry=${e.retries})`,
      );
      this.host.resend(e.msg);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.sendBuffer.clear();
  }
}
