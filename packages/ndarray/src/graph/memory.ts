/**
 * The memory of a bound graph (MXNet GraphExecutor's `InitDataEntryMemory`): one allocation per
 * storage id of the memory plan, every entry a window on its storage, external entries on the
 * caller's arrays. What kernels need per entry — a blob and the engine var that orders access to
 * its memory — is computed here once, so running the graph touches no NDArray objects at all.
 *
 * Entries that share a storage id share a chunk and hence a var: the engine then orders every op
 * touching that memory, which is exactly what reusing it requires. A storage id may hold entries of
 * different dtypes (the planner matches bytes, not types), so entry views are made with the
 * entry's own dtype on the storage chunk. Outputs nobody reads (req null) with no planned storage
 * all point at one scratch allocation: kernels may still look at their blobs.
 */
import {
  type Context,
  DType,
  type DTypeName,
  MXNetError,
  type Shape,
  shapeSize,
  shapeToString,
} from '@mx/base';
import type { Var } from '@mx/engine';
import { DYNAMIC_STORAGE, EXTERNAL_STORAGE, type IndexedGraph, type MemoryPlan } from '@mx/graph';
import type { TBlob } from '@mx/ops';
import { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';

/** A storage allocation a later runner may reuse (MXNet's shared data pool). */
export interface PoolBuffer {
  readonly array: NDArray;
  readonly bytes: number;
}

/** Everything the program needs about entries, by entry id. */
export interface GraphMemory {
  readonly blobs: TBlob[];
  readonly vars: Var[];
  /** The array behind each entry: the external array, or the storage array it is a window on. */
  readonly bases: NDArray[];
  /** Allocations this memory owns (storage buffers, dynamic entries, the scratch buffer). */
  readonly owned: NDArray[];
  /** Storage buffers, reusable by a runner bound later with `shared`. */
  readonly pool: PoolBuffer[];
  readonly plannedBytes: number;
}

export interface MemoryInputs {
  readonly rt: Runtime;
  readonly idx: IndexedGraph;
  readonly shapes: readonly (Shape | undefined)[];
  readonly dtypes: readonly (DTypeName | undefined)[];
  readonly plan: MemoryPlan;
  readonly ctx: Context;
  readonly external: ReadonlyMap<number, NDArray>;
  /** Entries whose outputs are not needed (req null). */
  readonly unused: ReadonlySet<number>;
  readonly shared: readonly PoolBuffer[] | undefined;
}

/** The node of each entry id. */
export function entryNodes(idx: IndexedGraph): Int32Array {
  const out = new Int32Array(idx.numNodeEntries);
  for (let nid = 0; nid < idx.nodes.length; nid++) {
    out.fill(nid, idx.rowPtr[nid] as number, idx.rowPtr[nid + 1] as number);
  }
  return out;
}

/** Where an entry comes from, for error messages: `node fc1 (FullyConnected) output 0`. */
export function describeEntry(idx: IndexedGraph, eid: number): string {
  let nid = 0;
  while ((idx.rowPtr[nid + 1] as number) <= eid) nid++;
  const node = idx.nodes[nid]?.node;
  if (node === undefined) return `entry ${eid}`;
  return node.op === null
    ? `variable ${node.name}`
    : `node ${node.name} (${node.op.name}) output ${eid - (idx.rowPtr[nid] as number)}`;
}

/** A window of `dtype` and `shape` at the start of `base`'s memory (base may have another dtype). */
export function windowOn(rt: Runtime, base: NDArray, shape: Shape, dtype: DTypeName): NDArray {
  base.chunk.retain();
  return new NDArray(rt, base.chunk, shape, dtype, base.byteOffset);
}

function blobOf(base: NDArray, shape: Shape, dtype: DTypeName): TBlob {
  if (
    base.dtype === dtype &&
    base.shape.length === shape.length &&
    base.shape.every((d, i) => d === shape[i])
  )
    return base.blob();
  return Object.freeze({
    ptr: base.chunk.ptr,
    byteOffset: base.byteOffset,
    shape: Object.freeze([...shape]),
    dtype,
    size: shapeSize(shape),
  });
}

/** Allocate the plan's storage and lay every entry out on it (or on its external array). */
export function allocateMemory(m: MemoryInputs): GraphMemory {
  const { rt, idx, shapes, dtypes, plan, ctx, external, unused } = m;
  const n = idx.numNodeEntries;
  const blobs: TBlob[] = new Array(n);
  const vars: Var[] = new Array(n);
  const bases: NDArray[] = new Array(n);
  const owned: NDArray[] = [];
  const pool: PoolBuffer[] = [];
  const entryNode = entryNodes(idx);
  const fail = (eid: number, what: string, hint?: string): never => {
    throw new MXNetError(`${describeEntry(idx, eid)}: ${what}`, {
      op: 'GraphRunner',
      device: ctx.toString(),
      hint,
    });
  };
  try {
    // Which entries each storage id holds, and the dtype to allocate it as (its widest entry's).
    const numStorage = plan.storageBytes.length;
    const storageDType: (DTypeName | undefined)[] = new Array(numStorage).fill(undefined);
    let scratchBytes = 0;
    for (let eid = 0; eid < n; eid++) {
      const shape = shapes[eid];
      const dtype = dtypes[eid];
      if (shape === undefined || dtype === undefined || shape.some((d) => d < 0)) {
        fail(
          eid,
          `shape ${shape === undefined ? 'unknown' : shapeToString(shape)}, dtype ${dtype ?? 'unknown'}: a graph runs with every entry's shape and dtype known`,
          'give the input shapes (and dtypes) that determine it',
        );
      }
      const sid = plan.storageId[eid] as number;
      const bytes = shapeSize(shape as Shape) * DType[dtype as DTypeName].bytes;
      if (external.has(eid)) continue;
      if (sid >= 0) {
        if (sid >= numStorage) fail(eid, `storage id ${sid} is not in the plan (${numStorage} storage ids)`);
        if (bytes > (plan.storageBytes[sid] as number)) {
          fail(eid, `needs ${bytes} bytes but its storage ${sid} has ${plan.storageBytes[sid]}`);
        }
        const cur = storageDType[sid];
        if (cur === undefined || DType[dtype as DTypeName].bytes > DType[cur].bytes)
          storageDType[sid] = dtype;
      } else if (unused.has(eid)) {
        scratchBytes = Math.max(scratchBytes, bytes);
      } else if (sid === EXTERNAL_STORAGE || idx.nodes[entryNode[eid] as number]?.node.op === null) {
        fail(
          eid,
          'is external but no array was given for it',
          'bind an array for every argument and aux state',
        );
      } else if (sid !== DYNAMIC_STORAGE) {
        fail(eid, `has storage id ${sid}, which is neither a planned id nor external/dynamic`);
      }
    }

    // Storage buffers: largest first, each from the shared pool when a free buffer is big enough.
    const buffers: (NDArray | undefined)[] = new Array(numStorage).fill(undefined);
    const order = Array.from({ length: numStorage }, (_, s) => s).filter(
      (s) => storageDType[s] !== undefined,
    );
    order.sort((a, b) => (plan.storageBytes[b] as number) - (plan.storageBytes[a] as number));
    const free = [...(m.shared ?? [])].filter((p) => !p.array.isDisposed && p.array.ctx === ctx);
    for (const s of order) {
      const bytes = plan.storageBytes[s] as number;
      const dtype = storageDType[s] as DTypeName;
      const elems = Math.ceil(bytes / DType[dtype].bytes);
      let best = -1;
      for (let i = 0; i < free.length; i++) {
        const b = (free[i] as PoolBuffer).bytes;
        if (b >= elems * DType[dtype].bytes && (best < 0 || b < (free[best] as PoolBuffer).bytes)) best = i;
      }
      let buf: NDArray;
      if (best >= 0) {
        const p = free.splice(best, 1)[0] as PoolBuffer;
        buf = rt.keep(windowOn(rt, p.array, [elems], dtype));
        pool.push({ array: buf, bytes: p.bytes });
      } else {
        buf = rt.keep(rt.empty([elems], dtype, ctx, 'graph'));
        pool.push({ array: buf, bytes: elems * DType[dtype].bytes });
      }
      owned.push(buf);
      buffers[s] = buf;
    }
    let scratch: NDArray | undefined;
    if (scratchBytes > 0) {
      scratch = rt.keep(rt.empty([Math.ceil(scratchBytes / 4)], 'float32', ctx, 'graph'));
      owned.push(scratch);
    }

    for (let eid = 0; eid < n; eid++) {
      const shape = shapes[eid] as Shape;
      const dtype = dtypes[eid] as DTypeName;
      const ext = external.get(eid);
      let base: NDArray;
      if (ext !== undefined) {
        checkExternal(rt, idx, eid, ext, shape, dtype, ctx);
        base = ext;
        blobs[eid] = ext.blob();
      } else {
        const sid = plan.storageId[eid] as number;
        if (sid >= 0) base = buffers[sid] as NDArray;
        else if (unused.has(eid) && scratch !== undefined) base = scratch;
        else {
          // Dynamic storage (all shapes are known here, so allocated now), or a zero-size unused output.
          base = rt.keep(rt.empty(shape, dtype, ctx, 'graph'));
          owned.push(base);
        }
        blobs[eid] = blobOf(base, shape, dtype);
      }
      bases[eid] = base;
      vars[eid] = base.chunkVar;
    }
    return { blobs, vars, bases, owned, pool, plannedBytes: plan.plannedBytes };
  } catch (e) {
    for (const a of owned) a.dispose();
    throw e;
  }
}

/** Check an array given for an external entry: live, same runtime, the entry's shape, dtype and device. */
export function checkExternal(
  rt: Runtime,
  idx: IndexedGraph,
  eid: number,
  a: NDArray,
  shape: Shape,
  dtype: DTypeName,
  ctx: Context,
  op = 'GraphRunner',
): void {
  a.checkLive(op);
  if (a.runtime !== rt) {
    throw new MXNetError(`${describeEntry(idx, eid)}: the array given for it belongs to another runtime`, {
      op,
    });
  }
  const same = a.shape.length === shape.length && a.shape.every((d, i) => d === shape[i]);
  if (!same || a.dtype !== dtype || a.ctx !== ctx) {
    throw new MXNetError(
      `${describeEntry(idx, eid)}: expected ${dtype} ${shapeToString(shape)} on ${ctx}, given ${a.dtype} ${shapeToString(a.shape)} on ${a.ctx}`,
      {
        op,
        shapes: [shape, a.shape],
        dtypes: [dtype, a.dtype],
        device: ctx.toString(),
        hint: 'bind arrays of the inferred shape and dtype on the graph device',
      },
    );
  }
}
