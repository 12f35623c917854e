/**
 * How a store sums the values pushed for one key (MXNet src/kvstore/comm.h): `CommCPU` for the
 * `local` store, `CommDevice` for `device`. A distributed store reuses them for the reduction
 * across the devices of one worker before it sends the sum to the servers, as MXNet's KVStoreDist
 * does.
 *
 * Every step is an engine operation on arrays: cross-device copies (`copyTo`), the sum (`add_n`,
 * MXNet's ElementwiseSum, written into a merge buffer with `out=`), and for compressed pushes the
 * quantize/dequantize operators. Nothing is read back, so a push returns at once.
 *
 * - CommCPU sums on the host context: values on other devices are copied into per-value host
 *   buffers first (MXNet copies every value to `cpu_pinned(0)`; here values already on cpu(0) are
 *   read in place — the same sum without a copy).
 * - CommDevice sums on a device chosen per key the first time values arrive (MXNet's
 *   `InitMergeBuffer`): keys sorted by size, largest first, each on the device of that push with the
 *   fewest elements assigned so far (ties: the device that comes first in the push).
 * - One value and no compression: the value itself is the sum (MXNet returns `src[0]`).
 * - With gradient compression (CommDevice only, MXNet's `ReduceCompressed`): each value is quantized
 *   on its own device with its own residual, the packed array copied to the merge device,
 *   dequantized there, and the parts summed — also for a single value.
 * - Row_sparse values (MXNet's ReduceRowSparse / sparse ElementwiseSum) are summed into a
 *   row_sparse buffer on the host (cpu(0) where served, else the first value's device) — also a
 *   single value, as MXNet's CommCPU copies it there — with the union of their rows
 *   (sparse/rsp-ops.ts). Difference: CommDevice sums them there too (not on a merge device), so a
 *   row_sparse key's sum and its stored value share one device. Not with gradient compression.
 *
 * The comm owns its buffers (merge, copy, residual and packed arrays) and frees them in `dispose`.
 */
import { type Context, cpu, type DTypeName, MXNetError, type Shape, shapeSize } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { CompressionOps } from './compression/ops.js';
import type { GradientCompression } from './compression/params.js';
import { compressedSize } from './compression/quantize.js';
import { RowSparseOps } from './sparse/rsp-ops.js';

/** What a comm knows about a key (MXNet `Comm::Init`). */
export interface CommKey {
  readonly shape: Shape;
  readonly dtype: DTypeName;
}

/** Per-value buffers of a compressed reduction (MXNet's residual / compressed send and receive bufs). */
interface CompressedSlot {
  readonly residual: NDArray;
  readonly send: NDArray;
  /** On the merge device; the send buffer itself when the value is already there. */
  readonly recv: NDArray;
  readonly part: NDArray;
}

interface KeyBuffers {
  readonly attrs: CommKey;
  merged: NDArray | undefined;
  /** The row_sparse sum (on the host), once a row_sparse push came. */
  rsp: NDArray | undefined;
  /** Copies of values from other devices, by value position. */
  readonly copies: Map<number, NDArray>;
  readonly compressed: Map<number, CompressedSlot>;
}

/** The reduction strategy of a store (MXNet `Comm`). */
export abstract class Comm {
  protected readonly runtime: Runtime;
  readonly #keys = new Map<number, KeyBuffers>();
  #compression: GradientCompression | undefined;
  #ops: CompressionOps | undefined;
  #rspOps: RowSparseOps | undefined;

  constructor(runtime: Runtime) {
    this.runtime = runtime;
  }

