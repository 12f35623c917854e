/**
 * ps-lite's wire format: one ZeroMQ multipart message is `[meta, data…]` where `meta` is the
 * protobuf `ps.PBMeta` of dmlc/ps-lite's `src/meta.proto` and every data frame is the raw bytes of
 * an `SArray` (keys as little-endian uint64, vals as bytes, lens as little-endian int32).
 *
 * The schema is built with protobufjs's reflection API (no .proto read at run time, no codegen)
 * with the field numbers, proto2 rules and defaults of meta.proto. `encodeMeta` sets the same
 * fields ps-lite's `Van::PackMeta` sets (head, push, pull, request, simple_app, priority and
 * customer_id always, never data_size; app_id/timestamp/body only when present), so our bytes equal
 * the reference's for the same message. Decoding never trusts its input: a frame that is not a
 * PBMeta, or holds values ps-lite could not have sent, is an MXNetError.
 */
import { MXNetError } from '@mx/base';
import protobuf from 'protobufjs';
import type { Role } from './api.js';

/** ps-lite's `Meta::kEmpty` / `Node::kEmpty` (INT_MAX): "not set". */
export const K_EMPTY = 2147483647;

/** ps-lite's `Control::Command`, plus one extension of ours (see `NODE_FAILED`). */
export const Command = {
  EMPTY: 0,
  TERMINATE: 1,
  ADD_NODE: 2,
  BARRIER: 3,
  ACK: 4,
  HEARTBEAT: 5,
  /**
   * Extension (not in ps-lite): the scheduler tells the others that heartbeats of the listed nodes
   * stopped, so their pending requests and barriers fail instead of hanging. A C++ node logs
   * "Drop unknown typed message" and ignores it.
   */
  NODE_FAILED: 100,
} as const;
export type Command = (typeof Command)[keyof typeof Command];

const COMMAND_NAMES: Record<number, string> = {
  0: 'EMPTY',
  1: 'TERMINATE',
  2: 'ADD_NODE',
  3: 'BARRIER',
  4: 'ACK',
  5: 'HEARTBEAT',
  100: 'NODE_FAILED',
};

/** ps-lite's `DataType` (PBMeta.data_type), the element type of each data frame. */
export const DataType = {
  CHAR: 0,
  INT8: 1,
  INT16: 2,
  INT32: 3,
  INT64: 4,
  UINT8: 5,
  UINT16: 6,
  UINT32: 7,
  UINT64: 8,
  FLOAT: 9,
  DOUBLE: 10,
  OTHER: 11,
} as const;
export type DataType = (typeof DataType)[keyof typeof DataType];

/** Byte width of each DataType (OTHER is opaque bytes). */
export const DATA_TYPE_BYTES: readonly number[] = [1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 1];

/** ps-lite's `Node` (PBNode). */
export interface NodeInfo {
  role: Role;
  id: number;
  hostname: string;
  port: number;
  isRecovery: boolean;
  customerId: number;
}

/** ps-lite's `Control` (PBControl). */
export interface ControlInfo {
  cmd: number;
  node: NodeInfo[];
  barrierGroup: number;
  msgSig: bigint;
}

/** ps-lite's `Meta`: `sender` comes from the ZeroMQ identity, `recver` is where it goes. */
export interface Meta {
  head: number;
  appId: number;
  customerId: number;
  timestamp: number;
  sender: number;
  recver: number;
  request: boolean;
  push: boolean;
  pull: boolean;
  simpleApp: boolean;
  body: Uint8Array;
  dataType: number[];
  control: ControlInfo;
  dataSize: number;
  priority: number;
}

/** One ps-lite message: meta plus data frames. */
export interface Message {
  meta: Meta;
  data: Uint8Array[];
}

/** A fresh Meta with ps-lite's defaults (every id "empty", no control). */
export function emptyMeta(): Meta {
  return {
    head: K_EMPTY,
    appId: K_EMPTY,
    customerId: K_EMPTY,
    timestamp: K_EMPTY,
    sender: K_EMPTY,
    recver: K_EMPTY,
    request: false,
    push: false,
    pull: false,
    simpleApp: false,
    body: new Uint8Array(0),
    dataType: [],
    control: { cmd: Command.EMPTY, node: [], barrierGroup: 0, msgSig: 0n },
    dataSize: 0,
    priority: 0,
  };
}

/** A node record with ps-lite's defaults. */
export function makeNode(role: Role, fields: Partial<NodeInfo> = {}): NodeInfo {
  return { role, id: K_EMPTY, hostname: '', port: K_EMPTY, isRecovery: false, customerId: 0, ...fields };
}

