/**
 * Reduce plans: any reduction of a dense row-major array over an axis set becomes a few calls of
 * two loop shapes. Size-1 axes are dropped and adjacent axes with the same role (reduced or kept)
 * merged, leaving alternating segments, e.g. (2,3,4,5) over axes {1,2} → [K 2, R 12, K 5]. The last
 * two or three segments form the *tail*, run by one loop call:
 *
 *   [.. K?, R]     → rows(outer = K, r = R)            (row reductions; a full reduction is rows(1, n))
 *   [.. K?, R, K]  → cols(outer = K, r = R, inner = K) (column reductions)
 *   [K] / []       → rows(outer = n, r = 1)            (nothing reduced: the map still applies)
 *
 * Segments before the tail (only when the reduced axes are not adjacent) form the *prefix*, walked
 * here with an odometer: one tail call per prefix index, combining (mode 1) into the output after
 * the first visit of each output block. Loops take byte addresses and a mode (0 write, 1 combine),
 * so the same plan drives the wasm loops and the TypeScript loops, and a worker pool can split a
 * tail call by its outer range (rows/cols are independent per outer index).
 */

/** The two loop shapes (byte addresses; mode 0 = write, 1 = combine with the output). */
export interface ReduceLoops {
  rows(inAddr: number, outAddr: number, outer: number, r: number, mode: number): void;
  cols(inAddr: number, outAddr: number, outer: number, r: number, inner: number, mode: number): void;
}

export interface Segment {
  readonly size: number;
  readonly reduced: boolean;
}

/** Merge a shape and its reduced-axis flags into alternating segments (size-1 axes dropped). */
export function mergeSegments(shape: readonly number[], reduced: readonly boolean[]): Segment[] {
  const out: { size: number; reduced: boolean }[] = [];
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i] as number;
    if (d === 1) continue;
    const red = reduced[i] as boolean;
    const last = out[out.length - 1];
    if (last && last.reduced === red) last.size *= d;
    else out.push({ size: d, reduced: red });
  }
  return out;
}

export type TailCall =
  | { readonly kind: 'rows'; readonly outer: number; readonly r: number }
  | { readonly kind: 'cols'; readonly outer: number; readonly r: number; readonly inner: number };

export interface ReducePlan {
  readonly prefix: readonly Segment[];
  readonly tail: TailCall;
  /** Elements of input / output covered by one tail call. */
  readonly tailIn: number;
  readonly tailOut: number;
  /** Elements reduced into each output element (for mean). */
  readonly count: number;
}

/** Plan a reduction of `shape` over the axes flagged in `reduced` (input must be non-empty). */
export function planReduce(shape: readonly number[], reduced: readonly boolean[]): ReducePlan {
  const segs = mergeSegments(shape, reduced);
  let count = 1;
  for (const s of segs) if (s.reduced) count *= s.size;
  const n = segs.length;
  const last = segs[n - 1];
  if (last === undefined || !segs.some((s) => s.reduced)) {
    const size = last?.size ?? 1;
    return { prefix: [], tail: { kind: 'rows', outer: size, r: 1 }, tailIn: size, tailOut: size, count };
  }
  if (last.reduced) {
    const k = segs[n - 2];
    const outer = k ? k.size : 1;
    return {
      prefix: segs.slice(0, k ? n - 2 : n - 1),
      tail: { kind: 'rows', outer, r: last.size },
      tailIn: outer * last.size,
      tailOut: outer,
      count,
    };
  }
  const r = segs[n - 2] as Segment;
  const k = segs[n - 3];
  const outer = k ? k.size : 1;
  return {
    prefix: segs.slice(0, k ? n - 3 : n - 2),
    tail: { kind: 'cols', outer, r: r.size, inner: last.size },
    tailIn: outer * r.size * last.size,
    tailOut: outer * last.size,
    count,
  };
}

/** Run `plan` with `loops` from input address `inAddr` into `outAddr` (element size `sz` bytes). */
export function runPlan(
  plan: ReducePlan,
  loops: ReduceLoops,
  inAddr: number,
  outAddr: number,
  sz: number,
): void {
  const { prefix, tail } = plan;
  const call = (inA: number, outA: number, mode: number): void => {
    if (tail.kind === 'rows') loops.rows(inA, outA, tail.outer, tail.r, mode);
    else loops.cols(inA, outA, tail.outer, tail.r, tail.inner, mode);
  };
  if (prefix.length === 0) {
    call(inAddr, outAddr, 0);
    return;
  }
  // Strides (elements) of each prefix segment in the input and, for kept ones, in the output.
  const m = prefix.length;
  const inStride = new Array<number>(m);
  const outStride = new Array<number>(m);
  let si = plan.tailIn;
  let so = plan.tailOut;
  for (let j = m - 1; j >= 0; j--) {
    const s = prefix[j] as Segment;
    inStride[j] = si;
    outStride[j] = s.reduced ? 0 : so;
    si *= s.size;
    if (!s.reduced) so *= s.size;
  }
  const idx = new Array<number>(m).fill(0);
  for (;;) {
    let inOff = 0;
    let outOff = 0;
    let mode = 0;
    for (let j = 0; j < m; j++) {
      const i = idx[j] as number;
      inOff += i * (inStride[j] as number);
      outOff += i * (outStride[j] as number);
      if (i > 0 && (prefix[j] as Segment).reduced) mode = 1;
    }
    call(inAddr + inOff * sz, outAddr + outOff * sz, mode);
    let j = m - 1;
    for (; j >= 0; j--) {
      const next = (idx[j] as number) + 1;
      if (next < (prefix[j] as Segment).size) {
        idx[j] = next;
        break;
      }
      idx[j] = 0;
    }
    if (j < 0) return;
  }
}

/** Reduced-axis flags from MXNet's axis/exclude params (already validated by shape inference). */
export function reducedFlags(ndim: number, axis: readonly number[] | null, exclude: boolean): boolean[] {
  if (axis === null || axis.length === 0) return new Array<boolean>(ndim).fill(true);
  const flags = new Array<boolean>(ndim).fill(exclude);
  for (const a of axis) flags[a < 0 ? a + ndim : a] = !exclude;
  return flags;
}
