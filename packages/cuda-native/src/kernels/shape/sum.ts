/**
 * `_backward_tile` and `_backward_repeat`: the gradient viewed in a shape that exposes the copies
 * as axes ((r0, d0, r1, d1, ...) for tile; (.., d, r, ..) for repeat, as cpu-wasm views it) and
 * summed over them. Output-indexed: one thread per output element decomposes its index over the
 * kept axes, then walks the summed axes in nested loops (generated per axis count, no divisions),
 * in the gradient's row-major order. Kept and summed axes are merged where contiguous first; the
 * sum is then added to the output for req add (sum first, as cpu-wasm's reduction does).
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import {
  BLOCK,
  blocksFor,
  type CudaSource,
  cachedSource,
  ctype,
  KIND_C,
  loadC,
  MAXD,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { denseStrides, indexType, kernelError, norm, reg, SUM_DTYPES, skip } from './common.js';
import { decompose, offsetExpr } from './strided.js';

/** Drop size-1 axes; merge neighbours contiguous in the source. */
export function mergeAxes(dims: readonly { n: number; stride: number }[]): { n: number; stride: number }[] {
  const out: { n: number; stride: number }[] = [];
  for (let i = dims.length - 1; i >= 0; i--) {
    const x = dims[i] as { n: number; stride: number };
    if (x.n === 1) continue;
    const inner = out[0];
    if (inner !== undefined && x.stride === inner.stride * inner.n) inner.n *= x.n;
    else out.unshift({ ...x });
  }
  return out;
}

function sumSource(dtype: DTypeName, add: boolean, nk: number, nr: number, I: string): CudaSource {
  const key = `sumaxes:${dtype}:${add ? 'add' : 'w'}:${nk}:${nr}:${I}`;
  return cachedSource(`shape_sumaxes`, key, (entry) => {
    const S = ctype(dtype).storage;
    const K = KIND_C[ctype(dtype).kind];
    let loops = `acc = acc + ${loadC('g', dtype, 's')};`;
    for (let d = nr - 1; d >= 0; d--) {
      const s = d === 0 ? 'base' : `s${d - 1}`;
      const target = d === nr - 1 ? 's' : `s${d}`;
      loops = `for (long long q${d} = 0; q${d} < rshape.v[${d}]; q${d}++) { long long ${target} = ${s} + q${d} * rst.v[${d}]; ${loops} }`;
    }
    if (nr === 0) loops = `{ long long s = base; ${loops} }`;
    const store = add ? toStorage(dtype, `${loadC('out', dtype, 'i')} + acc`) : toStorage(dtype, 'acc');
    const code = `extern "C" __global__ void ${entry}(${S}* out, const ${S}* g, long long n, MxDims kshape, MxDims kst, MxDims rshape, MxDims rst) {
  MX_GRID_LOOP(i, n) {
${decompose(nk, I, 'kshape')}
    long long base = ${offsetExpr(nk, 'kst')};
    ${K} acc = (${K})0;
    ${loops}
    out[i] = ${store};
  }
}
`;
    return code;
  });
}

/** out = Σ over the `flags` axes of `g` viewed as dense `shape` (out has the kept axes, in order). */
function sumAxes(
  rt: CudaRuntime,
  op: string,
  g: CudaBlob,
  shape: readonly number[],
  flags: readonly boolean[],
  out: CudaBlob,
  req: OpReqType,
): void {
  const st = denseStrides(shape);
  const all = shape.map((n, i) => ({ n, stride: st[i] as number }));
  const keep = mergeAxes(all.filter((_, i) => !flags[i]));
  const red = mergeAxes(all.filter((_, i) => flags[i]));
  const add = req === OpReq.add;
  if (g.size === 0) {
    if (!add) rt.memset(addr(out, op), 0, out.size * ctype(out.dtype, op).bytes);
    return;
  }
  if (keep.length > MAXD || red.length > MAXD) {
    throw kernelError(
      op,
      `the gradient needs ${keep.length} kept and ${red.length} summed axes; cuda walks ${MAXD}`,
      {
        shapes: [[...g.shape], [...out.shape]],
        hint: 'use fewer non-trivial axes',
      },
    );
  }
  const n = out.size;
  rt.launch(
    sumSource(out.dtype, add, keep.length, red.length, indexType(n)),
    [blocksFor(n)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(out, op) },
      { t: 'ptr', v: addr(g, op) },
      { t: 'i64', v: n },
      { t: 'dims', v: keep.map((d) => d.n) },
      { t: 'dims', v: keep.map((d) => d.stride) },
      { t: 'dims', v: red.map((d) => d.n) },
      { t: 'dims', v: red.map((d) => d.stride) },
    ],
  );
}

export function installSum(registry: OpRegistry, host: CudaHost): void {
  reg<{ reps: readonly number[] }>(
    registry,
    host,
    '_backward_tile',
    (a, [g], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as CudaBlob;
      const d = out.shape;
      const n = Math.max(d.length, a.reps.length);
      const dims = Array.from({ length: n }, (_, i) =>
        i < n - d.length ? 1 : (d[i - (n - d.length)] as number),
      );
      const reps = Array.from({ length: n }, (_, i) =>
        i < n - a.reps.length ? 1 : (a.reps[i - (n - a.reps.length)] as number),
      );
      const shape = dims.flatMap((x, i) => [reps[i] as number, x]);
      const flags = dims.flatMap(() => [true, false]);
      sumAxes(host.rt, '_backward_tile', g as CudaBlob, shape, flags, out, r as OpReqType);
    },
    SUM_DTYPES,
  );

  reg<{ repeats: number; axis: number | null }>(
    registry,
    host,
    '_backward_repeat',
    (a, [g], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as CudaBlob;
      const d = out.shape;
      let shape: number[];
      let flags: boolean[];
      if (a.axis === null) {
        shape = [out.size, a.repeats];
        flags = [false, true];
      } else {
        const ax = norm(a.axis, d.length);
        shape = [...d.slice(0, ax + 1), a.repeats, ...d.slice(ax + 1)];
        flags = shape.map((_, i) => i === ax + 1);
      }
      sumAxes(host.rt, '_backward_repeat', g as CudaBlob, shape, flags, out, r as OpReqType);
    },
    SUM_DTYPES,
  );
}
