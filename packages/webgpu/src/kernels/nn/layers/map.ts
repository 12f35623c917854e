/**
 * One elementwise kernel for every activation, output layer and mask product of this family:
 * out[i] (=|+=) expr(a0, a1, …) with up to four float32 inputs, each read at i ('same'), at its
 * channel (i / inner) % C ('chan': prelu's gamma) or through a broadcast index ('bcast': Dropout's
 * shared-axes mask). The expression is WGSL over a0..a3 and the uniforms p0..p3 (scalars such as
 * slope or grad_scale), with MATH_WGSL's accurate exp/log/tanh/erf.
 *
 * It is deliberately separate from the elementwise family's compiler (written in parallel): layer
 * ops pick their formula from a string param, which a registered SimpleOp cannot do.
 */
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { grid1d } from '../../../runtime.js';
import { main1d, paramsDecl } from '../../../wgsl.js';
import { BCAST_WORDS, type Bound, bcastFn, bcastWords, bind, f32bits, type Mode, put } from './gpu-util.js';
import { MATH_WGSL } from './math.js';

export type View = 'same' | 'chan' | 'bcast';

export interface MapCall {
  /** Unique name of the expression (pipeline key). */
  readonly name: string;
  /** WGSL f32 expression over a0..a(n-1) and p0..p3. */
  readonly expr: string;
  readonly inputs: readonly GpuBlob[];
  readonly views?: readonly View[];
  readonly params?: readonly number[];
  /** For a 'chan' input: (inner, C) of the output around the channel axis. */
  readonly chan?: { readonly inner: number; readonly C: number };
  readonly out: GpuBlob;
  readonly mode: Mode;
  /** Op name for errors. */
  readonly op: string;
}

const WG = 256;
// Words: 0 n, 1 out offset, 2..5 input offsets, 6..9 params, 10 inner, 11 C, 12.. bcast block.
const BC = 12;
const WORDS = BC + BCAST_WORDS;

function source(c: MapCall, b: Bound): string {
  const names = b.names;
  const n = c.inputs.length;
  let body = '';
  for (let k = 0; k < n; k++) {
    const v = c.views?.[k] ?? 'same';
    const idx = v === 'same' ? 'i' : v === 'chan' ? '((i / pu(10u)) % pu(11u))' : 'mx_bidx(i)';
    body += `  let a${k} = ${names[k]}[pu(${2 + k}u) + ${idx}];\n`;
  }
  for (let k = 0; k < 4; k++) body += `  let p${k} = pf(${6 + k}u);\n`;
  body += `  ${put(names[n] as string, 'pu(1u) + i', c.expr, c.mode)}`;
  return `${paramsDecl(WORDS)}${b.decls}${MATH_WGSL}${bcastFn('mx_bidx', BC)}${main1d(WG, 'pu(0u)', body)}`;
}

/** Encode out (=|+=) expr(inputs); nothing when the mode is 'n' or the output is empty. */
export function runMap(gpu: GpuHost, c: MapCall): void {
  const n = c.out.size;
  if (c.mode === 'n' || n === 0) return;
  const rt = gpu.rt;
  const b = bind([...c.inputs, c.out]);
  const views = c.inputs.map((_, k) => c.views?.[k] ?? 'same').join('');
  const key = `layers-map:${c.name}:${views}:${c.mode}:${b.key}`;
  const entry = rt.pipeline(key, () => source(c, b), WORDS);
  const w = new Array<number>(WORDS).fill(0);
  w[0] = n;
  w[1] = b.offsets[c.inputs.length] as number;
  c.inputs.forEach((_, k) => {
    w[2 + k] = b.offsets[k] as number;
  });
  (c.params ?? []).forEach((p, k) => {
    w[6 + k] = f32bits(p);
  });
  w[10] = c.chan?.inner ?? 1;
  w[11] = c.chan?.C ?? 1;
  const bi = (c.views ?? []).indexOf('bcast');
  if (bi >= 0) {
    const words = bcastWords(c.op, c.out.shape, (c.inputs[bi] as GpuBlob).shape);
    words.forEach((v, k) => {
      w[BC + k] = v;
    });
  }
  rt.dispatch(entry, b.buffers, w, grid1d(n, WG));
}
