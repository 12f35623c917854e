/**
 * One generated 1-D CUDA kernel runs every fused optimizer update: an `UpdateSpec` names the array
 * slots, the per-call uniforms and the element body (C statements over `x_<slot>` and `u_<name>`
 * in the compute type `R`), and which values it stores where. Uniforms (lr, wd, momentum, ...) are
 * kernel arguments, so one kernel per (spec, variant flags, req mode, slot dtypes, R) serves every
 * step of a training loop whatever its learning-rate schedule.
 *
 * Two launch shapes share the body text:
 * - single ops pass the slot pointers and uniforms as arguments (nothing uploaded per step);
 * - multi_* ops (MXNet's MultiSGD kernels) run every weight of a call in one launch: blockIdx.y is
 *   the weight, its slot pointers, element count and uniforms come from tables uploaded into the
 *   op's scratch, so many small weights cost one launch instead of one each.
 *
 * Each thread loads every slot's element before storing anything, so the output may be the
 * weight's own memory (`out=weight`). One-element slots (`scalars`: adamw's rescale_grad, LAMB's
 * norms) are read at element 0. 16-bit slots load and store through float.
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import {
  BLOCK,
  blocksFor,
  type CudaSource,
  cachedSource,
  ctype,
  type KernelArg,
  loadC,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaBlob } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';

export interface UpdateSpec {
  /** Cache key of the spec. */
  readonly key: string;
  /** Slot names in parameter order; the one named `out` takes `req`. */
  readonly slots: readonly string[];
  /** Slots holding one value (read at element 0). */
  readonly scalars?: readonly string[];
  /** Slots passed but not loaded (only copied raw by `skipIf`). */
  readonly noLoad?: readonly string[];
  /** Uniform names (C identifiers after `u_`), in argument order. */
  readonly uniforms: readonly string[];
  /** C statements computing the stored values from `x_<slot>` and `u_<name>`. */
  readonly body: (flags: number) => string;
  /** [slot, C expression] pairs stored after the body, in order. */
  readonly stores: (flags: number) => readonly (readonly [string, string])[];
  /** A C condition that skips the update: the states stay and `out` gets the weight (write). */
  readonly skipIf?: string;
}

/** How the output is written: overwrite, accumulate, or not at all (states are still updated). */
export type Mode = 'write' | 'add' | 'none';

export function modeOf(req: OpReqType | undefined): Mode {
  return req === OpReq.add ? 'add' : req === OpReq.null || req === undefined ? 'none' : 'write';
}

/** Compute type of an update: float, or double for float64 weights of the non-mp ops. */
export type Real = 'f32' | 'f64';

/** Rounding helpers the bodies call (no FMA contraction), clipping and sign as MXNet computes them. */
const HELPERS = `static __device__ __forceinline__ float mx_mul(float a, float b) { return __fmul_rn(a, b); }
static __device__ __forceinline__ double mx_mul(double a, double b) { return __dmul_rn(a, b); }
static __device__ __forceinline__ float mx_add(float a, float b) { return __fadd_rn(a, b); }
static __device__ __forceinline__ double mx_add(double a, double b) { return __dadd_rn(a, b); }
static __device__ __forceinline__ float mx_sub(float a, float b) { return __fsub_rn(a, b); }
static __device__ __forceinline__ double mx_sub(double a, double b) { return __dsub_rn(a, b); }
static __device__ __forceinline__ float mx_div(float a, float b) { return __fdiv_rn(a, b); }
static __device__ __forceinline__ double mx_div(double a, double b) { return __ddiv_rn(a, b); }
static __device__ __forceinline__ float mx_sqrt(float a) { return __fsqrt_rn(a); }
static __device__ __forceinline__ double mx_sqrt(double a) { return __dsqrt_rn(a); }
static __device__ __forceinline__ float mx_abs(float a) { return fabsf(a); }
static __device__ __forceinline__ double mx_abs(double a) { return fabs(a); }
/* clip::Map: NaN passes through. */
static __device__ __forceinline__ float mx_clip(float x, float c) { return x > c ? c : (x < -c ? -c : x); }
static __device__ __forceinline__ double mx_clip(double x, double c) { return x > c ? c : (x < -c ? -c : x); }
/* (x > 0) - (x < 0): 0 for 0 and NaN. */
static __device__ __forceinline__ float mx_sign(float x) { return (float)((x > 0.0f) - (x < 0.0f)); }
static __device__ __forceinline__ double mx_sign(double x) { return (double)((x > 0.0) - (x < 0.0)); }
static __device__ __forceinline__ float mx_gt(float a, float b) { return a > b ? 1.0f : 0.0f; }
static __device__ __forceinline__ double mx_gt(double a, double b) { return a > b ? 1.0 : 0.0; }
`;

