/**
 * Node's `fs` through @mx/base's `nodeBuiltin` (never imported), so a browser bundle of @mx/kvstore
 * carries no Node import: only saving or loading optimizer states by file name fails there, with
 * an MXNetError saying to use bytes instead.
 */
import { nodeBuiltin } from '@mx/base';

export interface NodeFs {
  writeFileSync(path: string, data: Uint8Array): void;
  readFileSync(path: string): Uint8Array;
}

export function nodeFs(op: string): NodeFs {
  return nodeBuiltin<NodeFs>('node:fs', op, 'pass or keep the bytes instead of a file name');
}
