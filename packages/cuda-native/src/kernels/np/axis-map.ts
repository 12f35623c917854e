/**
 * One gather engine for the np ops whose output reads the input through a per-axis index map (roll,
 * repeats, pad's constant/edge/reflect/symmetric modes, and rot90 as signed strides): cpu-wasm's
 * np/shape/gather.ts on a GPU. Each output axis d has a table of input positions (-1 = the fill
 * value) and an input stride; a thread per output element sums map·stride over its coordinates.
 * The adjoint (`scatterAxes`) turns each map around into a CSR list of the output positions that
 * read each input position, so a thread per gradient element sums its product of lists — no
 * atomics, deterministic, every dtype. The maps are small host tables uploaded per call.
 */
import type { DTypeName } from '@mx/base';
import { loadC } from '../../cuda-c.js';
import type { CudaBlob } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import {
  castFromDouble,
  checkRank,
  dims,
  f64,
  i32,
  i64,
  kc,
  launch1d,
  ptr,
  source,
  st,
  storeC,
} from './common.js';

/** Per output axis: input position of each output coordinate (-1 = fill) and the input stride. */
export interface AxisMap {
  readonly index: readonly number[];
  readonly stride: number;
}

function gatherSource(op: string, dtype: DTypeName, add: boolean, fill: boolean) {
  return source(op, `gather|${dtype}|${add}|${fill}`, (entry) => {
    const s = st(dtype, op);
    const [castDef, cast] = castFromDouble(dtype, op);
    return `${castDef}extern "C" __global__ void ${entry}(const ${s}* x, ${s}* out, long long n, int nd, MxDims oshape, MxDims sstride, MxDims moff, const long long* maps, long long base, double fillv) {
  MX_GRID_LOOP(o, n) {
    long long r = o, p = base;
    bool f = false;
    for (int d = nd - 1; d >= 0; d--) {
      long long c = r % oshape.v[d];
      r /= oshape.v[d];
      long long q = maps[moff.v[d] + c];
      if (q < 0) f = true; else p += q * sstride.v[d];
    }
    ${kc(dtype, op)} v = ${fill ? `f ? ${cast}(fillv) : ` : ''}${loadC('x', dtype, 'p')};
    ${storeC(dtype, 'out', 'o', 'v', add)}
  }
}
`;
  });
}

/**
 * out[o] = x[base + Σ_d map_d(o_d)·stride_d] (or `fill` where a map says -1), honouring add.
 * `outShape` is the dense shape of `out`.
 */
export function gatherAxes(
  rt: CudaRuntime,
  op: string,
  x: CudaBlob,
  out: CudaBlob,
  outShape: readonly number[],
  maps: readonly AxisMap[],
  add: boolean,
  base = 0,
  fill = 0,
): void {
  const n = outShape.reduce((p, d) => p * d, 1);
  if (n === 0) return;
  checkRank(op, [x.shape, outShape], outShape.length);
  const offs: number[] = [];
  const table: number[] = [];
  for (const m of maps) {
    offs.push(table.length);
    table.push(...m.index);
  }
  const needsFill = table.some((v) => v < 0);
  const mapAddr = rt.upload(BigInt64Array.from(table, (v) => BigInt(v)));
  launch1d(rt, gatherSource(op, out.dtype, add, needsFill), n, [
    ptr(x, op),
    ptr(out, op),
    i64(n),
    i32(outShape.length),
    dims(outShape),
    dims(maps.map((m) => m.stride)),
    dims(offs),
    { t: 'ptr', v: mapAddr },
    i64(base),
    f64(fill),
  ]);
}

function scatterSource(op: string, dtype: DTypeName, add: boolean) {
  return source(op, `scatter|${dtype}|${add}`, (entry) => {
    const s = st(dtype, op);
    const acc = dtype === 'float64' ? 'double' : kc(dtype, op) === 'float' ? 'float' : 'long long';
    return `extern "C" __global__ void ${entry}(const ${s}* og, ${s}* grad, long long n, int nd, MxDims gshape, MxDims ostride, MxDims ooff, const long long* offs, const long long* pos) {
  MX_GRID_LOOP(i, n) {
    long long lo[8], cnt[8];
    long long r = i, total = 1;
    for (int d = nd - 1; d >= 0; d--) {
      long long c = r % gshape.v[d];
      r /= gshape.v[d];
      lo[d] = offs[ooff.v[d] + c];
      cnt[d] = offs[ooff.v[d] + c + 1] - lo[d];
      total *= cnt[d];
    }
    ${acc} sum = 0;
    for (long long t = 0; t < total; t++) {
      long long q = t, p = 0;
      for (int d = nd - 1; d >= 0; d--) { long long k = q % cnt[d]; q /= cnt[d]; p += pos[lo[d] + k] * ostride.v[d]; }
      sum += (${acc})${loadC('og', dtype, 'p')};
    }
    ${storeC(dtype, 'grad', 'i', `(${kc(dtype, op)})sum`, add)}
  }
}
`;
  });
}

/**
 * The adjoint of `gatherAxes` with dense strides: grad[g] (+)= Σ og[o] over the outputs o whose
 * maps read g (fill positions read nothing). `maps[d].index` has one entry per og coordinate.
 */
export function scatterAxes(
  rt: CudaRuntime,
  op: string,
  og: CudaBlob,
  ogShape: readonly number[],
  grad: CudaBlob,
  gradShape: readonly number[],
  maps: readonly (readonly number[])[],
  add: boolean,
): void {
  const n = gradShape.reduce((p, d) => p * d, 1);
  if (n === 0) return;
  checkRank(op, [ogShape, gradShape], gradShape.length);
  const offs: number[] = [];
  const pos: number[] = [];
  const ooff: number[] = [];
  gradShape.forEach((len, d) => {
    ooff.push(offs.length);
    const lists: number[][] = Array.from({ length: len }, () => []);
    (maps[d] as readonly number[]).forEach((src, j) => {
      if (src >= 0) (lists[src] as number[]).push(j);
    });
    for (const l of lists) {
      offs.push(pos.length);
      pos.push(...l);
    }
    offs.push(pos.length);
  });
  const ostride = new Array<number>(ogShape.length).fill(1);
  for (let i = ogShape.length - 2; i >= 0; i--)
    ostride[i] = (ostride[i + 1] as number) * (ogShape[i + 1] as number);
  const offAddr = rt.upload(BigInt64Array.from(offs, (v) => BigInt(v)));
  const posAddr = rt.upload(BigInt64Array.from(pos.length === 0 ? [0] : pos, (v) => BigInt(v)));
  launch1d(rt, scatterSource(op, grad.dtype, add), n, [
    ptr(og, op),
    ptr(grad, op),
    i64(n),
    i32(gradShape.length),
    dims(gradShape),
    dims(ostride),
    dims(ooff),
    { t: 'ptr', v: offAddr },
    { t: 'ptr', v: posAddr },
  ]);
}