/** The loop body: loads, the skip test, the spec's statements and the stores. */
function loopBody(spec: UpdateSpec, flags: number, mode: Mode, dtypes: readonly DTypeName[]): string {
  const scalars = new Set(spec.scalars ?? []);
  const noLoad = new Set(spec.noLoad ?? []);
  const idx = (s: string) => (scalars.has(s) ? '0' : 'i');
  const dt = (s: string) => dtypes[spec.slots.indexOf(s)] as DTypeName;
  const ld = (s: string) => `(R)(${loadC(`p_${s}`, dt(s), idx(s))})`;
  let body = '';
  for (const s of spec.slots) {
    if (s !== 'out' && !noLoad.has(s)) body += `    const R x_${s} = ${ld(s)};\n`;
  }
  if (spec.skipIf !== undefined) {
    const copy = mode === 'write' ? 'p_out[i] = p_weight[i]; ' : '';
    body += `    if (${spec.skipIf}) { ${copy}continue; }\n`;
  }
  body += `${spec
    .body(flags)
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
  for (const [s, v] of spec.stores(flags)) {
    if (s === 'out') {
      if (mode === 'none') continue;
      const val = mode === 'add' ? `mx_add(${ld('out')}, (R)(${v}))` : v;
      body += `    p_out[i] = ${toStorage(dt('out'), val)};\n`;
    } else body += `    p_${s}[${idx(s)}] = ${toStorage(dt(s), v)};\n`;
  }
  return body;
}

function sourceFor(
  spec: UpdateSpec,
  flags: number,
  mode: Mode,
  dtypes: readonly DTypeName[],
  real: Real,
  multi: boolean,
): CudaSource {
  const key = `opt|${spec.key}|${flags}|${mode}|${dtypes.join(',')}|${real}|${multi ? 'multi' : 'single'}`;
  return cachedSource(`opt_${spec.key}`, key, (entry) => {
    const R = real === 'f32' ? 'float' : 'double';
    const ptrType = (k: number) => `${ctype(dtypes[k] as DTypeName).storage}*`;
    const K = spec.slots.length;
    const U = spec.uniforms.length;
    const loop = `  MX_GRID_LOOP(i, n) {\n${loopBody(spec, flags, mode, dtypes)}  }\n`;
    let code: string;
    if (!multi) {
      const params = [
        'long long n',
        ...spec.slots.map((s, k) => `${ptrType(k)} p_${s}`),
        ...spec.uniforms.map((u) => `${R} u_${u}`),
      ];
      code = `typedef ${R} R;\n${HELPERS}extern "C" __global__ void ${entry}(${params.join(', ')}) {\n${loop}}\n`;
    } else {
      const ptrs = spec.slots.map((s, k) => `  ${ptrType(k)} p_${s} = (${ptrType(k)})t[${k}];\n`).join('');
      const us = spec.uniforms.map((u, j) => `  const R u_${u} = ut[w * ${U} + ${j}];\n`).join('');
      code = `typedef ${R} R;\n${HELPERS}extern "C" __global__ void ${entry}(const long long* tab, const ${R}* ut, int w0) {
  const long long w = (long long)w0 + blockIdx.y;
  const long long* t = tab + w * ${K + 1};
${ptrs}  const long long n = t[${K}];
${us}${loop}}\n`;
    }
    return code;
  });
}

function uniformValues(spec: UpdateSpec, u: Readonly<Record<string, number>>): number[] {
  return spec.uniforms.map((name) => {
    const v = u[name];
    if (v === undefined) throw new Error(`optimizer spec ${spec.key}: no value for uniform '${name}'`);
    return v;
  });
}

/**
 * Run `spec` once: `blobs` in slot order (the output's size is the element count), `uniforms` by
 * name, already rounded to the compute precision.
 */
export function runUpdate(
  rt: CudaRuntime,
  op: string,
  spec: UpdateSpec,
  flags: number,
  req: OpReqType | undefined,
  real: Real,
  blobs: readonly CudaBlob[],
  uniforms: Readonly<Record<string, number>>,
): void {
  const n = (blobs[spec.slots.indexOf('out')] as CudaBlob).size;
  if (n === 0) return;
  const src = sourceFor(
    spec,
    flags,
    modeOf(req),
    blobs.map((b) => b.dtype),
    real,
    false,
  );
  const ut = real === 'f32' ? 'f32' : 'f64';
  const args: KernelArg[] = [
    { t: 'i64', v: n },
    ...blobs.map((b): KernelArg => ({ t: 'ptr', v: addr(b, op) })),
    ...uniformValues(spec, uniforms).map((v): KernelArg => ({ t: ut, v })),
  ];
  rt.launch(src, [blocksFor(n)], [BLOCK], args);
}

/** One weight of a multi_* call: its slots, req and uniforms. */
export interface MultiItem {
  readonly blobs: readonly CudaBlob[];
  readonly req: OpReqType | undefined;
  readonly uniforms: Readonly<Record<string, number>>;
}

/** Blocks along x per weight of a multi launch (threads loop over the rest). */
const MULTI_X_BLOCKS = 1024;
const MAX_GRID_Y = 65535;

/**
 * Run `spec` over every weight of a multi_* call: one launch per (slot dtypes, req mode) group
 * (normally one), blockIdx.y selecting the weight.
 */
export function runMulti(
  rt: CudaRuntime,
  op: string,
  spec: UpdateSpec,
  flags: number,
  real: Real,
  items: readonly MultiItem[],
): void {
  const groups = new Map<string, MultiItem[]>();
  for (const it of items) {
    const key = `${modeOf(it.req)}|${it.blobs.map((b) => b.dtype).join(',')}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [it]);
    else g.push(it);
  }
  const K = spec.slots.length;
  const U = spec.uniforms.length;
  const outK = spec.slots.indexOf('out');
  for (const group of groups.values()) {
    const first = group[0] as MultiItem;
    const nw = group.length;
    const tab = new BigInt64Array(nw * (K + 1));
    const ut = real === 'f32' ? new Float32Array(nw * U) : new Float64Array(nw * U);
    let maxN = 0;
    group.forEach((it, w) => {
      it.blobs.forEach((b, k) => {
        tab[w * (K + 1) + k] = BigInt(addr(b, op));
      });
      const n = (it.blobs[outK] as CudaBlob).size;
      tab[w * (K + 1) + K] = BigInt(n);
      maxN = Math.max(maxN, n);
      ut.set(uniformValues(spec, it.uniforms), w * U);
    });
    if (maxN === 0) continue;
    const src = sourceFor(
      spec,
      flags,
      modeOf(first.req),
      first.blobs.map((b) => b.dtype),
      real,
      true,
    );
    const tabPtr = rt.upload(tab);
    const utPtr = rt.upload(ut);
    const bx = Math.min(blocksFor(maxN), MULTI_X_BLOCKS);
    for (let w0 = 0; w0 < nw; w0 += MAX_GRID_Y) {
      rt.launch(
        src,
        [bx, Math.min(MAX_GRID_Y, nw - w0)],
        [BLOCK],
        [
          { t: 'ptr', v: tabPtr },
          { t: 'ptr', v: utPtr },
          { t: 'i32', v: w0 },
        ],
      );
    }
  }
}
