/**
 * cpu-wasm kernels of the np shape area (docs/design/np.md). Most np shape ops are composites over
 * legacy kernels (defined in @mx/ops) and need nothing here; these are the ones with their own:
 * `_npi_roll`, `_npi_repeats` and `_npi_pad` (constant/edge/reflect/symmetric) read the input
 * through per-axis index maps (gather.ts), their backward ops add back through the same maps;
 * `_npi_rot90` is one strided copy (flips are negative strides, the turn a stride swap); pad's
 * maximum/minimum modes fill axis by axis in NumPy's order (pad-stats.ts). The attrs were checked
 * by the ops' shape inference, so the maps here only normalise them.
 */
import { DType } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { addr, type Blob, defineKernel } from '../../shape/kernel-util.js';
import { copyStrided, dense, denseStrides } from '../../shape/strided-copy.js';
import { gatherAxes, runsOf, type Segment, scatterAxes } from './gather.js';
import { padStats } from './pad-stats.js';

const whole = (n: number): Segment[] => (n === 0 ? [] : [{ out: 0, len: n, src: 0, step: 1 }]);
const norm = (a: number, n: number) => (a < 0 ? a + n : a);

interface RollAttrs {
  readonly shift: readonly number[] | null;
  readonly axis: readonly number[] | null;
}

/** The input seen as `view` and each axis's map, for roll. */
function rollPlan(a: RollAttrs, shape: readonly number[]): { view: number[]; maps: Segment[][] } {
  const shift = a.shift ?? [0];
  const view = a.axis === null ? [shape.reduce((p, d) => p * d, 1)] : [...shape];
  const shifts = new Array<number>(view.length).fill(0);
  if (a.axis === null) shifts[0] = shift.reduce((p, s) => p + s, 0);
  else {
    const n = Math.max(shift.length, a.axis.length);
    for (let i = 0; i < n; i++) {
      const ax = norm((a.axis.length === 1 ? a.axis[0] : a.axis[i]) as number, view.length);
      shifts[ax] = (shifts[ax] as number) + ((shift.length === 1 ? shift[0] : shift[i]) as number);
    }
  }
  const maps = view.map((n, i) => {
    if (n === 0) return [];
    const s = (((shifts[i] as number) % n) + n) % n;
    return runsOf(Array.from({ length: n }, (_, j) => (j - s + n) % n));
  });
  return { view, maps };
}

interface RepeatsAttrs {
  readonly repeats: readonly number[];
  readonly axis: number | null;
}

/** The input seen as `view`, the output as `outView`, and the maps, for repeats. */
function repeatsPlan(
  a: RepeatsAttrs,
  shape: readonly number[],
): { view: number[]; outView: number[]; maps: Segment[][] } {
  const view = a.axis === null ? [shape.reduce((p, d) => p * d, 1)] : [...shape];
  const ax = a.axis === null ? 0 : norm(a.axis, view.length);
  const n = view[ax] as number;
  const counts = a.repeats.length === 1 ? new Array<number>(n).fill(a.repeats[0] as number) : [...a.repeats];
  const segs: Segment[] = [];
  let at = 0;
  counts.forEach((r, i) => {
    if (r === 0) return;
    const last = segs[segs.length - 1];
    if (
      r === 1 &&
      last !== undefined &&
      last.step === 1 &&
      last.src + last.len === i &&
      last.out + last.len === at
    )
      segs[segs.length - 1] = { ...last, len: last.len + 1 };
    else segs.push({ out: at, len: r, src: i, step: r === 1 ? 1 : 0 });
    at += r;
  });
  const outView = [...view];
  outView[ax] = at;
  return { view, outView, maps: view.map((d, i) => (i === ax ? segs : whole(d))) };
}

interface PadAttrs {
  readonly pad_width: readonly (readonly number[])[];
  readonly mode: 'constant' | 'edge' | 'reflect' | 'symmetric' | 'maximum' | 'minimum';
  readonly constant_values: number;
}

/** (before, after) per axis (the definition's broadcasting of pad_width, already checked). */
export function padRowsOf(pw: readonly (readonly number[])[], ndim: number): [number, number][] {
  if (ndim === 1 && pw.length === 2 && pw.every((r) => r.length === 1))
    return [[pw[0]?.[0] as number, pw[1]?.[0] as number]];
  const rows = pw.map((r) => [r[0] as number, (r.length === 1 ? r[0] : r[1]) as number] as [number, number]);
  return rows.length === 1 ? Array.from({ length: ndim }, () => rows[0] as [number, number]) : rows;
}

