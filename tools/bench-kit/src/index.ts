/** @mx/bench-kit: the benchmark harness (core.ts) and what the graph-level benches share (interleave.ts). */
export * from './core.js';
export * from './interleave.js';
