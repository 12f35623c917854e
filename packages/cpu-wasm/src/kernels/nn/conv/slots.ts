/**
 * What the convolution and pooling parameter blocks (conv-params.ts, pool-params.ts) have in common:
 * i32 slots numbered in declaration order, the 3-D window geometry both declare (input extents,
 * output extents, kernel, stride; [d, h, w] each) and writing [d, h, w] triples into those slots.
 * Each block keeps its own slot table so that its layout reads in one place.
 */

/** Hands out consecutive slot numbers; `bytes` is the block size (whole 64-byte lines). */
export class SlotCounter {
  #next = 0;

  readonly slot = (): number => this.#next++;

  get bytes(): number {
    return Math.ceil((this.#next * 4) / 64) * 64;
  }
}

/** The window slots, allocated in this order (spread into a slot table where they belong). */
export function windowSlots(slot: () => number) {
  return {
    D: slot(),
    H: slot(),
    W: slot(),
    OD: slot(),
    OH: slot(),
    OW: slot(),
    KD: slot(),
    KH: slot(),
    KW: slot(),
    SD: slot(),
    SH: slot(),
    SW: slot(),
  };
}

export type WindowSlots = ReturnType<typeof windowSlots>;

type Axes = readonly [number, number, number];

/** A 3-D window: input and output extents, kernel and stride, [d, h, w] each. */
export interface Window3 {
  readonly in: Axes;
  readonly out: Axes;
  readonly kernel: Axes;
  readonly stride: Axes;
}

/** v[slots[i]] = values[i] for each axis. */
export function setAxes(v: Int32Array, slots: readonly number[], values: readonly number[]): void {
  slots.forEach((s, i) => {
    v[s] = values[i] as number;
  });
}

/** Write the window slots of a block from the geometry. */
export function setWindow(v: Int32Array, s: WindowSlots, g: Window3): void {
  setAxes(v, [s.D, s.H, s.W], g.in);
  setAxes(v, [s.OD, s.OH, s.OW], g.out);
  setAxes(v, [s.KD, s.KH, s.KW], g.kernel);
  setAxes(v, [s.SD, s.SH, s.SW], g.stride);
}
