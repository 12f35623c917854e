/**
 * The worker side's merge of the servers' pull answers (ps-lite's `KVWorker::DefaultSlicer` in
 * reverse): answers sorted by their first key, checked to answer exactly the keys asked, values
 * concatenated in key order — into a buffer the caller gives (ps-lite's ZPull into a
 * caller-provided SArray, which MXNet points at the array's own memory), or a new one. Shared by
 * the ZeroMQ KVWorker and the in-memory one of the tests.
 */
import { MXNetError } from '@mx/base';
import type { KVPairs } from './api.js';

/**
 * Merge `answers` (one per server, any order; empty ones ignored) for `keys`. With `into`, the
 * values land there and `vals` is `into`; its length must equal the answered bytes.
 */
export function mergeAnswers(
  keys: BigUint64Array,
  answers: readonly (KVPairs | undefined)[],
  into?: Uint8Array,
): KVPairs {
  const got = answers.filter((p): p is KVPairs => p !== undefined && p.keys.length > 0);
  got.sort((a, b) => ((a.keys[0] as bigint) < (b.keys[0] as bigint) ? -1 : 1));
  let total = 0;
  let k = 0;
  for (const p of got) {
    for (let i = 0; i < p.keys.length; i++, k++) {
      if (p.keys[i] !== keys[k]) {
        throw new MXNetError(`the servers answered key ${p.keys[i]} where key ${keys[k]} was asked`, {
          op: 'KVWorker.pull',
          hint: 'lost some servers?',
        });
      }
    }
    total += p.vals.length;
  }
  if (k !== keys.length)
    throw new MXNetError(`the servers answered ${k} of ${keys.length} keys`, {
      op: 'KVWorker.pull',
      hint: 'lost some servers?',
    });
  if (into !== undefined && into.length !== total) {
    throw new MXNetError(`the servers answered ${total} bytes for a ${into.length}-byte buffer`, {
      op: 'KVWorker.pull',
      params: { keys: keys.length },
      hint: 'the servers and this worker disagree on the value size (was the key initialised with another shape?)',
    });
  }
  const vals = into ?? new Uint8Array(total);
  const lens = new Int32Array(keys.length);
  let v = 0;
  k = 0;
  for (const p of got) {
    vals.set(p.vals, v);
    v += p.vals.length;
    if (p.lens.length === p.keys.length) lens.set(p.lens, k);
    else lens.fill(p.keys.length ? p.vals.length / p.keys.length : 0, k, k + p.keys.length);
    k += p.keys.length;
  }
  return { keys: keys.slice(), vals, lens };
}