// --- the protobuf schema of meta.proto, by reflection ---------------------------------------
// `edition: 'proto2'` matters: protobufjs reads JSON types as proto3 otherwise, and proto3's
// implicit presence would drop `app_id: 0` / `timestamp: 0`, which ps-lite must see as set.

const SCHEMA = {
  nested: {
    ps: {
      nested: {
        PBNode: {
          edition: 'proto2',
          fields: {
            role: { rule: 'required', type: 'int32', id: 1 },
            id: { type: 'int32', id: 2 },
            hostname: { type: 'string', id: 3 },
            port: { type: 'int32', id: 4 },
            is_recovery: { type: 'bool', id: 5 },
            customer_id: { type: 'int32', id: 10 },
          },
        },
        PBControl: {
          edition: 'proto2',
          fields: {
            cmd: { rule: 'required', type: 'int32', id: 1 },
            node: { rule: 'repeated', type: 'PBNode', id: 2 },
            barrier_group: { type: 'int32', id: 3 },
            msg_sig: { type: 'uint64', id: 4 },
          },
        },
        PBMeta: {
          edition: 'proto2',
          fields: {
            head: { type: 'int32', id: 1 },
            body: { type: 'bytes', id: 2 },
            control: { type: 'PBControl', id: 3 },
            request: { type: 'bool', id: 4, options: { default: false } },
            app_id: { type: 'int32', id: 7 },
            timestamp: { type: 'int32', id: 8 },
            data_type: { rule: 'repeated', type: 'int32', id: 9, options: { packed: true } },
            customer_id: { type: 'int32', id: 10 },
            push: { type: 'bool', id: 5 },
            pull: { type: 'bool', id: 12 },
            simple_app: { type: 'bool', id: 6, options: { default: false } },
            data_size: { type: 'int32', id: 11 },
            priority: { type: 'int32', id: 13, options: { default: 0 } },
          },
        },
      },
    },
  },
};

/** The three message types; built once per call site that needs them (no module state). */
export interface PsSchema {
  readonly PBMeta: protobuf.Type;
  readonly PBControl: protobuf.Type;
  readonly PBNode: protobuf.Type;
}

/** Builds the reflection types of meta.proto. */
export function buildSchema(): PsSchema {
  const root = protobuf.Root.fromJSON(SCHEMA);
  return {
    PBMeta: root.lookupType('ps.PBMeta'),
    PBControl: root.lookupType('ps.PBControl'),
    PBNode: root.lookupType('ps.PBNode'),
  };
}

/** Encodes/decodes ps-lite metas and messages with one schema instance. */
export class MetaCodec {
  private readonly schema: PsSchema;

  constructor(schema: PsSchema = buildSchema()) {
    this.schema = schema;
  }

  /** PBMeta bytes of `meta`, field for field as ps-lite's `Van::PackMeta`. */
  encodeMeta(meta: Meta): Uint8Array {
    const pb: Record<string, unknown> = { head: meta.head };
    if (meta.appId !== K_EMPTY) pb.app_id = meta.appId;
    if (meta.timestamp !== K_EMPTY) pb.timestamp = meta.timestamp;
    if (meta.body.length > 0) pb.body = meta.body;
    pb.push = meta.push;
    pb.pull = meta.pull;
    pb.request = meta.request;
    pb.simple_app = meta.simpleApp;
    pb.priority = meta.priority;
    pb.customer_id = meta.customerId;
    pb.data_type = meta.dataType.slice();
    const ctrl = meta.control;
    if (ctrl.cmd !== Command.EMPTY) {
      const c: Record<string, unknown> = { cmd: ctrl.cmd };
      if (ctrl.cmd === Command.BARRIER) c.barrier_group = ctrl.barrierGroup;
      else if (ctrl.cmd === Command.ACK) c.msg_sig = ctrl.msgSig.toString();
      c.node = ctrl.node.map((n) => ({
        id: n.id,
        role: n.role,
        port: n.port,
        hostname: n.hostname,
        is_recovery: n.isRecovery,
        customer_id: n.customerId,
      }));
      pb.control = c;
    }
    // ps-lite's ZMQVan (PackMeta) never sends data_size; only its PackMetaPB (other vans) does.
    const { PBMeta } = this.schema;
    return PBMeta.encode(PBMeta.fromObject(pb)).finish();
  }

