/**
 * The one kernel shape the deterministic init ops share: write a value computed from the element
 * index `e` into every element of one output, honouring req. Fills, `_eye`, `_arange` and
 * `_linspace` only differ in the C expression for element e and its scalar parameters, so they
 * share the launch, the req handling (add accumulates; a bool add is a logical or) and the source
 * cache. Sources are keyed by (kind, dtype, req mode, parameter list), never by values or shapes:
 * one compiled kernel serves every call of an op in a dtype.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import {
  BLOCK,
  blocksFor,
  type CudaSource,
  ctype,
  hashText,
  type KernelArg,
  KIND_C,
  loadC,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaBlob } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';

/** One scalar kernel parameter: its C declaration (`double v`) and the launch argument. */
export interface GenParam {
  readonly decl: string;
  readonly arg: KernelArg;
}

/** The C type element values are computed in for `dtype` (float for 16-bit floats). */
export function computeC(dtype: DTypeName, op: string): string {
  return KIND_C[ctype(dtype, op).kind];
}

/** C statement storing compute value `v` into `o[e]` under write or add. */
export function storeC(dtype: DTypeName, add: boolean, v: string): string {
  if (!add) return `o[e] = ${toStorage(dtype, v)};`;
  if (dtype === 'bool') return `o[e] = (unsigned char)((o[e] != 0) || (${v}));`;
  return `o[e] = ${toStorage(dtype, `${loadC('o', dtype, 'e')} + (${v})`)};`;
}

const SOURCES = new Map<string, CudaSource>();

/**
 * Write `value('e')` (a C expression of the dtype's compute type; `e` is the `long long` element
 * index) into every element of `out`. `pre` is C run once per thread before the loop (e.g. a
 * value converted once); `params` are the kernel's scalar parameters after (o, n).
 */
export function generate(
  rt: CudaRuntime,
  op: string,
  out: CudaBlob,
  req: OpReqType,
  kind: string,
  value: (e: string) => string,
  params: readonly GenParam[] = [],
  pre = '',
): void {
  if (req === OpReq.null || out.size === 0) return;
  const dtype = out.dtype;
  const st = ctype(dtype, op);
  const add = req === OpReq.add;
  const decls = params.map((p) => p.decl);
  const key = `init|${kind}|${dtype}|${add ? 'add' : 'write'}|${decls.join(',')}|${pre}|${value('e')}`;
  let src = SOURCES.get(key);
  if (src === undefined) {
    const entry = `mx_init_${kind}_${hashText(key)}`;
    const C = computeC(dtype, op);
    const code = `extern "C" __global__ void ${entry}(${st.storage}* o, long long n${decls.map((d) => `, ${d}`).join('')}) {
${pre}  MX_GRID_LOOP(e, n) {
    const ${C} v = ${value('e')};
    ${storeC(dtype, add, 'v')}
  }
}
`;
    src = { entry, code };
    SOURCES.set(key, src);
  }
  const n = out.size;
  rt.launch(
    src,
    [blocksFor(n)],
    [BLOCK],
    [{ t: 'ptr', v: addr(out, op) }, { t: 'i64', v: n }, ...params.map((p) => p.arg)],
  );
}

/** The error for an op called with a dtype it cannot produce on cuda-native. */
export function dtypeError(
  op: string,
  dtype: DTypeName,
  allowed: readonly DTypeName[],
  device: number,
): MXNetError {
  return new MXNetError(`${op} does not support dtype ${dtype} on cuda-native`, {
    op,
    dtypes: [dtype],
    device: `gpu(${device})`,
    hint: `supported: ${allowed.join(', ')}; create it in one of those and cast with astype()`,
  });
}

/** Throw `dtypeError` unless `dtype` is in `allowed`. */
export function checkDtype(
  op: string,
  dtype: DTypeName,
  allowed: readonly DTypeName[],
  device: number,
): void {
  if (!allowed.includes(dtype)) throw dtypeError(op, dtype, allowed, device);
}
