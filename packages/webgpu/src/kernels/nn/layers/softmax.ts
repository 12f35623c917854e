/**
 * The softmax row kernels: softmax, log_softmax, masked_softmax, masked_log_softmax forward and
 * backward, and SoftmaxOutput's forward. The data is (outer, M, inner) around the axis; each of the
 * outer·inner rows is one workgroup (grid folded into y past 65535 rows) whose threads stride along
 * the row (element j at o·M·inner + j·inner + k, so any axis works without a transpose and rows of
 * any length fit), with shared-memory tree reductions for the max and the sum: the sum is a
 * pairwise sum of per-thread partials, accurate for long rows. Short rows (≤ 32) are one
 * invocation each.
 *
 * Options, as cpu-wasm: `length` (int32, one per row: entries from length on are left out and
 * output 0), a bool `mask` broadcast to data (masked entries count as the lowest float before the
 * softmax and output 0, or -inf for the log variant; their gradient is 0), temperature T.
 * Forward: max, Σ exp((x - max)/T), then exp(z)/Σ or z - log Σ. Backward: Σ g·y (log: Σ g), then
 * y(g - Σ)/T (log: (g - e^y Σ)/T).
 */
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { load, paramsDecl } from '../../../wgsl.js';
import {
  BCAST_WORDS,
  bcastFn,
  bcastWords,
  bind,
  f32bits,
  type Mode,
  put,
  type RowPlan,
  rowCombine,
  rowEntry,
  rowGrid,
  rowLoop,
  rowPlan,
} from './gpu-util.js';
import { MATH_WGSL } from './math.js';

export interface RowGeometry {
  readonly outer: number;
  readonly m: number;
  readonly inner: number;
}

export interface SoftmaxRowCall {
  readonly op: string;
  readonly backward: boolean;
  readonly log: boolean;
  /** Forward: x; backward: ograd. */
  readonly a: GpuBlob;
  /** Backward: the forward output y. */
  readonly y?: GpuBlob;
  readonly length?: GpuBlob;
  readonly mask?: GpuBlob;
  readonly out: GpuBlob;
  readonly mode: Mode;
  readonly geo: RowGeometry;
  readonly temperature: number;
}

// Words: 0..4 offsets (a, y, length, mask, out), 5 rows, 6 M, 7 inner, 8 T, 9 length size, 10.. mask bcast.
const BC = 10;
const WORDS = BC + BCAST_WORDS;

function source(c: SoftmaxRowCall, names: readonly string[], decls: string, p: RowPlan): string {
  const [A, Y, L, K, O] = names as [string, string, string, string, string];
  const hasLen = c.length !== undefined;
  const hasMask = c.mask !== undefined;
  const on = hasMask ? `(${load(K, 'bool', 'pu(3u) + mx_bidx(base + j * inner)')} != 0u)` : 'true';
  const lenExpr = hasLen ? `u32(clamp(${L}[pu(2u) + select(row, 0u, pu(9u) == 1u)], 0i, i32(M)))` : 'M';
  const loop = (bound: string) => rowLoop(p, 'j', bound);
  const combine = (name: string, op: '+' | 'max') => rowCombine(p, [['acc', name]], op);
  let body: string;
  if (!c.backward) {
    const val = (v: string) => (hasMask ? `select(MX_LOWEST, ${v}, ${on})` : v);
    const result = c.log ? 'z - ls' : 'mx_exp(z) / sum';
    // masked_log_softmax: masked entries output -inf (MXNet's masked_neg_inf), masked_softmax 0.
    const init = hasMask && c.log ? `select(bitcast<f32>(MX_NINF_BITS), 0.0, ${on})` : '0.0';
    body = `  var acc = bitcast<f32>(MX_NINF_BITS);
  ${loop('len')} { acc = max(acc, ${val(`${A}[pu(0u) + base + j * inner]`)}); }
${combine('mx', 'max')}  acc = 0.0;
  ${loop('len')} { acc += mx_exp((${val(`${A}[pu(0u) + base + j * inner]`)} - mx) / T); }
${combine('sum', '+')}  let ls = mx_log(sum);
  ${loop('M')} {
    let i = base + j * inner;
    var v = ${init};
    if (j < len && ${on}) {
      let z = (${val(`${A}[pu(0u) + i]`)} - mx) / T;
      v = ${result};
    }
    ${put(O, 'pu(4u) + i', 'v', c.mode)}
  }
`;
  } else {
    const term = c.log ? `${A}[pu(0u) + i]` : `${A}[pu(0u) + i] * ${Y}[pu(1u) + i]`;
    const grad = c.log ? '(gv - mx_exp(yv) * sum) / T' : 'yv * (gv - sum) / T';
    body = `  var acc = 0.0;
  ${loop('len')} {
    let i = base + j * inner;
    if (${on}) { acc += ${term}; }
  }
${combine('sum', '+')}  ${loop('M')} {
    let i = base + j * inner;
    var v = 0.0;
    if (j < len && ${on}) {
      let gv = ${A}[pu(0u) + i];
      let yv = ${Y}[pu(1u) + i];
      v = ${grad};
    }
    ${put(O, 'pu(4u) + i', 'v', c.mode)}
  }
`;
  }
  return `${paramsDecl(WORDS)}${decls}${MATH_WGSL}${bcastFn('mx_bidx', BC)}${rowEntry(p, 'pu(5u)', 1)}  let M = pu(6u); let inner = pu(7u); let T = pf(8u);
  let base = (row / inner) * M * inner + row % inner;
  let len = ${lenExpr};
${body}}
`;
}

/** Encode one softmax-family row pass (nothing for mode 'n' or an empty output). */
export function softmaxRows(gpu: GpuHost, c: SoftmaxRowCall): void {
  const { outer, m, inner } = c.geo;
  const rows = outer * inner;
  if (c.mode === 'n' || c.out.size === 0 || rows === 0) return;
  const plan = rowPlan(m);
  // Absent arrays are bound as `a` again (never read), keeping the slot order fixed.
  const blobs = [c.a, c.y ?? c.a, c.length ?? c.a, c.mask ?? c.a, c.out];
  const b = bind(blobs);
  const flags = `${c.backward ? 'b' : 'f'}${c.log ? 'l' : 's'}${c.length ? 'L' : ''}${c.mask ? 'K' : ''}`;
  const key = `layers-softmax:${flags}:${c.mode}:${plan.key}:${b.key}`;
  const entry = gpu.rt.pipeline(key, () => source(c, b.names, b.decls, plan), WORDS);
  const w = new Array<number>(WORDS).fill(0);
  for (let k = 0; k < 5; k++) w[k] = b.offsets[k] as number;
  w[5] = rows;
  w[6] = m;
  w[7] = inner;
  w[8] = f32bits(c.temperature);
  w[9] = c.length?.size ?? 0;
  if (c.mask !== undefined) {
    bcastWords(c.op, c.a.shape, c.mask.shape).forEach((v, k) => {
      w[BC + k] = v;
    });
  }
  gpu.rt.dispatch(entry, b.buffers, w, rowGrid(plan, rows));
}
