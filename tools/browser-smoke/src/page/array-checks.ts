/**
 * Smoke checks of @mx/ndarray's own surface on cpu-wasm in a browser: creating arrays from nested
 * and typed data in several dtypes, zero-dim and zero-size arrays, creation functions, views, a
 * large array that makes the WebAssembly.Memory grow, and bad input that must fail cleanly and leave
 * the runtime usable. Each check returns undefined on success or a failure message; values are
 * small and hand-checkable.
 */
import { isMXNetError } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { compareValues } from './op-checks.js';

export interface SmokeCheck {
  readonly name: string;
  /** Undefined: passed. A string: failed with that message. */
  run(rt: Runtime): Promise<string | undefined>;
}

/** Thrown by a check that cannot run here (an op not registered yet). */
export class SkipCheck extends Error {
  override readonly name = 'SkipCheck';
}

async function expectArray(
  x: NDArray,
  shape: readonly number[],
  dtype: string,
  data: readonly number[],
): Promise<string | undefined> {
  if (x.shape.join(',') !== shape.join(',') || x.shape.length !== shape.length) {
    return `shape [${x.shape.join(', ')}], expected [${shape.join(', ')}]`;
  }
  if (x.dtype !== dtype) return `dtype ${x.dtype}, expected ${dtype}`;
  return compareValues(await x.data(), data);
}

async function expectMXNetError(body: () => unknown, what: string): Promise<string | undefined> {
  try {
    await body();
  } catch (e) {
    return isMXNetError(e) ? undefined : `${what}: threw ${String(e)}, expected an MXNetError`;
  }
  return `${what}: succeeded, expected an MXNetError`;
}

export const ARRAY_CHECKS: readonly SmokeCheck[] = [
  {
    name: 'nd.array nested float32 -> data()',
    run: async (rt) => {
      const x = rt.nd.array([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      const data = await x.data();
      if (!(data instanceof Float32Array))
        return `data() gave ${data.constructor.name}, expected Float32Array`;
      return expectArray(x, [2, 3], 'float32', [1, 2, 3, 4, 5, 6]);
    },
  },
  {
    name: 'nd.array dtypes (int32, float64, int64, uint8, int8)',
    run: async (rt) => {
      for (const [dtype, values, expected] of [
        ['int32', [1, -2, 3], [1, -2, 3]],
        ['float64', [0.1, 0.2], [0.1, 0.2]],
        ['int64', [1, -2, 3], [1, -2, 3]],
        ['uint8', [0, 255, 7], [0, 255, 7]],
        ['int8', [-128, 127], [-128, 127]],
      ] as const) {
        const x = rt.nd.array([...values], { dtype });
        const bad = await expectArray(x, [values.length], dtype, expected);
        if (bad !== undefined) return `${dtype}: ${bad}`;
      }
      const big = await rt.nd.array([5], { dtype: 'int64' }).data();
      if (!(big instanceof BigInt64Array)) return `int64 data() gave ${big.constructor.name}`;
      return undefined;
    },
  },
  {
    name: 'nd.array from a typed array with shape',
    run: async (rt) => {
      const x = rt.nd.array(new Float64Array([1, 2, 3, 4]), { shape: [2, 2] });
      return expectArray(x, [2, 2], 'float64', [1, 2, 3, 4]);
    },
  },
  {
    name: 'zero-dim array',
    run: async (rt) => {
      const x = rt.nd.array(5);
      const bad = await expectArray(x, [], 'float32', [5]);
      if (bad !== undefined) return bad;
      const v = await x.item();
      return v === 5 ? undefined : `item() = ${String(v)}, expected 5`;
    },
  },
  {
    name: 'zero-size arrays',
    run: async (rt) => {
      const z = rt.nd.zeros([0, 3]);
      if (z.size !== 0) return `size ${z.size}, expected 0`;
      const x = rt.nd.array([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      return (
        (await expectArray(z, [0, 3], 'float32', [])) ??
        (await expectArray(rt.nd.array([]), [0], 'float32', [])) ??
        (await expectArray(rt.nd.ones([2, 0], { dtype: 'int32' }), [2, 0], 'int32', [])) ??
        (await expectArray(x.slice(1, 1), [0, 3], 'float32', []))
      );
    },
  },
  {
    name: 'zeros / ones / full / arange',
    run: async (rt) =>
      (await expectArray(rt.nd.zeros([2, 2]), [2, 2], 'float32', [0, 0, 0, 0])) ??
      (await expectArray(rt.nd.ones([3], { dtype: 'int32' }), [3], 'int32', [1, 1, 1])) ??
      (await expectArray(rt.nd.full([2], 7), [2], 'float32', [7, 7])) ??
      (await expectArray(rt.nd.arange(0, 5), [5], 'float32', [0, 1, 2, 3, 4])),
  },
  {
    name: 'views: reshape, slice, at',
    run: async (rt) => {
      const x = rt.nd.array([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      return (
        (await expectArray(x.reshape([3, -1]), [3, 2], 'float32', [1, 2, 3, 4, 5, 6])) ??
        (await expectArray(x.slice(1), [1, 3], 'float32', [4, 5, 6])) ??
        (await expectArray(x.at(1, 2), [], 'float32', [6]))
      );
    },
  },
  {
    name: 'large array grows the memory (ones 24 MiB, then elemwise_add)',
    run: async (rt) => {
      const n = 6 << 20;
      const x = rt.nd.ones([n]);
      const d = await x.data();
      if (d.length !== n || d[0] !== 1 || d[n - 1] !== 1 || d[n >> 1] !== 1) return 'ones() values wrong';
      const add = rt.registry.find('elemwise_add');
      if (add === undefined || rt.registry.kernel(add, 'cpu-wasm') === undefined) return undefined;
      const y = (await rt.invoke('elemwise_add', [x, x])[0]?.data()) as Float32Array;
      for (let i = 0; i < n; i += 4099) if (y[i] !== 2) return `elemwise_add at ${i}: ${y[i]}`;
      return y[n - 1] === 2 ? undefined : `elemwise_add at ${n - 1}: ${y[n - 1]}`;
    },
  },
  {
    name: 'bad input fails with MXNetError, runtime still works',
    run: async (rt) =>
      (await expectMXNetError(() => rt.nd.array([[1, 2], [3]]), 'ragged nd.array')) ??
      (await expectMXNetError(() => rt.invoke('no_such_op_xyz', []), 'unknown op')) ??
      (await expectMXNetError(() => rt.nd.zeros([2]).reshape([3]), 'bad reshape')) ??
      (await expectArray(rt.nd.ones([2]), [2], 'float32', [1, 1])),
  },
];
