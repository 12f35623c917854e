/**
 * Tiny structured-control helpers over the assembler's FunctionBuilder, so the GEMM generators read
 * as loops instead of block/loop/br bookkeeping. Each helper leaves the wasm stack as it found it.
 */
import type { FunctionBuilder } from '../wasm/assembler.js';

/** `for (v = start; v < limit; v += step) body()` — start/limit/step emit an i32 each. */
export function forLoop(
  f: FunctionBuilder,
  v: number,
  start: () => void,
  limit: () => void,
  step: number | (() => void),
  body: () => void,
): void {
  start();
  f.set(v);
  f.block().loop();
  f.get(v);
  limit();
  f.op('i32.ge_s').brIf(1);
  body();
  f.get(v);
  if (typeof step === 'number') f.i32Const(step);
  else step();
  f.op('i32.add').set(v).br(0).end().end();
}

/** Push min(a, b) of two signed i32 expressions (via select). */
export function minI32(f: FunctionBuilder, a: () => void, b: () => void): void {
  a();
  b();
  a();
  b();
  f.op('i32.lt_s', 'select');
}

/** Load the i32 param at slot `slot` of the parameter block whose address is in local `args`. */
export function param(f: FunctionBuilder, args: number, slot: number): FunctionBuilder {
  return f.get(args).mem('i32.load', slot * 4);
}