/** Per-axis maps of pad's index modes (maximum/minimum read the interior like constant). */
function padMaps(a: PadAttrs, shape: readonly number[]): Segment[][] {
  const rows = padRowsOf(a.pad_width, shape.length);
  return shape.map((n, i) => {
    const [b, e] = rows[i] as [number, number];
    const idx = Array.from({ length: n + b + e }, (_, j) => {
      const k = j - b;
      switch (a.mode) {
        case 'edge':
          return Math.min(Math.max(k, 0), n - 1);
        case 'reflect': {
          if (n === 1) return 0;
          const per = 2 * (n - 1);
          const m = ((k % per) + per) % per;
          return m < n ? m : per - m;
        }
        case 'symmetric': {
          const per = 2 * n;
          const m = ((k % per) + per) % per;
          return m < n ? m : per - 1 - m;
        }
        default:
          return k >= 0 && k < n ? k : -1;
      }
    });
    return runsOf(idx);
  });
}

export function installNpShape(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<RollAttrs>(registry, '_npi_roll', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const { view, maps } = rollPlan(a, src.shape);
    gatherAxes(rt, '_npi_roll', out.dtype, addr(rt, src), view, addr(rt, out), view, maps, r as OpReqType);
  });

  defineKernel<{ k: number; axes: readonly number[] | null }>(registry, '_npi_rot90', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const nd = src.shape.length;
    const ax = a.axes ?? [0, 1];
    const a0 = norm(ax[0] as number, nd);
    const a1 = norm(ax[1] as number, nd);
    const k = ((a.k % 4) + 4) % 4;
    const shape = [...src.shape];
    const strides = denseStrides(src.shape);
    let offset = 0;
    const flip = (i: number) => {
      offset += ((shape[i] as number) - 1) * (strides[i] as number);
      strides[i] = -(strides[i] as number);
    };
    const swap = () => {
      [shape[a0], shape[a1]] = [shape[a1] as number, shape[a0] as number];
      [strides[a0], strides[a1]] = [strides[a1] as number, strides[a0] as number];
    };
    if (k === 1) {
      flip(a1);
      swap();
    } else if (k === 2) {
      flip(a0);
      flip(a1);
    } else if (k === 3) {
      swap();
      flip(a1);
    }
    copyStrided(
      rt,
      out.dtype,
      shape,
      { addr: addr(rt, src) + offset * DType[out.dtype].bytes, strides },
      dense(addr(rt, out), shape),
      r as OpReqType,
    );
  });

  defineKernel<RepeatsAttrs>(registry, '_npi_repeats', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const { view, outView, maps } = repeatsPlan(a, src.shape);
    gatherAxes(
      rt,
      '_npi_repeats',
      out.dtype,
      addr(rt, src),
      view,
      addr(rt, out),
      outView,
      maps,
      r as OpReqType,
    );
  });

  defineKernel<RepeatsAttrs>(registry, '_backward_npi_repeats', (a, [g], [r], [y]) => {
    const og = g as Blob;
    const grad = y as Blob;
    if (grad.size === 0) return;
    const { view, outView, maps } = repeatsPlan(a, grad.shape);
    scatterAxes(rt, grad.dtype, addr(rt, og), outView, addr(rt, grad), view, maps, r as OpReqType);
  });

  defineKernel<PadAttrs>(registry, '_npi_pad', (a, [x], [r], [y]) => {
    const src = x as Blob;
    const out = y as Blob;
    if (out.size === 0) return;
    const maps = padMaps(a, src.shape);
    if (a.mode === 'maximum' || a.mode === 'minimum') {
      padStats(rt, src, out, r as OpReqType, maps, padRowsOf(a.pad_width, src.shape.length), a.mode);
      return;
    }
    gatherAxes(
      rt,
      '_npi_pad',
      out.dtype,
      addr(rt, src),
      src.shape,
      addr(rt, out),
      out.shape,
      maps,
      r as OpReqType,
      a.constant_values,
    );
  });

  defineKernel<PadAttrs>(registry, '_backward_npi_pad', (a, [g], [r], [y]) => {
    const og = g as Blob;
    const grad = y as Blob;
    if (grad.size === 0) return;
    scatterAxes(
      rt,
      grad.dtype,
      addr(rt, og),
      og.shape,
      addr(rt, grad),
      grad.shape,
      padMaps(a, grad.shape),
      r as OpReqType,
    );
  });
}
