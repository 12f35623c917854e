/**
 * webgpu kernels of `_npi_tril` / `_npi_triu` and their gradients `_backward_tril` /
 * `_backward_triu`: one invocation per output element (per output word for packed bool, as the
 * init generator does, so no two invocations write one word) choosing the input element or zero
 * by the row/column test; a 1-D input is read as the rows of a square. The gradient of the 1-D
 * case sums ograd down each column over the rows that kept it (one invocation per column).
 * Uniform words: 0 output offset, 1 output size, 2 invocations, 3 input offset, 4 rows, 5 cols,
 * 6 k, 7 one-row input. req=add accumulates in the shader (bool: logical or).
 */
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import {
  bindBlobs,
  declareArrays,
  elemOffset,
  load,
  main1d,
  needsF16,
  paramsDecl,
  wgslType,
} from '../../../wgsl.js';

const WG = 256;
const WORDS = 8;

function keep(lower: boolean, r: string, c: string): string {
  return lower ? `(i32(${c}) <= i32(${r}) + pi(6u))` : `(i32(${c}) >= i32(${r}) + pi(6u))`;
}

function source(
  lower: boolean,
  x: GpuBlob,
  out: GpuBlob,
  colsum: boolean,
  add: boolean,
): { code: string; key: string } {
  const bindings = bindBlobs([out, x]);
  const { decls, names } = declareArrays(bindings, [out.dtype, x.dtype]);
  const [o, xs] = names as [string, string];
  const t = wgslType(out.dtype);
  const zero =
    t.scalar === 'f32' ? '0.0' : t.scalar === 'f16' ? 'f16(0.0)' : t.scalar === 'i32' ? '0i' : '0u';
  const head = `${needsF16([out.dtype]) ? 'enable f16;\n' : ''}${paramsDecl(WORDS)}${decls}`;
  const key = `np_tri:${lower ? 'l' : 'u'}:${colsum ? 'sum' : 'mask'}:${add ? 'add' : 'write'}:${out.dtype}:${bindings.key}`;
  if (colsum) {
    // out[c] = Σ_r keep(r, c) og[r * n + c]
    const body = `  let n = pu(1u);
  var s = ${zero};
  for (var r = 0u; r < n; r++) {
    if ${keep(lower, 'r', 'i')} { s = s + ${load(xs, x.dtype, 'pu(3u) + r * n + i')}; }
  }
  ${add ? `${o}[pu(0u) + i] = ${o}[pu(0u) + i] + s;` : `${o}[pu(0u) + i] = s;`}`;
    return { code: `${head}${main1d(WG, 'pu(2u)', body)}`, key };
  }
  const value = (e: string) => {
    const c = `(${e} % pu(5u))`;
    const r = `((${e} / pu(5u)) % pu(4u))`;
    const src = `pu(3u) + select(${e}, ${c}, pu(7u) == 1u)`;
    return `select(${zero}, ${load(xs, x.dtype, src)}, ${keep(lower, r, c)})`;
  };
  if (t.packed !== 4) {
    const at = `${o}[pu(0u) + i]`;
    const store = add ? `${at} = ${at} + ${value('i')};` : `${at} = ${value('i')};`;
    return { code: `${head}${main1d(WG, 'pu(2u)', `  ${store}`)}`, key };
  }
  const body = `  let off = pu(0u); let n = pu(1u);
  let w = (off >> 2u) + i;
  var word = ${o}[w];
  for (var k = 0u; k < 4u; k++) {
    let a = w * 4u + k;
    if (a >= off && a < off + n) {
      let e = a - off;
      let s = k * 8u;
      let v = ${add ? `select(0u, 1u, ((word >> s) & 0xffu) != 0u || u32(${value('e')}) != 0u)` : `(u32(${value('e')}) & 0xffu)`};
      word = (word & ~(0xffu << s)) | (v << s);
    }
  }
  ${o}[w] = word;`;
  return { code: `${head}${main1d(WG, 'pu(2u)', body)}`, key };
}

function run(
  rt: WebGpuRuntime,
  lower: boolean,
  k: number,
  x: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  colsum: boolean,
): void {
  if (req === OpReq.null || out.size === 0 || out.ptr === null) return;
  const { code, key } = source(lower, x, out, colsum, req === OpReq.add);
  const entry = rt.pipeline(key, () => code, WORDS);
  const nd = out.shape.length;
  const rows = colsum ? out.size : (out.shape[nd - 2] as number);
  const cols = colsum ? out.size : (out.shape[nd - 1] as number);
  const off = elemOffset(out);
  const packed = wgslType(out.dtype).packed === 4;
  const threads =
    packed && !colsum ? Math.floor((off + out.size - 1) / 4) - Math.floor(off / 4) + 1 : out.size;
  const flag = !colsum && x.shape.length === 1 ? 1 : 0;
  const words = [off, out.size, threads, elemOffset(x), rows, cols, k | 0, flag];
  rt.dispatch(entry, bindBlobs([out, x]).buffers, words, grid1d(threads, WG));
}

export function installTriangle(registry: OpRegistry, gpu: GpuHost): void {
  for (const [name, back, lower] of [
    ['_npi_tril', '_backward_tril', true],
    ['_npi_triu', '_backward_triu', false],
  ] as const) {
    registry.registerKernel(
      name,
      'webgpu',
      gpuKernel<{ k: number }>(gpu, name, (a, [x], [r], [y]) =>
        run(gpu.rt, lower, a.k, x as GpuBlob, y as GpuBlob, r as OpReqType, false),
      ),
    );
    registry.registerKernel(
      back,
      'webgpu',
      gpuKernel<{ k: number }>(gpu, back, (a, [g], [r], [y]) => {
        const out = y as GpuBlob;
        run(gpu.rt, lower, a.k, g as GpuBlob, out, r as OpReqType, out.shape.length === 1);
      }),
    );
  }
}