  /**
   * Meta from PBMeta bytes, as ps-lite's `Van::UnpackMeta` (absent ids become K_EMPTY). Throws an
   * MXNetError for bytes that are not a PBMeta or carry impossible values.
   */
  decodeMeta(bytes: Uint8Array, from = 'peer'): Meta {
    let pb: Record<string, unknown>;
    try {
      pb = this.schema.PBMeta.decode(bytes) as unknown as Record<string, unknown>;
    } catch (e) {
      throw frameError(
        `the meta frame from ${from} is not a ps-lite PBMeta (${(e as Error).message})`,
        bytes,
        e,
      );
    }
    const has = (o: Record<string, unknown>, k: string): boolean => Object.hasOwn(o, k) && o[k] != null;
    const meta = emptyMeta();
    meta.head = has(pb, 'head') ? (pb.head as number) : 0;
    meta.appId = has(pb, 'app_id') ? (pb.app_id as number) : K_EMPTY;
    meta.timestamp = has(pb, 'timestamp') ? (pb.timestamp as number) : K_EMPTY;
    meta.request = pb.request === true;
    meta.push = pb.push === true;
    meta.pull = pb.pull === true;
    meta.simpleApp = pb.simple_app === true;
    meta.priority = has(pb, 'priority') ? (pb.priority as number) : 0;
    meta.body = has(pb, 'body') ? new Uint8Array(pb.body as Uint8Array) : new Uint8Array(0);
    meta.customerId = has(pb, 'customer_id') ? (pb.customer_id as number) : 0;
    meta.dataSize = has(pb, 'data_size') ? (pb.data_size as number) : 0;
    const types = (pb.data_type as number[] | undefined) ?? [];
    for (const t of types) {
      if (!(t >= 0 && t < DATA_TYPE_BYTES.length)) {
        throw frameError(`the meta frame from ${from} names data type ${t} (ps-lite has 0..11)`, bytes);
      }
    }
    meta.dataType = types.slice();
    if (has(pb, 'control')) {
      const c = pb.control as Record<string, unknown>;
      const cmd = c.cmd as number;
      if (COMMAND_NAMES[cmd] === undefined) {
        throw frameError(
          `the meta frame from ${from} has control command ${cmd}, which ps-lite does not know`,
          bytes,
        );
      }
      meta.control.cmd = cmd;
      meta.control.barrierGroup = has(c, 'barrier_group') ? (c.barrier_group as number) : 0;
      meta.control.msgSig = has(c, 'msg_sig') ? BigInt((c.msg_sig as { toString(): string }).toString()) : 0n;
      for (const raw of (c.node as Record<string, unknown>[] | undefined) ?? []) {
        const role = raw.role as number;
        if (role !== 0 && role !== 1 && role !== 2) {
          throw frameError(
            `the meta frame from ${from} has node role ${role} (ps-lite: 0 server, 1 worker, 2 scheduler)`,
            bytes,
          );
        }
        meta.control.node.push({
          role: role as Role,
          id: has(raw, 'id') ? (raw.id as number) : K_EMPTY,
          hostname: has(raw, 'hostname') ? (raw.hostname as string) : '',
          port: has(raw, 'port') ? (raw.port as number) : 0,
          isRecovery: raw.is_recovery === true,
          customerId: has(raw, 'customer_id') ? (raw.customer_id as number) : 0,
        });
      }
    }
    return meta;
  }

  /** The frames ps-lite's ZMQVan sends for `msg` (without the routing identity). */
  encodeMessage(msg: Message): Uint8Array[] {
    return [this.encodeMeta(msg.meta), ...msg.data];
  }

  /**
   * A message from the frames a ROUTER received: `[identity, meta, data…]`. The sender is the id in
   * the identity (`ps<id>`), K_EMPTY for a peer that has none yet (a node before ADD_NODE).
   */
  decodeFrames(frames: readonly Uint8Array[], myId: number): Message {
    if (frames.length < 2) {
      throw frameError(
        `a message of ${frames.length} frame(s): ps-lite sends [identity, meta, data…]`,
        frames[0],
      );
    }
    const sender = senderIdFromIdentity(frames[0] as Uint8Array);
    const from = sender === K_EMPTY ? 'an unidentified peer' : `node ${sender}`;
    const meta = this.decodeMeta(frames[1] as Uint8Array, from);
    meta.sender = sender;
    meta.recver = myId;
    const data = frames.slice(2).map((f) => f as Uint8Array);
    if (meta.dataType.length > 0 && meta.dataType.length !== data.length) {
      throw frameError(
        `${from} sent ${data.length} data frame(s) but its meta lists ${meta.dataType.length} data types`,
        frames[1],
      );
    }
    for (let i = 0; i < meta.dataType.length; i++) {
      const width = DATA_TYPE_BYTES[meta.dataType[i] as number] as number;
      if ((data[i] as Uint8Array).length % width !== 0) {
        throw frameError(
          `${from} sent data frame ${i} of ${(data[i] as Uint8Array).length} bytes, not a multiple of ${width}`,
          frames[1],
        );
      }
    }
    return { meta, data };
  }
}