  /** Declare a key (MXNet `Init`); buffers are made on first use. */
  init(key: number, attrs: CommKey): void {
    this.#keys.set(key, {
      attrs,
      merged: undefined,
      rsp: undefined,
      copies: new Map(),
      compressed: new Map(),
    });
  }

  /** Compress pushes from now on (undefined: stop). A new setting starts from zero residuals. */
  setGradientCompression(gc: GradientCompression | undefined): void {
    if (gc?.equals(this.#compression)) return;
    this.#compression = gc;
    for (const b of this.#keys.values()) Comm.#freeCompressed(b);
  }

  get gradientCompression(): GradientCompression | undefined {
    return this.#compression;
  }

  /**
   * Check that `values` can be reduced for `key` (called before anything is pushed, so a refused
   * push changes nothing); an MXNetError otherwise.
   */
  checkReduce(key: number, values: readonly NDArray[], describeKey: string): void {
    const gc = this.#compression;
    if (gc === undefined) return;
    if (values.some((v) => v.stype === 'row_sparse')) {
      throw new MXNetError(
        `Gradient compression for row sparse storage type is not supported (key ${describeKey})`,
        {
          op: 'KVStore.push',
          hint: 'push dense gradients, or create the store without gradient compression',
        },
      );
    }
    const b = this.#buffers(key);
    values.forEach((v, i) => {
      if (v.dtype !== 'float32') {
        throw new MXNetError(
          `gradient compression works on float32 values; value ${i} for key ${describeKey} is ${v.dtype}`,
          {
            op: 'KVStore.push',
            shapes: [v.shape],
            dtypes: [v.dtype],
            device: v.ctx.toString(),
            hint: 'push float32 gradients, or create the store without gradient compression',
          },
        );
      }
      const slot = b.compressed.get(i);
      if (slot !== undefined && slot.residual.ctx !== v.ctx) {
        throw new MXNetError(
          `value ${i} for key ${describeKey} is on ${v.ctx}, but its compression residual lives on ${slot.residual.ctx}`,
          {
            op: 'KVStore.push',
            shapes: [v.shape],
            dtypes: [v.dtype],
            device: v.ctx.toString(),
            hint: 'push the values of a key from the same devices in the same order every time',
          },
        );
      }
    });
  }

  /**
   * `values[0] + … + values[n-1]` as engine ops; returns the array holding the sum (a comm buffer,
   * or the single value itself). The caller must not dispose it.
   */
  reduce(key: number, values: readonly NDArray[]): NDArray {
    const b = this.#buffers(key);
    if ((values[0] as NDArray).stype === 'row_sparse') return this.#reduceRowSparse(b, values);
    if (this.#compression !== undefined) return this.#reduceCompressed(key, b, values, this.#compression);
    if (values.length === 1) return values[0] as NDArray;
    const merged = this.#merged(key, b, values);
    const inputs = values.map((v, i) => (v.ctx === merged.ctx ? v : this.#copyInto(b, i, v, merged.ctx)));
    this.runtime.nd.add_n(...inputs, { out: merged });
    return merged;
  }

  /** Copy `src` into every array of `outs` (MXNet `Broadcast`; each copy an engine op). */
  broadcast(src: NDArray, outs: readonly NDArray[]): void {
    for (const o of outs) src.copyTo(o);
  }

  /** The device that sums `key` (MXNet's merge buffer context), once chosen. */
  mergeContext(key: number): Context | undefined {
    return this.#keys.get(key)?.merged?.ctx;
  }

  /** Free every buffer. */
  dispose(): void {
    for (const b of this.#keys.values()) {
      b.merged?.dispose();
      b.merged = undefined;
      b.rsp?.dispose();
      b.rsp = undefined;
      for (const a of b.copies.values()) a.dispose();
      b.copies.clear();
      Comm.#freeCompressed(b);
    }
    this.#keys.clear();
  }

  /** Choose merge devices for `key` (and keys waiting for one) given the devices of a push. */
  protected abstract placeMergeBuffers(
    key: number,
    devices: readonly Context[],
    pending: ReadonlyMap<number, CommKey>,
    placed: ReadonlyMap<number, { readonly ctx: Context; readonly attrs: CommKey }>,
  ): ReadonlyMap<number, Context>;

  #buffers(key: number): KeyBuffers {
    const b = this.#keys.get(key);
    if (b === undefined)
      throw new MXNetError(`key ${key} was not declared to the comm`, { op: 'Comm.reduce' });
    return b;
  }

  #merged(key: number, b: KeyBuffers, values: readonly NDArray[]): NDArray {
    if (b.merged !== undefined) return b.merged;
    const devices: Context[] = [];
    for (const v of values) if (!devices.includes(v.ctx)) devices.push(v.ctx);
    const pending = new Map<number, CommKey>();
    const placed = new Map<number, { ctx: Context; attrs: CommKey }>();
    for (const [k, kb] of this.#keys) {
      if (kb.merged === undefined) pending.set(k, kb.attrs);
      else placed.set(k, { ctx: kb.merged.ctx, attrs: kb.attrs });
    }
    const where = this.placeMergeBuffers(key, devices, pending, placed);
    for (const [k, ctx] of where) {
      const kb = this.#keys.get(k) as KeyBuffers;
      if (kb.merged === undefined) kb.merged = this.#alloc(kb.attrs.shape, kb.attrs.dtype, ctx);
    }
    return b.merged as unknown as NDArray;
  }

  /** The row_sparse sum of `values` in the key's host buffer (made on first use). */
  #reduceRowSparse(b: KeyBuffers, values: readonly NDArray[]): NDArray {
    const ctx = this.#rowSparseHome((values[0] as NDArray).ctx);
    if (b.rsp === undefined || b.rsp.ctx !== ctx) {
      b.rsp?.dispose();
      const { shape, dtype } = b.attrs;
      b.rsp = this.runtime.keep(this.runtime.nd.sparse.zeros('row_sparse', shape, { dtype, ctx }));
    }
    this.#rspOps ??= new RowSparseOps(this.runtime);
    this.#rspOps.sum(values, b.rsp);
    return b.rsp;
  }

  /** cpu(0) when a backend serves it (MXNet's pinned context), else `fallback`. */
  #rowSparseHome(fallback: Context): Context {
    try {
      this.runtime.backendFor(cpu(0));
      return cpu(0);
    } catch {
      return fallback;
    }
  }

  #alloc(shape: Shape, dtype: DTypeName, ctx: Context): NDArray {
    return this.runtime.keep(this.runtime.nd.empty(shape, { dtype, ctx }));
  }

  #copyInto(b: KeyBuffers, i: number, v: NDArray, ctx: Context): NDArray {
    let c = b.copies.get(i);
    if (c === undefined || c.ctx !== ctx) {
      c?.dispose();
      c = this.#alloc(b.attrs.shape, b.attrs.dtype, ctx);
      b.copies.set(i, c);
    }
    v.copyTo(c);
    return c;
  }

  #reduceCompressed(
    key: number,
    b: KeyBuffers,
    values: readonly NDArray[],
    gc: GradientCompression,
  ): NDArray {
    const merged = this.#merged(key, b, values);
    this.#ops ??= new CompressionOps(this.runtime);
    const ops = this.#ops;
    const parts = values.map((v, i) => {
      const slot = this.#slot(b, i, v.ctx, merged.ctx, gc);
      ops.quantize(gc, v, slot.residual, slot.send);
      if (slot.recv !== slot.send) slot.send.copyTo(slot.recv);
      ops.dequantize(gc, slot.recv, slot.part);
      return slot.part;
    });
    this.runtime.nd.add_n(...parts, { out: merged });
    return merged;
  }

  #slot(b: KeyBuffers, i: number, at: Context, mergeCtx: Context, gc: GradientCompression): CompressedSlot {
    const existing = b.compressed.get(i);
    if (existing !== undefined) return existing;
    const { shape } = b.attrs;
    const small = [compressedSize(shapeSize(shape), gc.type)];
    // Zeros written from the host: any backend can take them, with or without compute kernels.
    const residual = this.runtime.keep(
      this.runtime.nd.array(new Float32Array(shapeSize(shape)), { shape, ctx: at }),
    );
    const send = this.#alloc(small, 'float32', at);
    const recv = at === mergeCtx ? send : this.#alloc(small, 'float32', mergeCtx);
    const slot = { residual, send, recv, part: this.#alloc(shape, 'float32', mergeCtx) };
    b.compressed.set(i, slot);
    return slot;
  }

  static #freeCompressed(b: KeyBuffers): void {
    for (const s of b.compressed.values()) {
      for (const a of new Set([s.residual, s.send, s.recv, s.part])) a.dispose();
    }
    b.compressed.clear();
  }
}

