/**
 * The row kernels of LayerNorm, GroupNorm and InstanceNorm. All three normalise "rows": LayerNorm
 * the outer·inner rows of M = C elements strided by inner along its axis, GroupNorm/InstanceNorm
 * the N·G contiguous runs of M = (C/G)·spatial elements. One workgroup per row; statistics are two
 * passes (mean, then Σ (x - mean)², as cpu-wasm), each a strided per-thread partial sum and a
 * shared-memory tree, so long rows stay accurate. They differ only in where gamma/beta are read
 * (LayerNorm: by position along the row; groups: by channel) and which spread is saved (std, or
 * InstanceNorm's variance).
 *
 * Backward (data gradient) per row, with r = 1/std, S1 = Σ γg, S2 = Σ γg(x - mean):
 *   dx = r γ g - r S1 / M - (x - mean) r³ S2 / M
 * (cpu-wasm's LayerNorm and GroupNorm formulas, which are this one). gamma/beta gradients are
 * column sums over rows (columns.ts).
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

export type RowKind = 'ln' | 'gn' | 'in';

/** Row layout: `rows` rows of `m` elements; element j of row at (row / inner)·m·inner + row % inner + j·inner. */
export interface RowLayout {
  readonly rows: number;
  readonly m: number;
  readonly inner: number;
  /** Groups: channels C and the spatial size (gamma index = (flat / spatial) % C). */
  readonly C: number;
  readonly spatial: number;
}

// Words: 0..5 offsets, 6 rows, 7 M, 8 inner, 9 eps, 10 C, 11 spatial.
const WORDS = 12;

function gammaIdx(kind: RowKind): string {
  return kind === 'ln' ? 'j' : '((i / pu(11u)) % pu(10u))';
}

const PROLOGUE = `  let M = pu(7u); let inner = pu(8u); let eps = pf(9u);
  let base = (row / inner) * M * inner + row % inner;
`;

function words(b: { offsets: number[] }, l: RowLayout, eps: number): number[] {
  return [...b.offsets.slice(0, 6), l.rows, l.m, l.inner, f32bits(eps), l.C, l.spatial];
}

/** Forward: y = (x - mean) r γ + β; mean and spread (std, or var for 'in') saved per row. */
export function normRowsForward(
  gpu: GpuHost,
  kind: RowKind,
  l: RowLayout,
  eps: number,
  arrays: { x: GpuBlob; gamma: GpuBlob; beta: GpuBlob; y: GpuBlob; mean: GpuBlob; spread: GpuBlob },
  modes: readonly [Mode, Mode, Mode],
): void {
  if (l.rows === 0 || l.m === 0) return;
  const b = bind([arrays.x, arrays.gamma, arrays.beta, arrays.y, arrays.mean, arrays.spread]);
  const [X, G, B, Y, MN, SP] = b.names as [string, string, string, string, string, string];
  const [my, mm, ms] = modes;
  const p = rowPlan(l.m);
  const key = `norm-rows-fwd:${kind}:${my}${mm}${ms}:${p.key}:${b.key}`;
  const entry = gpu.rt.pipeline(
    key,
    () => `${paramsDecl(WORDS)}${b.decls}${rowEntry(p, 'pu(6u)', 1)}${touch(b.names)}${PROLOGUE}  var acc = 0.0;
  ${rowLoop(p, 'j', 'M')} { acc += ${X}[pu(0u) + base + j * inner]; }
${rowCombine(p, [['acc', 'total']], '+')}  let mean = total / f32(M);
  acc = 0.0;
  ${rowLoop(p, 'j', 'M')} { let d = ${X}[pu(0u) + base + j * inner] - mean; acc += d * d; }
${rowCombine(p, [['acc', 'sq']], '+')}  let variance = sq / f32(M);
  let sd = sqrt(variance + eps);
  if (lid == 0u) {
    ${put(MN, 'pu(4u) + row', 'mean', mm)}
    ${put(SP, 'pu(5u) + row', kind === 'in' ? 'variance' : 'sd', ms)}
  }
  let r = 1.0 / sd;
  ${rowLoop(p, 'j', 'M')} {
    let i = base + j * inner;
    let gi = ${gammaIdx(kind)};
    ${put(Y, 'pu(3u) + i', `(${X}[pu(0u) + i] - mean) * r * ${G}[pu(1u) + gi] + ${B}[pu(2u) + gi]`, my)}
  }
}
`,
    WORDS,
  );
  gpu.rt.dispatch(entry, b.buffers, words(b, l, eps), rowGrid(p, l.rows));
}

/** Backward data gradient per row (see the file comment). */
export function normRowsBackward(
  gpu: GpuHost,
  kind: RowKind,
  l: RowLayout,
  eps: number,
  arrays: { og: GpuBlob; x: GpuBlob; gamma: GpuBlob; mean: GpuBlob; spread: GpuBlob; dx: GpuBlob },
  mode: Mode,
): void {
  if (l.rows === 0 || l.m === 0 || mode === 'n') return;
  const b = bind([arrays.og, arrays.x, arrays.gamma, arrays.mean, arrays.spread, arrays.dx]);
  const [Gr, X, G, MN, SP, D] = b.names as [string, string, string, string, string, string];
  const p = rowPlan(l.m);
  const key = `norm-rows-bwd:${kind}:${mode}:${p.key}:${b.key}`;
  const r = kind === 'in' ? `1.0 / sqrt(${SP}[pu(4u) + row] + eps)` : `1.0 / ${SP}[pu(4u) + row]`;
  const entry = gpu.rt.pipeline(
    key,
    () => `${paramsDecl(WORDS)}${b.decls}${rowEntry(p, 'pu(6u)', 2)}${touch(b.names)}${PROLOGUE}  let mean = ${MN}[pu(3u) + row];
  let r = ${r};
  var a1 = 0.0;
  var a2 = 0.0;
  ${rowLoop(p, 'j', 'M')} {
    let i = base + j * inner;
    let gi = ${gammaIdx(kind)};
    let gg = ${Gr}[pu(0u) + i] * ${G}[pu(2u) + gi];
    a1 += gg;
    a2 += gg * (${X}[pu(1u) + i] - mean);
  }
${rowCombine(
  p,
  [
    ['a1', 's1'],
    ['a2', 's2'],
  ],
  '+',
)}  let a = s1 / f32(M);
  let bb = r * s2 / f32(M);
  ${rowLoop(p, 'j', 'M')} {
    let i = base + j * inner;
    let gi = ${gammaIdx(kind)};
    let xh = (${X}[pu(1u) + i] - mean) * r;
    ${put(D, 'pu(5u) + i', `((${Gr}[pu(0u) + i] * ${G}[pu(2u) + gi] - a) - xh * bb) * r`, mode)}
  }
}
`,
    WORDS,
  );
  gpu.rt.dispatch(entry, b.buffers, words(b, l, eps), rowGrid(p, l.rows));
}
