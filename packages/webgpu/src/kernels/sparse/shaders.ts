/**
 * WGSL of webgpu's `cast_storage` (cast-storage.ts runs them). Every shader is one invocation per
 * row or per output element, so no two invocations write the same memory location and no atomics
 * are needed:
 * - `count`: per row, its nonzeros (csr) or whether it has one (row_sparse), into a u32 buffer the
 *   host reads back to size the output (its nnz is known only then);
 * - `fillCsr`: per row, its values and columns from its indptr entry on;
 * - `gatherRsp`: per stored element, copied from the kept row;
 * - `csrToDense` / `rspToDense`: per output element, a binary search of its column in the row's
 *   indices (csr) or of its row in the stored rows (row_sparse) — zero where absent, so write and
 *   add need no separate zero fill, and a malformed input reads and writes nothing out of range;
 * - `convertAux`: int32 ↔ int64 index blocks; `addDense`: req=add of a dense copy.
 *
 * Data dtypes are those with one element per storage word or wider (float32, int32, uint32,
 * float16): bool's four-per-word packing would make neighbouring invocations race. "Nonzero" is
 * MXNet's `v != 0`: -0.0 counts as zero, NaN as nonzero (written `!(v == 0)`, see wgsl.ts).
 * Index blocks are int32 (`array<i32>`) or int64 (`array<u32>`, two words per index, low word
 * first; an index whose high word is set reads as 0xffffffff, i.e. out of range). Their offsets
 * travel in u32 words; data offsets in elements.
 */
import type { DTypeName } from '@mx/base';
import type { Bindings } from '../../wgsl.js';
import { declareArrays, main1d, needsF16, paramsDecl, wgslType } from '../../wgsl.js';

export const WG = 256;

/** An index block's type: int32 or int64. */
export type AuxType = 'int32' | 'int64';

/** The dtype an index block is declared as in WGSL. */
export const auxDecl = (t: AuxType): DTypeName => (t === 'int32' ? 'int32' : 'uint32');

const header = (dtype: DTypeName) => (needsF16([dtype]) ? 'enable f16;\n' : '');

function zero(dtype: DTypeName): string {
  const s = wgslType(dtype).scalar;
  return s === 'f32' ? '0.0f' : s === 'f16' ? '0.0h' : s === 'i32' ? '0i' : '0u';
}

/** `nz(v)`: MXNet's `v != 0` for `dtype` (NaN nonzero, -0.0 zero). */
function nzFn(dtype: DTypeName): string {
  const s = wgslType(dtype).scalar;
  return `fn nz(v: ${s}) -> bool { return !(v == ${zero(dtype)}); }\n`;
}

/** `fn <name>(k: u32) -> u32`: index k of `array` (word offset in uniform `offWord`). */
function reader(name: string, array: string, t: AuxType, offWord: number): string {
  const body =
    t === 'int32'
      ? `return bitcast<u32>(${array}[pu(${offWord}u) + k]);`
      : `let w = pu(${offWord}u) + 2u * k;
  return select(0xffffffffu, ${array}[w], ${array}[w + 1u] == 0u);`;
  return `fn ${name}(k: u32) -> u32 {\n  ${body}\n}\n`;
}

/** `fn <name>(k: u32, v: u32)`: stores index v at k of `array` (non-negative values). */
function writer(name: string, array: string, t: AuxType, offWord: number): string {
  const body =
    t === 'int32'
      ? `${array}[pu(${offWord}u) + k] = i32(v);`
      : `let w = pu(${offWord}u) + 2u * k;
  ${array}[w] = v;
  ${array}[w + 1u] = 0u;`;
  return `fn ${name}(k: u32, v: u32) {\n  ${body}\n}\n`;
}

/** Uniforms: 0 rows, 1 row length, 2 x offset. Bindings: x, counts (u32). */
export function countSource(dtype: DTypeName, anyOnly: boolean, bind: Bindings): string {
  const { decls, names } = declareArrays(bind, [dtype, 'uint32']);
  const [x, counts] = names as [string, string];
  const body = `  let len = pu(1u);
  let base = pu(2u) + i * len;
  var n = 0u;
  for (var c = 0u; c < len; c++) {
    if (nz(${x}[base + c])) {
      n++;${anyOnly ? '\n      break;' : ''}
    }
  }
  ${counts}[i] = n;`;
  return `${header(dtype)}${paramsDecl(3)}${decls}${nzFn(dtype)}${main1d(WG, 'pu(0u)', body)}`;
}

/**
 * Uniforms: 0 rows, 1 cols, 2 x offset, 3 data offset, 4 indptr word offset, 5 indices word
 * offset. Bindings: x, data, indptr, indices.
 */
export function fillCsrSource(dtype: DTypeName, aux: AuxType, bind: Bindings): string {
  const { decls, names } = declareArrays(bind, [dtype, dtype, auxDecl(aux), auxDecl(aux)]);
  const [x, data, ptr, idx] = names as [string, string, string, string];
  const body = `  let cols = pu(1u);
  let base = pu(2u) + i * cols;
  var k = rdptr(i);
  for (var c = 0u; c < cols; c++) {
    let v = ${x}[base + c];
    if (nz(v)) {
      ${data}[pu(3u) + k] = v;
      wridx(k, c);
      k++;
    }
  }`;
  return `${header(dtype)}${paramsDecl(6)}${decls}${nzFn(dtype)}${reader('rdptr', ptr, aux, 4)}${writer(
    'wridx',
    idx,
    aux,
    5,
  )}${main1d(WG, 'pu(0u)', body)}`;
}