/** The `local` store's comm: sums on the host (MXNet `CommCPU`). */
export class CommCPU extends Comm {
  /** Where sums are made: MXNet's pinned host memory, cpu(0) here (see the file comment). */
  readonly hostContext: Context = cpu(0);

  protected placeMergeBuffers(key: number): ReadonlyMap<number, Context> {
    return new Map([[key, this.hostContext]]);
  }
}

/** The `device` store's comm: sums on the devices the values come from (MXNet `CommDevice`). */
export class CommDevice extends Comm {
  protected placeMergeBuffers(
    _key: number,
    devices: readonly Context[],
    pending: ReadonlyMap<number, CommKey>,
    placed: ReadonlyMap<number, { readonly ctx: Context; readonly attrs: CommKey }>,
  ): ReadonlyMap<number, Context> {
    return placeMergeBuffers(devices, pending, placed);
  }
}

/**
 * MXNet's `InitMergeBuffer` rule: keys by size, largest first (stable for equal sizes), each on the
 * device with the fewest elements assigned so far (counting keys already placed on these devices);
 * ties go to the device listed first.
 */
export function placeMergeBuffers(
  devices: readonly Context[],
  pending: ReadonlyMap<number, CommKey>,
  placed: ReadonlyMap<number, { readonly ctx: Context; readonly attrs: CommKey }> = new Map(),
): Map<number, Context> {
  const load = new Map<Context, number>(devices.map((d) => [d, 0]));
  for (const { ctx, attrs } of placed.values()) {
    const l = load.get(ctx);
    if (l !== undefined) load.set(ctx, l + shapeSize(attrs.shape));
  }
  const order = [...pending].sort((a, b) => shapeSize(b[1].shape) - shapeSize(a[1].shape));
  const out = new Map<number, Context>();
  for (const [k, attrs] of order) {
    let best = devices[0] as Context;
    for (const d of devices) if ((load.get(d) as number) < (load.get(best) as number)) best = d;
    out.set(k, best);
    load.set(best, (load.get(best) as number) + shapeSize(attrs.shape));
  }
  return out;
}
