/**
 * One generated 1-D WGSL kernel runs every fused optimizer update: an `UpdateSpec` names the array
 * slots, the per-call uniforms and the element body (WGSL statements over `x_<slot>` and
 * `u_<uniform>`, all f32), and which values it stores where. Shapes, offsets and scalars (lr, wd,
 * momentum, beta1...) are uniforms, so one pipeline per (spec, variant flags, req, slot dtypes,
 * aliasing) serves every step of a training loop whatever its learning-rate schedule.
 *
 * Each invocation loads every slot's element before storing anything, so the output may be the
 * weight's own memory (`out=weight`; `bindBlobs` binds a shared buffer once). One-element array
 * slots (`scalars`: adamw's rescale_grad, LAMB's norms) are read at their own offset, not at `i`.
 * float16 slots (mixed-precision weights; only with shader-f16) load and store through f32.
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import {
  bindBlobs,
  declareArrays,
  elemOffset,
  load,
  main1d,
  needsF16,
  paramBits,
  paramsDecl,
  store,
} from '../../wgsl.js';

const WG = 256;

export interface UpdateSpec {
  /** Cache key of the spec. */
  readonly key: string;
  /** Slot names in binding order; the one named `out` takes `req`. */
  readonly slots: readonly string[];
  /** Slots holding one value (read at element 0 of the array). */
  readonly scalars?: readonly string[];
  /** Uniform names (WGSL identifiers), in word order. */
  readonly uniforms: readonly string[];
  /** WGSL statements computing the stored values from `x_<slot>` and `u_<name>`. */
  readonly body: (flags: number) => string;
  /** [slot, WGSL expression] pairs stored after the body, in order. */
  readonly stores: (flags: number) => readonly (readonly [string, string])[];
  /** A WGSL condition that skips the update: the states stay and `out` gets `x_weight` (write). */
  readonly skipIf?: string;
}

/** Clipping and sign as MXNet computes them (NaN passes through clip; sign(NaN) = 0). */
const HELPERS = `fn clipv(x: f32, c: f32) -> f32 { return select(select(x, -c, x < -c), c, x > c); }
fn sgn(x: f32) -> f32 { return select(0.0, 1.0, x > 0.0) - select(0.0, 1.0, x < 0.0); }
fn isnanf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
`;

function source(
  spec: UpdateSpec,
  flags: number,
  req: OpReqType,
  dtypes: readonly DTypeName[],
  bind: ReturnType<typeof bindBlobs>,
): string {
  const { decls, names } = declareArrays(bind, dtypes);
  const K = spec.slots.length;
  const scalars = new Set(spec.scalars ?? []);
  const outK = spec.slots.indexOf('out');
  const idx = (k: number) => (scalars.has(spec.slots[k] as string) ? `pu(${1 + k}u)` : `pu(${1 + k}u) + i`);
  const ld = (k: number) => `f32(${load(names[k] as string, dtypes[k] as DTypeName, idx(k))})`;
  const st = (k: number, v: string) => {
    const dt = dtypes[k] as DTypeName;
    return store(names[k] as string, dt, idx(k), dt === 'float16' ? `f16(${v})` : v);
  };
  let body = '';
  spec.slots.forEach((s, k) => {
    if (k !== outK) body += `  let x_${s} = ${ld(k)};\n`;
  });
  spec.uniforms.forEach((u, j) => {
    body += `  let u_${u} = pf(${1 + K + j}u);\n`;
  });
  const writeOut = req !== OpReq.null;
  if (spec.skipIf !== undefined) {
    const copy = writeOut && req !== OpReq.add ? st(outK, 'x_weight') : '';
    body += `  if (${spec.skipIf}) { ${copy} return; }\n`;
  }
  body += spec.body(flags);
  for (const [slot, v] of spec.stores(flags)) {
    const k = spec.slots.indexOf(slot);
    if (k === outK) {
      if (!writeOut) continue;
      body += `  ${st(k, req === OpReq.add ? `${ld(k)} + (${v})` : v)}\n`;
    } else body += `  ${st(k, v)}\n`;
  }
  return `${needsF16(dtypes) ? 'enable f16;\n' : ''}${paramsDecl(1 + K + spec.uniforms.length)}${decls}${HELPERS}${main1d(WG, 'pu(0u)', body)}`;
}

/**
 * Run `spec` over `n` elements: `blobs` in slot order, `uniforms` by name (float32 values).
 * `n` is the element count of the arrays (the output's size).
 */
export function runUpdate(
  rt: WebGpuRuntime,
  spec: UpdateSpec,
  flags: number,
  req: OpReqType,
  blobs: readonly GpuBlob[],
  uniforms: Readonly<Record<string, number>>,
): void {
  const out = blobs[spec.slots.indexOf('out')] as GpuBlob;
  const n = out.size;
  if (n === 0) return;
  const bind = bindBlobs(blobs);
  const dtypes = blobs.map((b) => b.dtype);
  const key = `opt:${spec.key}:${flags}:${req}:${dtypes.join(',')}:${bind.key}`;
  const words = 1 + spec.slots.length + spec.uniforms.length;
  const entry = rt.pipeline(key, () => source(spec, flags, req, dtypes, bind), words);
  const params = [n, ...blobs.map(elemOffset)];
  for (const u of spec.uniforms) {
    const v = uniforms[u];
    if (v === undefined) throw new Error(`optimizer spec ${spec.key}: no value for uniform '${u}'`);
    params.push(paramBits('float32', v));
  }
  rt.dispatch(entry, bind.buffers, params, grid1d(n, WG));
}