/** Uniforms: 0 n (= k * row length), 1 row length, 2 x offset, 3 data offset, 4 indices word offset. */
export function gatherRspSource(dtype: DTypeName, aux: AuxType, bind: Bindings): string {
  const { decls, names } = declareArrays(bind, [dtype, dtype, auxDecl(aux)]);
  const [x, data, idx] = names as [string, string, string];
  const body = `  let len = pu(1u);
  let r = rdidx(i / len);
  ${data}[pu(3u) + i] = ${x}[pu(2u) + r * len + i % len];`;
  return `${header(dtype)}${paramsDecl(5)}${decls}${reader('rdidx', idx, aux, 4)}${main1d(WG, 'pu(0u)', body)}`;
}

const accumulate = (out: string, at: string, add: boolean, v: string) =>
  add ? `${out}[${at}] = ${out}[${at}] + ${v};` : `${out}[${at}] = ${v};`;

/**
 * Uniforms: 0 n (= rows * cols), 1 cols, 2 out offset, 3 data offset, 4 indptr word offset,
 * 5 indices word offset, 6 nnz. Bindings: out, data, indptr, indices.
 */
export function csrToDenseSource(dtype: DTypeName, aux: AuxType, add: boolean, bind: Bindings): string {
  const { decls, names } = declareArrays(bind, [dtype, dtype, auxDecl(aux), auxDecl(aux)]);
  const [out, data, ptr, idx] = names as [string, string, string, string];
  const body = `  let cols = pu(1u);
  let nnz = pu(6u);
  let r = i / cols;
  let c = i % cols;
  let lo = min(rdptr(r), nnz);
  let hi = min(max(rdptr(r + 1u), lo), nnz);
  var a = lo;
  var b = hi;
  while (a < b) {
    let m = a + (b - a) / 2u;
    if (rdidx(m) < c) { a = m + 1u; } else { b = m; }
  }
  var v = ${zero(dtype)};
  if (a < hi && rdidx(a) == c) { v = ${data}[pu(3u) + a]; }
  ${accumulate(out, 'pu(2u) + i', add, 'v')}`;
  return `${header(dtype)}${paramsDecl(7)}${decls}${reader('rdptr', ptr, aux, 4)}${reader(
    'rdidx',
    idx,
    aux,
    5,
  )}${main1d(WG, 'pu(0u)', body)}`;
}

/**
 * Uniforms: 0 n (= rows * row length), 1 row length, 2 out offset, 3 data offset, 4 indices word
 * offset, 5 k (stored rows). Bindings: out, data, indices.
 */
export function rspToDenseSource(dtype: DTypeName, aux: AuxType, add: boolean, bind: Bindings): string {
  const { decls, names } = declareArrays(bind, [dtype, dtype, auxDecl(aux)]);
  const [out, data, idx] = names as [string, string, string];
  const body = `  let len = pu(1u);
  let k = pu(5u);
  let r = i / len;
  var a = 0u;
  var b = k;
  while (a < b) {
    let m = a + (b - a) / 2u;
    if (rdidx(m) < r) { a = m + 1u; } else { b = m; }
  }
  var v = ${zero(dtype)};
  if (a < k && rdidx(a) == r) { v = ${data}[pu(3u) + a * len + i % len]; }
  ${accumulate(out, 'pu(2u) + i', add, 'v')}`;
  return `${header(dtype)}${paramsDecl(6)}${decls}${reader('rdidx', idx, aux, 4)}${main1d(WG, 'pu(0u)', body)}`;
}

/** Uniforms: 0 n, 1 dst word offset, 2 src word offset. Bindings: dst, src. */
export function convertAuxSource(to: AuxType, bind: Bindings): string {
  const from: AuxType = to === 'int32' ? 'int64' : 'int32';
  const { decls, names } = declareArrays(bind, [auxDecl(to), auxDecl(from)]);
  const [dst, src] = names as [string, string];
  const body =
    to === 'int64'
      ? `  let v = ${src}[pu(2u) + i];
  ${dst}[pu(1u) + 2u * i] = bitcast<u32>(v);
  ${dst}[pu(1u) + 2u * i + 1u] = select(0u, 0xffffffffu, v < 0i);`
      : `  ${dst}[pu(1u) + i] = bitcast<i32>(${src}[pu(2u) + 2u * i]);`;
  return `${paramsDecl(3)}${decls}${main1d(WG, 'pu(0u)', body)}`;
}

/** Uniforms: 0 n, 1 out offset, 2 x offset. Bindings: out, x. */
export function addDenseSource(dtype: DTypeName, bind: Bindings): string {
  const { decls, names } = declareArrays(bind, [dtype, dtype]);
  const [out, x] = names as [string, string];
  return `${header(dtype)}${paramsDecl(3)}${decls}${main1d(
    WG,
    'pu(0u)',
    `  ${accumulate(out, 'pu(1u) + i', true, `${x}[pu(2u) + i]`)}`,
  )}`;
}
