/**
 * Node's `fs`, reached through `process.getBuiltinModule` and never imported, so a browser bundle of
 * @mx/kvstore carries no Node import: only saving or loading optimizer states by file name fails
 * there, with an MXNetError saying to use bytes instead.
 */
import { MXNetError } from '@mx/base';

export interface NodeFs {
  writeFileSync(path: string, data: Uint8Array): void;
  readFileSync(path: string): Uint8Array;
}

export function nodeFs(op: string): NodeFs {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
  if (fs === undefined) {
    throw new MXNetError('node:fs is not available here (file names need Node.js >= 20.16)', {
      op,
      hint: 'pass or keep the bytes instead of a file name',
    });
  }
  return fs;
}
