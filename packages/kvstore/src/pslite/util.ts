/**
 * Small helpers of the ps-lite port: key ranges (ps-lite's equal split of [0, 2^64−1)), role
 * names, the node's IPv4 address (as ps-lite's GetIP / GetAvailableInterfaceAndIP) and a deferred.
 */
import { MXNetError, maybeNodeBuiltin } from '@mx/base';
import { type KeyRange, Role } from './api.js';

/** ps-lite's `kMaxKey` (uint64 max). */
export const MAX_KEY = 0xffffffffffffffffn;

/** `Postoffice::GetServerKeyRanges`: server i owns [kMaxKey/n·i, kMaxKey/n·(i+1)). */
export function serverKeyRanges(numServers: number): KeyRange[] {
  const ranges: KeyRange[] = [];
  if (numServers <= 0) return ranges;
  const step = MAX_KEY / BigInt(numServers);
  for (let i = 0; i < numServers; i++) ranges.push({ begin: step * BigInt(i), end: step * BigInt(i + 1) });
  return ranges;
}

export function roleName(role: Role): string {
  return role === Role.Server ? 'server' : role === Role.Worker ? 'worker' : 'scheduler';
}

/** A promise with its resolve/reject (a rejection nobody awaits is not reported). */
export function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** `promise`, or a rejection with `onTimeout()` after `ms` (the timer is cleared either way). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => unknown): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

interface NetIf {
  family: string | number;
  address: string;
  internal: boolean;
}

/**
 * The IPv4 address of `iface` (DMLC_INTERFACE), or of the first non-loopback interface. Node only
 * (`os.networkInterfaces`); elsewhere set DMLC_NODE_HOST.
 */
export function firstIPv4(iface: string | undefined): string {
  const os = maybeNodeBuiltin<{ networkInterfaces(): Record<string, NetIf[] | undefined> }>('node:os');
  if (!os) {
    throw new MXNetError("cannot find this machine's address", {
      op: 'pslite.start',
      hint: 'set DMLC_NODE_HOST',
    });
  }
  const all = os.networkInterfaces();
  const v4 = (list: NetIf[] | undefined) => list?.find((a) => a.family === 'IPv4' || a.family === 4);
  if (iface) {
    const a = v4(all[iface]);
    if (!a) {
      throw new MXNetError(
        `DMLC_INTERFACE=${iface} has no IPv4 address (interfaces: ${Object.keys(all).join(', ')})`,
        {
          op: 'pslite.config',
          params: { DMLC_INTERFACE: iface },
          hint: 'name an interface of this machine, or set DMLC_NODE_HOST',
        },
      );
    }
    return a.address;
  }
  for (const list of Object.values(all)) {
    const a = list?.find((x) => (x.family === 'IPv4' || x.family === 4) && !x.internal);
    if (a) return a.address;
  }
  return '127.0.0.1';
}
