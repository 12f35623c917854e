/**
 * Layout of the pool's control block: a few i32 slots inside the shared wasm memory (allocated
 * through the memory's allocator) that the main thread and the workers coordinate on with Atomics.
 * Keeping it in the wasm memory means workers need nothing but the Memory they already hold.
 *
 * A job is published by writing its fields, resetting FINISHED and NEXT, then bumping SEQ (workers
 * `Atomics.wait` on SEQ). Chunks are claimed with compare-exchange on NEXT, whose high bits carry
 * the job's tag (SEQ & TAG_MASK): a worker that read a stale job can never claim a chunk of the
 * next one. Whoever finishes the last chunk notifies FINISHED.
 */
export const C_SEQ = 0;
export const C_NEXT = 1;
export const C_TOTAL = 2;
export const C_FINISHED = 3;
export const C_MODULE = 4;
export const C_EXPORT = 5;
/** Threads (by index) allowed to take part: the job planned scratch for this many. */
export const C_LIMIT = 6;
export const C_ERROR = 7;
export const C_STOP = 8;
export const C_ARGS = 9;
export const MAX_ARGS = 8;
/** Per-worker state slots start here: 1 while the worker sits in its wait loop, 0 when idle. */
export const C_STATE = 20;
export const MAX_WORKERS = 32;
/** Per-worker slots set to 1 once the worker has processed its init message. */
export const C_ONLINE = C_STATE + MAX_WORKERS;
export const CONTROL_INTS = C_ONLINE + MAX_WORKERS;
export const CONTROL_BYTES = CONTROL_INTS * 4;

export const INDEX_BITS = 20;
export const INDEX_MASK = (1 << INDEX_BITS) - 1;
export const TAG_MASK = 0x7ff;
/** Chunks per job must stay below this (the claim index has INDEX_BITS bits). */
export const MAX_CHUNKS = INDEX_MASK;
/** How long a thread spins on a control word before blocking in Atomics.wait (ms). */
export const SPIN_MS = 0.05;
