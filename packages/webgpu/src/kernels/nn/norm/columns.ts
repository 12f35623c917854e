/**
 * gamma/beta gradients of LayerNorm, GroupNorm and InstanceNorm: per channel c, over every
 * element of that channel (data viewed as (outer, C, inner)),
 *   dgamma[c] = Σ g (x - mean[row]) r[row],   dbeta[c] = Σ g,
 * where row is the saved statistics' row of the element (LayerNorm: o·inner + k; groups:
 * o·G + c / (C/G)). One workgroup per channel with two tree reductions; each output honours its
 * own req (null skip, add accumulate).
 */
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { paramsDecl } from '../../../wgsl.js';
import {
  bind,
  f32bits,
  type Mode,
  put,
  rowCombine,
  rowEntry,
  rowGrid,
  rowLoop,
  rowPlan,
  touch,
} from '../layers/gpu-util.js';
import type { RowKind } from './rows.js';

const WORDS = 12;

export interface ColumnLayout {
  readonly outer: number;
  readonly C: number;
  readonly inner: number;
  /** Groups: G (channels per group = C / G); unused for LayerNorm. */
  readonly G: number;
}

export function normColumns(
  gpu: GpuHost,
  kind: RowKind,
  l: ColumnLayout,
  eps: number,
  arrays: { og: GpuBlob; x: GpuBlob; mean: GpuBlob; spread: GpuBlob; dgamma: GpuBlob; dbeta: GpuBlob },
  modes: readonly [Mode, Mode],
): void {
  const [mg, mb] = modes;
  if ((mg === 'n' && mb === 'n') || l.C === 0) return;
  const b = bind([arrays.og, arrays.x, arrays.mean, arrays.spread, arrays.dgamma, arrays.dbeta]);
  const [Gr, X, MN, SP, DG, DB] = b.names as [string, string, string, string, string, string];
  const srow = kind === 'ln' ? 'o * inner + k' : 'o * pu(11u) + c / (pu(7u) / pu(11u))';
  const r = kind === 'in' ? `1.0 / sqrt(${SP}[pu(3u) + sr] + eps)` : `1.0 / ${SP}[pu(3u) + sr]`;
  const p = rowPlan(l.outer * l.inner);
  const key = `norm-columns:${kind}:${mg}${mb}:${p.key}:${b.key}`;
  const entry = gpu.rt.pipeline(
    key,
    () => `${paramsDecl(WORDS)}${b.decls}${rowEntry(p, 'pu(7u)', 2)}${touch(b.names)}  let c = row; let C = pu(7u); let inner = pu(8u); let eps = pf(9u);
  let n = pu(6u) * inner;
  var a1 = 0.0;
  var a2 = 0.0;
  ${rowLoop(p, 'e', 'n')} {
    let o = e / inner; let k = e % inner;
    let i = (o * C + c) * inner + k;
    let sr = ${srow};
    let g = ${Gr}[pu(0u) + i];
    a1 += g * (${X}[pu(1u) + i] - ${MN}[pu(2u) + sr]) * (${r});
    a2 += g;
  }
${rowCombine(
  p,
  [
    ['a1', 's1'],
    ['a2', 's2'],
  ],
  '+',
)}  if (lid == 0u) {
    ${put(DG, 'pu(4u) + c', 's1', mg)}
    ${put(DB, 'pu(5u) + c', 's2', mb)}
  }
}
`,
    WORDS,
  );
  const w = [...b.offsets, l.outer, l.C, l.inner, f32bits(eps), 0, Math.max(1, l.G)];
  gpu.rt.dispatch(entry, b.buffers, w, rowGrid(p, l.C));
}
