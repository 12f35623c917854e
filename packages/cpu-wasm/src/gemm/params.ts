/**
 * The GEMM parameter block: one problem (possibly batched) described in wasm memory, so the same
 * block drives the main thread and every worker — a chunk call needs only (chunk, thread, block).
 * Slots are i32 (byte addresses and byte strides); alpha is an f64 at ALPHA_BYTE.
 */
export const P_M = 0;
export const P_N = 1;
export const P_K = 2;
export const P_A = 3;
/** Byte stride between rows of A as stored (lhs row-major). */
export const P_LDA = 4;
export const P_B = 5;
export const P_LDB = 6;
export const P_C = 7;
export const P_LDC = 8;
export const P_TRANS_A = 9;
export const P_TRANS_B = 10;
/** 1: add into C (req add). */
export const P_ACCUMULATE = 11;
/** Packed B of all batches and k blocks. */
export const P_PACKED_B = 12;
/** Bytes of packed B per batch. */
export const P_PACKED_B_BATCH = 13;
/** Per-thread scratch (packed A block + one edge tile): base and bytes per thread. */
export const P_SCRATCH = 14;
export const P_SCRATCH_BYTES = 15;
export const P_MC = 16;
export const P_KC = 17;
/** Rows of C per compute chunk (a multiple of mc). */
export const P_ROWS_PER_CHUNK = 18;
export const P_CHUNKS_PER_BATCH = 19;
export const P_K_BLOCKS = 20;
/** Batch b = b1 * inner + b0; operand offset = b0 * s0 + b1 * s1 (bytes). */
export const P_BATCH_INNER = 21;
export const P_SA0 = 22;
export const P_SA1 = 23;
export const P_SB0 = 24;
export const P_SB1 = 25;
export const P_SC0 = 26;
export const P_SC1 = 27;
/** packB chunks per k block: B's columns split into groups of P_PACKB_COLS (a multiple of nr). */
export const P_PACKB_PARTS = 28;
export const P_PACKB_COLS = 29;
/** `computeFused` only: byte offset, inside each thread's scratch, of its packed B block. */
export const P_SCRATCH_B = 30;
export const ALPHA_BYTE = 128;
export const PARAM_BYTES = 136;
