/**
 * The pooling parameter block: one problem as i32 slots in wasm memory, read by the chunk entry
 * points `fwd`/`bwd(chunk, thread, block)` of pool-wasm.ts and written by pool-run.ts. Geometry is
 * 3-D (1-D/2-D have unit leading axes) with element strides per axis, which covers channel-first
 * and channel-last layouts alike; addresses are byte addresses.
 */
import { SlotCounter, windowSlots } from './slots.js';

export type PoolKind = 'max' | 'avg' | 'sum' | 'lp2' | 'lp3';

const slots = new SlotCounter();
const slot = slots.slot;
/** Parameter block slots (i32). */
export const Q = {
  CH: slot(),
  /** D, H, W, OD, OH, OW, KD, KH, KW, SD, SH, SW. */
  ...windowSlots(slot),
  PD: slot(),
  PH: slot(),
  PW: slot(),
  /** Element strides of the input/gradient: per image, per channel, per d/h/w step. */
  I_N: slot(),
  I_C: slot(),
  I_D: slot(),
  I_H: slot(),
  I_W: slot(),
  /** Element strides of the output/output gradient. */
  O_N: slot(),
  O_C: slot(),
  O_D: slot(),
  O_H: slot(),
  O_W: slot(),
  X: slot(),
  Y: slot(),
  DY: slot(),
  DX: slot(),
  /** 1: add into the output (forward req add). */
  ACC: slot(),
  INCLUDE_PAD: slot(),
  /** 1: rows are contiguous (vector path allowed). */
  VEC: slot(),
  PPC: slot(),
  PLANES: slot(),
} as const;
export const POOL_PARAM_BYTES = slots.bytes;