/** The node id in a ZeroMQ identity `ps<digits>` (ps-lite's `GetNodeID`), else K_EMPTY. */
export function senderIdFromIdentity(identity: Uint8Array): number {
  if (identity.length <= 2 || identity[0] !== 0x70 || identity[1] !== 0x73) return K_EMPTY;
  let id = 0;
  for (let i = 2; i < identity.length; i++) {
    const c = identity[i] as number;
    if (c < 0x30 || c > 0x39) return K_EMPTY;
    id = id * 10 + (c - 0x30);
    if (id > K_EMPTY) return K_EMPTY;
  }
  return id;
}

/** The optional fields of a control message. */
export interface ControlFields {
  node?: NodeInfo[];
  timestamp?: number;
  request?: boolean;
  barrierGroup?: number;
  msgSig?: bigint;
  appId?: number;
  customerId?: number;
  body?: Uint8Array;
}

/** A control message to `recver` (ps-lite's van builds these inline). */
export function controlMessage(recver: number, cmd: number, f: ControlFields = {}): Message {
  const meta = emptyMeta();
  meta.recver = recver;
  meta.control.cmd = cmd;
  if (f.node) meta.control.node = f.node.map((n) => ({ ...n }));
  if (f.timestamp !== undefined) meta.timestamp = f.timestamp;
  if (f.request !== undefined) meta.request = f.request;
  if (f.barrierGroup !== undefined) meta.control.barrierGroup = f.barrierGroup;
  if (f.msgSig !== undefined) meta.control.msgSig = f.msgSig;
  if (f.appId !== undefined) meta.appId = f.appId;
  if (f.customerId !== undefined) meta.customerId = f.customerId;
  if (f.body !== undefined) meta.body = f.body;
  return { meta, data: [] };
}

/** Appends a data frame as ps-lite's `Message::AddData` (data_type and data_size follow). */
export function addData(msg: Message, bytes: Uint8Array, type: DataType): void {
  msg.meta.dataType.push(type);
  msg.meta.dataSize += bytes.length;
  msg.data.push(bytes);
}

/** The bytes of a typed array (a view, no copy). */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** Keys from an SArray<uint64> frame (copied when unaligned). */
export function keysFromBytes(bytes: Uint8Array, what = 'keys'): BigUint64Array {
  if (bytes.length % 8 !== 0)
    throw frameError(`the ${what} frame has ${bytes.length} bytes, not a multiple of 8`, bytes);
  const b = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  return new BigUint64Array(b.buffer, b.byteOffset, b.length / 8);
}

/** Lens from an SArray<int> frame (copied when unaligned). */
export function lensFromBytes(bytes: Uint8Array, what = 'lens'): Int32Array {
  if (bytes.length % 4 !== 0)
    throw frameError(`the ${what} frame has ${bytes.length} bytes, not a multiple of 4`, bytes);
  const b = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Int32Array(b.buffer, b.byteOffset, b.length / 4);
}

/** ps-lite's `Message::DebugString`, for PS_VERBOSE=2 logs. */
export function debugString(msg: Message): string {
  const m = msg.meta;
  const parts = [
    `${m.sender === K_EMPTY ? '?' : m.sender} => ${m.recver}. Meta: request=${m.request ? 1 : 0}`,
  ];
  if (m.timestamp !== K_EMPTY) parts.push(`timestamp=${m.timestamp}`);
  if (m.control.cmd !== Command.EMPTY) {
    const nodes = m.control.node.map((n) => `role=${n.role}, id=${n.id}, ip=${n.hostname}, port=${n.port}`);
    parts.push(
      `control={ cmd=${COMMAND_NAMES[m.control.cmd]}${nodes.length ? `, node={ ${nodes.join('; ')} }` : ''} }`,
    );
  } else {
    parts.push(
      `app_id=${m.appId}, customer_id=${m.customerId}, simple_app=${m.simpleApp ? 1 : 0}, push=${m.push ? 1 : 0}`,
    );
  }
  if (m.head !== K_EMPTY) parts.push(`head=${m.head}`);
  const sizes = msg.data.map((d) => ` data_size=${d.length}`).join('');
  return parts.join(', ') + (sizes ? ` Body:${sizes}` : '');
}

function frameError(message: string, bytes?: Uint8Array, cause?: unknown): MXNetError {
  const head = bytes
    ? Array.from(bytes.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('')
    : '';
  return new MXNetError(message, {
    op: 'pslite.decode',
    params: bytes ? { bytes: bytes.length, head } : {},
    hint: 'the peer is not a ps-lite node of this version, or the frame was corrupted; the message is dropped',
    cause,
  });
}
