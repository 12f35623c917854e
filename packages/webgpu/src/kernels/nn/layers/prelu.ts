/**
 * prelu's learned gamma on webgpu: where each gamma element sits in the data (MXNet's
 * expand_shape: gamma lines up with data axes 0 and/or 1, so data is (outer, C, inner) around the
 * gamma elements and the map kernel reads gamma by channel), and the gamma gradient
 * Σ select(x > 0, 0, g·x) over each element's (outer, inner) positions, one row reduction per
 * gamma element.
 */
import { MXNetError, type Shape } from '@mx/base';
import type { OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { paramsDecl } from '../../../wgsl.js';
import { bind, modeOf, put, rowCombine, rowEntry, rowGrid, rowLoop, rowPlan } from './gpu-util.js';

/**
 * prelu's gamma against data as (outer, C, inner): gamma element c covers data[o, c, k]. gamma's
 * dims line up with data axes 0 and 1 only (MXNet expand_shape, validated by shape inference).
 */
export function preluGeometry(gamma: Shape, data: Shape): { outer: number; C: number; inner: number } {
  const full = new Array<number>(data.length).fill(1);
  let s = gamma.length - 1;
  for (let i = data.length - 1; i >= 0 && s >= 0; i--) {
    const g = gamma[s] as number;
    if (i <= 1 && (data[i] === g || g === 1)) {
      full[i] = g;
      s--;
    }
  }
  if (s !== -1) {
    throw new MXNetError(
      `Cannot broadcast gamma to data. gamma: (${gamma.join(', ')}), data: (${data.join(', ')})`,
      {
        op: 'LeakyReLU',
        shapes: [data, gamma],
        device: 'gpu(0)',
        hint: 'give gamma one value per channel (data axis 1) or a single value',
      },
    );
  }
  let size = 1;
  for (const d of data) size *= d;
  const k0 = (full[0] ?? 1) !== 1;
  const k1 = data.length > 1 && (full[1] ?? 1) !== 1;
  const d0 = (data[0] ?? 1) as number;
  const d1 = (data[1] ?? 1) as number;
  if (k0 && k1) return { outer: 1, C: d0 * d1, inner: size / (d0 * d1) };
  if (k0) return { outer: 1, C: d0, inner: size / d0 };
  if (k1) return { outer: d0, C: d1, inner: size / (d0 * d1) };
  return { outer: 1, C: 1, inner: size };
}

/** dgamma[c] (=|+=) Σ_{o,k} select(x > 0, 0, g·x) over channel c's elements. */
export function preluGammaGrad(gpu: GpuHost, g: GpuBlob, x: GpuBlob, dg: GpuBlob, req: OpReqType): void {
  const m = modeOf(req, dg);
  if (m === 'n') return;
  const { outer, C, inner } = preluGeometry(dg.shape, x.shape);
  const plan = rowPlan(outer * inner);
  const b = bind([g, x, dg]);
  const [G, X, D] = b.names as [string, string, string];
  const key = `layers-prelu-dgamma:${m}:${plan.key}:${b.key}`;
  const entry = gpu.rt.pipeline(
    key,
    () => `${paramsDecl(8)}${b.decls}${rowEntry(plan, 'pu(3u)', 1)}  let outer = pu(4u); let inner = pu(5u); let n = outer * inner;
  var acc = 0.0;
  ${rowLoop(plan, 'e', 'n')} {
    let idx = ((e / inner) * pu(3u) + row) * inner + e % inner;
    let xv = ${X}[pu(1u) + idx];
    acc += select(${G}[pu(0u) + idx] * xv, 0.0, xv > 0.0);
  }
${rowCombine(plan, [['acc', 'total']], '+')}  if (lid == 0u) { ${put(D, 'pu(2u) + row', 'total', m)} }
}
`,
    8,
  );
  const w = [b.offsets[0], b.offsets[1], b.offsets[2], C, outer, inner] as number[];
  gpu.rt.dispatch(entry, b.buffers, w, rowGrid(plan, C));
}
