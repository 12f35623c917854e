/**
 * WGSL text of one elementwise pipeline. Everything that varies per call — element count, element
 * offsets, collapsed dims and strides, scalar params — is read from the uniform block, so one
 * pipeline serves every shape; the text depends only on the typed expression, the dtypes, each
 * input's addressing mode, req=add and which arrays share a buffer (the pipeline key says so).
 *
 * Addressing modes per input: 'f' full (element j), 's' scalar (one element), 'g' general (strided:
 * the output index is decomposed over up to MAXD collapsed dims, innermost first).
 * A bool output is packed four to a u32 word, so each invocation owns one output word and computes
 * its (up to) four elements, writing the word once; other outputs take one element per invocation.
 *
 * Uniform words: 0 invocations, 1 elements, 2 output offset, 3 collapsed rank, 4.. input offsets,
 * then param slots, then (strided) MAXD dims and MAXD strides per input.
 */
import type { DTypeName } from '@mx/base';
import { MXNetError } from '@mx/base';
import { type Bindings, main1d, paramsDecl, wgslType } from '../../wgsl.js';
import { emitNode } from './emit.js';
import { convert, type Kind, kindOf, type TNode, WTYPE } from './kinds.js';
import { mathCalls, mathLib } from './math.js';

export const WG = 256;
export const MAXD = 6;

export type Mode = 'f' | 's' | 'g';

export interface ShaderSpec {
  readonly op: string;
  readonly tree: TNode;
  /** Dtypes of [output, ...used inputs]. */
  readonly dtypes: readonly DTypeName[];
  /** Input indices (of the op) the expression reads, ascending; `used[u]` is array u + 1. */
  readonly used: readonly number[];
  readonly modes: readonly Mode[];
  readonly add: boolean;
  readonly bindings: Bindings;
  /** `${name}|${kind}` for each param slot, in uniform order. */
  readonly params: readonly string[];
  /** Cast: float → integer wraps modulo 2^32 (typed-array semantics) instead of saturating. */
  readonly wrapCast?: boolean;
}

export function paramWords(s: {
  used: readonly unknown[];
  params: readonly unknown[];
  modes: readonly Mode[];
}): number {
  const strided = s.modes.includes('g');
  return 4 + s.used.length + s.params.length + (strided ? MAXD * (1 + s.used.length) : 0);
}

/** Storage access to array `a` (0 = output) through its slot, with bitcasts when the slot's declared type differs. */
function accessors(spec: ShaderSpec): {
  decls: string;
  raw: (a: number, idx: string) => string;
  rawStore: (a: number, idx: string, v: string) => string;
} {
  const declared = new Map<number, string>();
  spec.bindings.slot.forEach((s, a) => {
    const st = wgslType(spec.dtypes[a] as DTypeName, spec.op).storage;
    const prev = declared.get(s);
    if (prev === undefined) declared.set(s, st);
    else if (prev !== st) {
      if (prev === 'f16' || st === 'f16') {
        throw new MXNetError('arrays of float16 and a 4-byte dtype share one buffer', {
          op: spec.op,
          dtypes: [...spec.dtypes],
          device: 'gpu(0)',
          hint: 'write the result into a separate array',
        });
      }
      declared.set(s, 'u32');
    }
  });
  let decls = '';
  for (const [s, t] of declared)
    decls += `@group(0) @binding(${s + 1}) var<storage, read_write> b${s}: array<${t}>;\n`;
  const info = (a: number) => {
    const s = spec.bindings.slot[a] as number;
    return { s, decl: declared.get(s) as string, st: wgslType(spec.dtypes[a] as DTypeName).storage };
  };
  return {
    decls,
    raw: (a, idx) => {
      const { s, decl, st } = info(a);
      return decl === st ? `b${s}[${idx}]` : `bitcast<${st}>(b${s}[${idx}])`;
    },
    rawStore: (a, idx, v) => {
      const { s, decl, st } = info(a);
      return `b${s}[${idx}] = ${decl === st ? v : `bitcast<${decl}>(${v})`};`;
    },
  };
}

