/**
 * PlanMemory (nnvm `plan_memory.cc`): give every entry of a graph a storage id so that entries
 * whose lifetimes do not overlap share one buffer, in one sweep over the nodes in execution order.
 *
 * The rules are MXNet's, so a plan here matches what MXNet's executor would allocate: an entry's
 * reference count is its readers (minus `ignoreInputs`) plus one per graph output; an op's output
 * first tries to take an input's buffer in place (`inplaceOption`) when this node is that buffer's
 * last reader (or the pair is `inplaceIdentity`), sizes and element widths agree; otherwise it is
 * served from the free pool — the smallest free block at least as large within `matchRange`,
 * else the largest smaller one (which grows) — largest outputs first; inputs whose count falls to
 * zero return their buffer to the pool after the node, and outputs nobody reads at once.
 *
 * Storage is counted per buffer, not per entry, because in-place chains put several entries on
 * one buffer. Sizes are bytes (elements × dtype width), where MXNet's planner assumed 4 bytes. An
 * identity pair shares a buffer that others still read only when the dtypes are equal: MXNet's
 * Cast declares identity, and a float32 → int32 cast would otherwise overwrite a live input.
 */
import { DType, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { IndexedEntry, IndexedGraph } from '../indexed.js';

/** Storage id of an entry whose memory comes from outside (variables, bound arrays). */
export const EXTERNAL_STORAGE = -2;
/** Storage id of an entry whose shape is unknown at planning time (allocated when it runs). */
export const DYNAMIC_STORAGE = -1;
/** Storage id of an entry in `options.unused`: not computed (req null), no memory. */
export const NULL_STORAGE = -3;
/**
 * `inplaceIndex` of an output nobody reads (MXNet's -2): the executor may run its op with req
 * null for it. Unused entries get it too.
 */
export const INPLACE_NEVER_READ = -2;

/** MXNet's `NNVM_EXEC_MATCH_RANGE` default. */
export const DEFAULT_MATCH_RANGE = 16;

/** Not planned yet (MXNet's kBadStorageID during the sweep). */
const PENDING = -100;

export interface PlanMemoryOptions {
  /** Per entry id. */
  readonly shapes: readonly (Shape | undefined)[];
  readonly dtypes: readonly (DTypeName | undefined)[];
  /** Entries given storage from outside besides variables (e.g. bound gradient arrays). */
  readonly external?: ReadonlySet<number>;
  /** Entries nobody needs (req null): not allocated. */
  readonly unused?: ReadonlySet<number>;
  /** Allow in-place sharing (FInplaceOption/FInplaceIdentity); default true. */
  readonly inplace?: boolean;
  /** Allow reuse of freed storage; default true. */
  readonly reuse?: boolean;
  /**
   * A free block is reused for a request of `n` bytes when its size is within
   * [floor(n / matchRange), n · matchRange] (MXNet `NNVM_EXEC_MATCH_RANGE`); default 16.
   */
  readonly matchRange?: number;
}

export interface MemoryPlan {
  /** Per entry: a storage id >= 0, EXTERNAL_STORAGE, DYNAMIC_STORAGE or NULL_STORAGE. */
  readonly storageId: Int32Array;
  /** Per entry: the input index whose storage it shares in place, INPLACE_NEVER_READ, else -1. */
  readonly inplaceIndex: Int32Array;
  /** Bytes of each storage id. */
  readonly storageBytes: readonly number[];
  /** Sum of storageBytes. */
  readonly plannedBytes: number;
  /** Bytes with one buffer per non-external entry (entries of unknown size and unused ones excluded). */
  readonly naiveBytes: number;
  /** Op outputs left to be allocated when they run (unknown shape or dtype; MXNet `storage_num_not_allocated`). */
  readonly numDynamic: number;
  /** Per entry: readers (minus ignored inputs) plus graph-output uses, the counts the plan used. */
  readonly refCount: Int32Array;
}

interface FreeBlock {
  readonly bytes: number;
  readonly seq: number;
  readonly sid: number;
}

/** The free pool and the blocks handed out (MXNet's GraphAllocator, one device). */
class Allocator {
  readonly bytes: number[] = [];
  #free: FreeBlock[] = [];
  #seq = 0;

  constructor(readonly matchRange: number) {}

  request(size: number): number {
    if (this.matchRange > 0) {
      const lo = Math.floor(size / this.matchRange);
      const hi = size * this.matchRange;
      // Smallest block >= size (earliest released among equals), else the largest smaller one
      // (latest released among equals): the order MXNet's multimap walk gives.
      let best = -1;
      for (let i = 0; i < this.#free.length; i++) {
        const b = this.#free[i] as FreeBlock;
        if (b.bytes < size || b.bytes > hi) continue;
        const cur = this.#free[best];
        if (cur === undefined || b.bytes < cur.bytes || (b.bytes === cur.bytes && b.seq < cur.seq)) best = i;
      }
      if (best < 0) {
        for (let i = 0; i < this.#free.length; i++) {
          const b = this.#free[i] as FreeBlock;
          if (b.bytes >= size || b.bytes < lo) continue;
          const cur = this.#free[best];
          if (cur === undefined || b.bytes > cur.bytes || (b.bytes === cur.bytes && b.seq > cur.seq))
            best = i;
        }
      }
      if (best >= 0) {
        const [b] = this.#free.splice(best, 1) as [FreeBlock];
        this.bytes[b.sid] = Math.max(this.bytes[b.sid] as number, size);
        return b.sid;
      }
    }
    this.bytes.push(size);
    return this.bytes.length - 1;
  }

  release(sid: number): void {
    this.#free.push({ bytes: this.bytes[sid] as number, seq: this.#seq++, sid });
  }
}

function entryBytes(shape: Shape | undefined, dtype: DTypeName | undefined): number | undefined {
  if (shape === undefined || dtype === undefined) return undefined;
  let n = 1;
  for (const d of shape) {
    if (d < 0) return undefined;
    n *= d;
  }
  return n * DType[dtype].bytes;
}

function numElements(shape: Shape | undefined): number | undefined {
  if (shape === undefined) return undefined;
  let n = 1;
  for (const d of shape) {
    if (d < 0) return undefined;
    n *= d;
  }
  return n;
}

function checkOptions(idx: IndexedGraph, options: PlanMemoryOptions): void {
  const n = idx.numNodeEntries;
  if (options.shapes.length !== n || options.dtypes.length !== n) {
    throw new MXNetError(
      `planMemory got ${options.shapes.length} shapes and ${options.dtypes.length} dtypes for ${n} entries`,
      {
        op: 'planMemory',
        hint: 'pass one shape and one dtype per entry id (the inference passes give them)',
      },
    );
  }
  options.dtypes.forEach((t, eid) => {
    if (t !== undefined && !Object.hasOwn(DType, t)) {
      throw new MXNetError(`entry ${eid} has unknown dtype ${String(t)}`, {
        op: 'planMemory',
        hint: `use one of ${Object.keys(DType).join(', ')}`,
      });
    }
  });
  const mr = options.matchRange ?? DEFAULT_MATCH_RANGE;
  if (!Number.isInteger(mr) || mr < 0) {
    throw new MXNetError(`matchRange must be a non-negative integer, got ${mr}`, {
      op: 'planMemory',
      hint: 'MXNet uses 16 (NNVM_EXEC_MATCH_RANGE); 0 disables reuse',
    });
  }
}

/** Readers of each entry minus ignored inputs, plus one per graph output (MXNet's ref_count). */
function referenceCounts(idx: IndexedGraph): Int32Array {
  const ref = new Int32Array(idx.numNodeEntries);
  const add = (e: IndexedEntry, d: number): void => {
    const eid = idx.entryId(e);
    ref[eid] = (ref[eid] as number) + d;
  };
  for (const inode of idx.nodes) {
    const op = inode.node.op;
    if (op === null) continue;
    for (const e of inode.inputs) add(e, 1);
    for (const i of op.ignoreInputs(inode.node.parsed)) {
      const e = inode.inputs[i];
      if (e !== undefined) add(e, -1);
    }
  }
  for (const e of idx.outputs) add(e, 1);
  return ref;
}

/** Plan the memory of every entry of `idx` (see the file comment for the rules). */
export function planMemory(idx: IndexedGraph, options: PlanMemoryOptions): MemoryPlan {
  checkOptions(idx, options);
  const { shapes, dtypes } = options;
  const useInplace = options.inplace ?? true;
  const alloc = new Allocator(options.reuse === false ? 0 : (options.matchRange ?? DEFAULT_MATCH_RANGE));
  const n = idx.numNodeEntries;
  const refCount = referenceCounts(idx);
  const storage = new Int32Array(n).fill(PENDING);
  const inplaceIndex = new Int32Array(n).fill(-1);
  for (const nid of idx.inputNodes) storage[idx.entryId(nid, 0)] = EXTERNAL_STORAGE;
  for (const eid of options.external ?? []) if (eid >= 0 && eid < n) storage[eid] = EXTERNAL_STORAGE;
  for (const eid of options.unused ?? []) {
    if (eid < 0 || eid >= n || storage[eid] === EXTERNAL_STORAGE) continue;
    if (refCount[eid] !== 0) {
      throw new MXNetError(
        `entry ${eid} is marked unused but ${refCount[eid]} reader(s) or graph output(s) need it`,
        {
          op: 'planMemory',
          hint: 'mark only entries no node reads and no graph output returns as unused',
        },
      );
    }
    storage[eid] = NULL_STORAGE;
    inplaceIndex[eid] = INPLACE_NEVER_READ;
  }
  // Remaining readers of each storage id.
  const storageRef: number[] = [];
  let numDynamic = 0;

  idx.nodes.forEach((inode, nid) => {
    const node = inode.node;
    const op = node.op;
    if (op === null) return;
    const attrs = node.parsed;
    const ignored = new Set(op.ignoreInputs(attrs));
    const nOut = node.numOutputs();
    if (useInplace) {
      const pairs = op.inplaceOption(attrs);
      const identity = op.inplaceIdentity(attrs);
      if (identity.length !== 0 && identity.length !== pairs.length) {
        throw new MXNetError(
          `inplaceOption and inplaceIdentity returned vectors of different size for operator ${op.name}`,
          { op: op.name, params: node.attrs, hint: 'give one identity flag per in-place pair' },
        );
      }
      const ignoreAll = ignored.size === inode.inputs.length && inode.inputs.length > 0;
      const taken = new Set<number>();
      pairs.forEach(([i, o], k) => {
        const input = inode.inputs[i];
        if (input === undefined || o < 0 || o >= nOut || taken.has(i)) return;
        const eOut = idx.entryId(nid, o);
        const eIn = idx.entryId(input);
        const sIn = storage[eIn] as number;
        const tIn = dtypes[eIn];
        const tOut = dtypes[eOut];
        const sizeIn = numElements(shapes[eIn]);
        if (
          storage[eOut] === PENDING &&
          sIn >= 0 &&
          ((storageRef[sIn] === 1 && !ignoreAll) || (identity[k] === true && tIn === tOut)) &&
          (refCount[eOut] as number) > 0 &&
          sizeIn !== undefined &&
          sizeIn === numElements(shapes[eOut]) &&
          tIn !== undefined &&
          tOut !== undefined &&
          DType[tIn].bytes === DType[tOut].bytes
        ) {
          taken.add(i);
          storage[eOut] = sIn;
          storageRef[sIn] = (storageRef[sIn] as number) + (refCount[eOut] as number);
          inplaceIndex[eOut] = i;
        }
      });
    }
    // Allocate the remaining outputs, largest first (ties: later outputs first, as MXNet's
    // reverse walk of a multimap does).
    const pending: [number, number][] = [];
    for (let o = 0; o < nOut; o++) {
      const eid = idx.entryId(nid, o);
      if (storage[eid] === PENDING) pending.push([entryBytes(shapes[eid], dtypes[eid]) ?? 0, eid]);
    }
    pending.sort((a, b) => a[0] - b[0] || a[1] - b[1]).reverse();
    for (const [, eid] of pending) {
      const bytes = entryBytes(shapes[eid], dtypes[eid]);
      if (bytes === undefined) {
        storage[eid] = DYNAMIC_STORAGE;
        numDynamic++;
        continue;
      }
      const sid = alloc.request(bytes);
      storageRef[sid] = refCount[eid] as number;
      storage[eid] = sid;
    }
    // Release inputs this node read last.
    inode.inputs.forEach((e, i) => {
      if (ignored.has(i)) return;
      const sid = storage[idx.entryId(e)] as number;
      if (sid < 0) return;
      storageRef[sid] = (storageRef[sid] as number) - 1;
      if (storageRef[sid] === 0) alloc.release(sid);
    });
    // Outputs nobody reads go back at once.
    for (let o = 0; o < nOut; o++) {
      const eid = idx.entryId(nid, o);
      const sid = storage[eid] as number;
      if (sid >= 0 && storageRef[sid] === 0) {
        alloc.release(sid);
        inplaceIndex[eid] = INPLACE_NEVER_READ;
      }
    }
  });

  let naiveBytes = 0;
  for (let eid = 0; eid < n; eid++) {
    if ((storage[eid] as number) >= 0) naiveBytes += entryBytes(shapes[eid], dtypes[eid]) as number;
  }
  const storageBytes = [...alloc.bytes];
  return {
    storageId: storage,
    inplaceIndex,
    storageBytes,
    plannedBytes: storageBytes.reduce((a, b) => a + b, 0),
    naiveBytes,
    numDynamic,
    refCount,
  };
}
