/**
 * What the layer tests share: reading the golden files written by tools/golden/gluon/nn.py, turning
 * their arrays into NDArrays, and running one case — initialize, write the golden parameters with
 * setData, forward and backward under autograd with the golden head gradient, compare output and
 * gradients, imperatively or hybridized — so each test file only says how to build its layers.
 */
import { readFileSync } from 'node:fs';
import type { NDArray, Runtime } from '@mx/ndarray';
import { expect } from 'vitest';
import type { Block } from '../block/block.js';
import type { HybridBlock } from '../block/hybrid-block.js';

/** An array as the generator stores it: shape and row-major float32-exact values. */
export interface GoldenArray {
  readonly shape: number[];
  readonly data: number[];
}

/** One golden case: input, parameters, head gradient, output and gradients (x and parameters). */
export interface GoldenCase {
  readonly x: GoldenArray;
  readonly params: Record<string, GoldenArray>;
  readonly head: GoldenArray;
  readonly y: GoldenArray;
  readonly grads: Record<string, GoldenArray>;
  readonly [extra: string]: unknown;
}

/** Reads packages/gluon/src/__golden__/nn-<name>.json. */
export function loadGolden<T = Record<string, GoldenCase>>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../__golden__/nn-${name}.json`, import.meta.url), 'utf8')) as T;
}

export function toNd(rt: Runtime, a: GoldenArray): NDArray {
  return rt.nd.array(Float32Array.from(a.data), { shape: a.shape });
}

/** Shape equal and every value within atol + rtol·|expected|, reporting the worst index. */
export function expectClose(
  actual: NDArray,
  expected: GoldenArray,
  what: string,
  atol = 2e-5,
  rtol = 2e-4,
): void {
  expect(actual.shape, `${what} shape`).toEqual(expected.shape);
  const got = actual.dataSync() as Float32Array;
  let worst = -1;
  let excess = 0;
  for (let i = 0; i < expected.data.length; i++) {
    const e = expected.data[i] as number;
    const d = Math.abs((got[i] as number) - e) - (atol + rtol * Math.abs(e));
    if (d > excess) {
      excess = d;
      worst = i;
    }
  }
  if (worst >= 0) {
    expect.fail(
      `${what}[${worst}] = ${got[worst]}, expected ${expected.data[worst]} (${expected.data.length} values)`,
    );
  }
}

/** Writes the golden parameters into the block by structural name. */
export function setParams(block: Block, rt: Runtime, params: Record<string, GoldenArray>): void {
  const all = block.collectParams();
  for (const [name, v] of Object.entries(params)) {
    const p = all.get(name);
    if (p === undefined) throw new Error(`no parameter ${name} in ${[...all.keys()].join(', ')}`);
    const a = toNd(rt, v);
    p.setData(a);
    a.dispose();
  }
}

export interface RunOptions {
  /** Autograd's training mode while recording (default true). */
  readonly train?: boolean;
  /** Skip these gradients (e.g. the input of an Embedding). */
  readonly skipGrads?: readonly string[];
  readonly atol?: number;
  readonly rtol?: number;
  /** Hybridize the block first: forward runs as a traced CachedOp. */
  readonly hybridize?: boolean;
}

/**
 * Initializes `block`, writes the case's parameters, runs forward under autograd and backward with
 * the case's head gradient, and compares output and gradients. The caller disposes the parameters.
 */
export function runCase(rt: Runtime, block: Block, c: GoldenCase, options: RunOptions = {}): void {
  block.initialize(undefined, { runtime: rt });
  setParams(block, rt, c.params);
  if (options.hybridize) (block as HybridBlock).hybridize();
  const x = toNd(rt, c.x);
  const head = toNd(rt, c.head);
  const skip = new Set(options.skipGrads ?? []);
  if (!skip.has('x')) x.attachGrad();
  const y = rt.autograd.record(() => (block.forward as (x: NDArray) => NDArray)(x), {
    trainMode: options.train ?? true,
  });
  expectClose(y, c.y, 'y', options.atol, options.rtol);
  y.backward(head);
  const params = block.collectParams();
  for (const [name, g] of Object.entries(c.grads)) {
    if (skip.has(name)) continue;
    const arr = name === 'x' ? (x.grad as NDArray) : (params.get(name)?.grad() as NDArray);
    expectClose(arr, g, `grad ${name}`, options.atol, options.rtol);
  }
  for (const a of [x, head, y]) a.dispose();
  if (options.hybridize) (block as HybridBlock).hybridize(false);
}

/** Releases every parameter of the block (so leakCheck sees nothing left). */
export function disposeParams(block: Block): void {
  for (const p of block.collectParams().values()) p.dispose();
}