export function shaderSource(spec: ShaderSpec): string {
  const { used, modes, tree } = spec;
  const nU = used.length;
  const P0 = 4 + nU;
  const D0 = P0 + spec.params.length;
  const S0 = D0 + MAXD;
  const strided = modes.includes('g');
  const acc = accessors(spec);
  const outDtype = spec.dtypes[0] as DTypeName;
  const outKind = kindOf(outDtype, spec.op);
  const outPacked = wgslType(outDtype).packed === 4;

  const body: string[] = [];
  if (strided) {
    body.push('  var rem = j;');
    for (let u = 0; u < nU; u++) body.push(`  var ix${u} = pu(${4 + u}u);`);
    body.push(`  for (var d = 0u; d < pu(3u); d++) {
    let dim = pu(${D0}u + d);
    let c = rem % dim;
    rem = rem / dim;
${used.map((_, u) => `    ix${u} = ix${u} + c * pu(${S0 + u * MAXD}u + d);`).join('\n')}
  }`);
  } else {
    for (let u = 0; u < nU; u++) body.push(`  let ix${u} = pu(${4 + u}u)${modes[u] === 'f' ? ' + j' : ''};`);
  }
  const inputVar = new Map<number, string>();
  const lines: string[] = [];
  const root = emitNode(tree, {
    lines,
    input: (index) => {
      let v = inputVar.get(index);
      if (v === undefined) {
        const u = used.indexOf(index);
        const dt = spec.dtypes[u + 1] as DTypeName;
        const packed = wgslType(dt).packed === 4;
        const raw = packed
          ? `((${acc.raw(u + 1, `ix${u} >> 2u`)} >> ((ix${u} & 3u) << 3u)) & 0xffu)`
          : acc.raw(u + 1, `ix${u}`);
        v = `x${u}`;
        body.push(`  let ${v}: ${WTYPE[kindOf(dt, spec.op)]} = ${dt === 'float16' ? `f32(${raw})` : raw};`);
        inputVar.set(index, v);
      }
      return v;
    },
    param: (name, kind) => {
      const i = spec.params.indexOf(`${name}|${kind}`);
      const w = `${P0 + i}u`;
      return kind === 'f32' ? `pf(${w})` : kind === 'i32' ? `pi(${w})` : `pu(${w})`;
    },
  });
  body.push(...lines);
  const result =
    spec.wrapCast && tree.kind === 'f32' && (outKind === 'i32' || outKind === 'u32')
      ? `mx_f2${outKind === 'i32' ? 'i' : 'u'}_wrap(${root})`
      : convert(root, tree.kind, outKind);
  body.push(`  return ${result};`);
  const valueFn = `fn ew_value(j: u32) -> ${WTYPE[outKind]} {\n${body.join('\n')}\n}\n`;

  let main: string;
  if (outPacked) {
    const addV = spec.add ? '      v = u32((((word >> s) & 0xffu) + v) != 0u);\n' : '';
    main = main1d(
      WG,
      'pu(0u)',
      `  let n = pu(1u); let o = pu(2u);
  let w = (o >> 2u) + i;
  var word = ${acc.raw(0, 'w')};
  for (var k = 0u; k < 4u; k++) {
    let e = w * 4u + k;
    if (e >= o && e - o < n) {
      let s = k * 8u;
      var v = ew_value(e - o);
${addV}      word = (word & ~(0xffu << s)) | ((v & 0xffu) << s);
    }
  }
  ${acc.rawStore(0, 'w', 'word')}`,
    );
  } else {
    const half = outDtype === 'float16';
    const old = half ? `f32(${acc.raw(0, 'oi')})` : acc.raw(0, 'oi');
    const v = spec.add ? `${old} + v` : 'v';
    main = main1d(
      WG,
      'pu(0u)',
      `  let v = ew_value(i);
  let oi = pu(2u) + i;
  ${acc.rawStore(0, 'oi', half ? `f16(${v})` : v)}`,
    );
  }
  const code = valueFn + main;
  const enableF16 = spec.dtypes.includes('float16') ? 'enable f16;\n' : '';
  return `${enableF16}${paramsDecl(paramWords(spec))}${acc.decls}${mathLib(mathCalls(code))}\n${code}`;
}

export type { Kind };
