/**
 * ps-lite's transport for the distributed KVStore: the contract (api.ts), the wire codec, the van
 * and postoffice over ZeroMQ (loaded lazily, Node only) and the KV / Simple apps. Nothing here
 * imports zeromq at module load, so browsers can import it (and bring their own Transport).
 */
export * from './api.js';
export { Command, DataType, K_EMPTY, type Message, type Meta, MetaCodec, type NodeInfo } from './codec.js';
export { type PsConfig, readPsConfig } from './env.js';
export { KVServer, KVWorker, SimpleApp, serverApps, workerApps } from './kv-app.js';
export { messageSignature } from './resender.js';
export type { ReceiveHandler, Transport, TransportFactory } from './transport.js';
export { type Customer, type PostofficeOptions, PsPostoffice, startPostoffice } from './van.js';
export { ZmqTransport } from './zmq-transport.js';
