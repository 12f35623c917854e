/**
 * `_npi_pad`'s maximum and minimum modes, in NumPy's order: the input is copied into the interior,
 * then axis by axis each line's statistic over its interior is written into its padding, where a
 * line of axis i runs over every padded position of the axes before i and the interior of the
 * axes after it (NumPy's `_view_roi`), so corners take the later axis's statistic of values padded
 * earlier. Values are compared as numbers (half floats decoded; bigints as bigints; NaN wins, as
 * `np.max`), and the winner's stored bits are copied, so nothing is re-encoded.
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { bfloatToFloat, halfToFloat } from '../../shape/dtype-bits.js';
import { addr, type Blob, withTarget } from '../../shape/kernel-util.js';
import { denseStrides } from '../../shape/strided-copy.js';
import { gatherAxes, type Segment } from './gather.js';

type Stored = ArrayLike<number | bigint> & { [i: number]: number | bigint };

function decoder(dtype: DTypeName): (v: number | bigint) => number | bigint {
  if (dtype === 'float16') return (v) => halfToFloat(v as number);
  if (dtype === 'bfloat16') return (v) => bfloatToFloat(v as number);
  return (v) => v;
}

/** Fill `out`'s padding with the interior's maximum or minimum, axis by axis. */
export function padStats(
  rt: CpuWasmRuntime,
  src: Blob,
  out: Blob,
  req: OpReqType,
  maps: readonly (readonly Segment[])[],
  rows: readonly (readonly [number, number])[],
  mode: 'maximum' | 'minimum',
): void {
  withTarget(rt, out, req, '_npi_pad', (target) => {
    const ta = addr(rt, target);
    gatherAxes(rt, '_npi_pad', out.dtype, addr(rt, src), src.shape, ta, out.shape, maps, OpReq.write);
    const nd = out.shape.length;
    const st = denseStrides(out.shape);
    const dec = decoder(out.dtype);
    const isMax = mode === 'maximum';
    const view = rt.memory.view(out.dtype, ta, out.size) as unknown as Stored;
    for (let ax = 0; ax < nd; ax++) {
      const [b, e] = rows[ax] as readonly [number, number];
      if (b === 0 && e === 0) continue;
      const n = src.shape[ax] as number;
      // Ranges of the other axes: padded extent before ax, interior after it.
      const lo = out.shape.map((_, i) => (i > ax ? ((rows[i] as readonly number[])[0] as number) : 0));
      const hi = out.shape.map((d, i) =>
        i < ax ? d : i > ax ? (lo[i] as number) + (src.shape[i] as number) : 1,
      );
      if (hi.some((h, i) => h <= (lo[i] as number))) continue;
      const pos = [...lo];
      const s = st[ax] as number;
      for (;;) {
        const base = pos.reduce((p, v, i) => (i === ax ? p : p + v * (st[i] as number)), 0);
        let best = base + b * s;
        let bv = dec(view[best] as number | bigint);
        for (let k = 1; k < n; k++) {
          if (typeof bv === 'number' && Number.isNaN(bv)) break;
          const at = base + (b + k) * s;
          const v = dec(view[at] as number | bigint);
          if ((typeof v === 'number' && Number.isNaN(v)) || (isMax ? v > bv : v < bv)) {
            best = at;
            bv = v;
          }
        }
        const bits = view[best] as number | bigint;
        for (let k = 0; k < b; k++) view[base + k * s] = bits;
        for (let k = 0; k < e; k++) view[base + (b + n + k) * s] = bits;
        let i = nd - 1;
        while (i >= 0) {
          if (i === ax) {
            i--;
            continue;
          }
          pos[i] = (pos[i] as number) + 1;
          if ((pos[i] as number) < (hi[i] as number)) break;
          pos[i] = lo[i] as number;
          i--;
        }
        if (i < 0) break;
      }
    }
  });
}
