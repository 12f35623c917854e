/**
 * One engine for the np ops whose output is the input read through a per-axis index map (roll,
 * repeats, pad's constant/edge/reflect/symmetric modes): each axis's map is a list of segments —
 * a run of output positions reading input positions `src, src+step, ...` (step 1, -1 or 0), or a
 * constant fill — and the output is the product of the axes' segments, each product one
 * `copyStrided` call (the shape family's wasm strided copy). Fills copy from one element of
 * scratch with stride 0. The adjoint (`scatterAxes`) adds the output gradient back through the
 * same maps; steps of 0 (repeated reads) are split into one-element segments there, so each copy
 * is one-to-one and repeated reads accumulate in order.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { fillDense } from '../../shape/dtype-bits.js';
import { copyStrided, denseStrides } from '../../shape/strided-copy.js';

/** A run of `len` output positions from `out`: input positions src + k*step, or a fill (src = -1). */
export interface Segment {
  readonly out: number;
  readonly len: number;
  readonly src: number;
  readonly step: number;
}

/** Segments of a map given as one input index per output position (-1 = fill), merged into runs. */
export function runsOf(index: readonly number[]): Segment[] {
  const segs: Segment[] = [];
  let i = 0;
  while (i < index.length) {
    const s = index[i] as number;
    let len = 1;
    if (s < 0) {
      while (i + len < index.length && (index[i + len] as number) < 0) len++;
      segs.push({ out: i, len, src: -1, step: 0 });
    } else {
      const step = i + 1 < index.length && (index[i + 1] as number) >= 0 ? (index[i + 1] as number) - s : 0;
      if (step >= -1 && step <= 1) {
        while (i + len < index.length && index[i + len] === s + len * step) len++;
      }
      segs.push({ out: i, len, src: s, step: len === 1 ? 1 : step });
    }
    i += len;
  }
  return segs;
}

/** Calls `fn` with one segment per axis, for every combination. */
function eachCombination(
  maps: readonly (readonly Segment[])[],
  fn: (segs: readonly Segment[]) => void,
): void {
  if (maps.some((m) => m.length === 0)) return;
  const pick = new Array<number>(maps.length).fill(0);
  for (;;) {
    fn(pick.map((p, a) => (maps[a] as readonly Segment[])[p] as Segment));
    let a = maps.length - 1;
    while (a >= 0) {
      pick[a] = (pick[a] as number) + 1;
      if ((pick[a] as number) < (maps[a] as readonly Segment[]).length) break;
      pick[a] = 0;
      a--;
    }
    if (a < 0) return;
  }
}

function scratch(rt: CpuWasmRuntime, bytes: number, op: string): number {
  const p = rt.memory.allocator.alloc(bytes);
  if (p === null)
    throw new MXNetError(`out of memory allocating ${bytes} bytes of scratch`, { op, device: 'cpu-wasm' });
  return p;
}

/**
 * out[i0, i1, ...] = src[map0(i0), map1(i1), ...] (or `fill` where a map says so), honouring `req`
 * (write or add). `srcShape`/`outShape` are the dense shapes at `srcAddr`/`outAddr`.
 */
export function gatherAxes(
  rt: CpuWasmRuntime,
  op: string,
  dtype: DTypeName,
  srcAddr: number,
  srcShape: readonly number[],
  outAddr: number,
  outShape: readonly number[],
  maps: readonly (readonly Segment[])[],
  req: OpReqType,
  fill = 0,
): void {
  if (req === OpReq.null) return;
  const bytes = DType[dtype].bytes;
  const sst = denseStrides(srcShape);
  const ost = denseStrides(outShape);
  const needsFill = maps.some((m) => m.some((s) => s.src < 0));
  const fillAddr = needsFill ? scratch(rt, bytes, op) : 0;
  try {
    if (needsFill) fillDense(rt, dtype, fillAddr, 1, fill);
    eachCombination(maps, (segs) => {
      const shape = segs.map((s) => s.len);
      const dst = {
        addr: outAddr + segs.reduce((p, s, a) => p + s.out * (ost[a] as number), 0) * bytes,
        strides: ost,
      };
      if (segs.some((s) => s.src < 0)) {
        copyStrided(rt, dtype, shape, { addr: fillAddr, strides: shape.map(() => 0) }, dst, req);
        return;
      }
      const src = {
        addr: srcAddr + segs.reduce((p, s, a) => p + s.src * (sst[a] as number), 0) * bytes,
        strides: segs.map((s, a) => s.step * (sst[a] as number)),
      };
      copyStrided(rt, dtype, shape, src, dst, req);
    });
  } finally {
    if (needsFill) rt.memory.allocator.free(fillAddr, bytes);
  }
}

/**
 * The adjoint of `gatherAxes`: grad[src positions] += og[out positions] for every non-fill
 * segment; `grad` (dense `gradShape` at `gradAddr`) is zeroed first unless req is add.
 */
export function scatterAxes(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  ogAddr: number,
  ogShape: readonly number[],
  gradAddr: number,
  gradShape: readonly number[],
  maps: readonly (readonly Segment[])[],
  req: OpReqType,
): void {
  if (req === OpReq.null) return;
  const size = gradShape.reduce((p, d) => p * d, 1);
  if (req !== OpReq.add) fillDense(rt, dtype, gradAddr, size, 0);
  const bytes = DType[dtype].bytes;
  const gst = denseStrides(gradShape);
  const ost = denseStrides(ogShape);
  const unit = maps.map((m) =>
    m
      .filter((s) => s.src >= 0)
      .flatMap((s) =>
        s.step !== 0 || s.len === 1
          ? [s]
          : Array.from({ length: s.len }, (_, k) => ({ out: s.out + k, len: 1, src: s.src, step: 1 })),
      ),
  );
  eachCombination(unit, (segs) => {
    const shape = segs.map((s) => s.len);
    copyStrided(
      rt,
      dtype,
      shape,
      { addr: ogAddr + segs.reduce((p, s, a) => p + s.out * (ost[a] as number), 0) * bytes, strides: ost },
      {
        addr: gradAddr + segs.reduce((p, s, a) => p + s.src * (gst[a] as number), 0) * bytes,
        strides: segs.map((s, a) => s.step * (gst[a] as number)),
      },
      OpReq.add,
    );
  });
}
