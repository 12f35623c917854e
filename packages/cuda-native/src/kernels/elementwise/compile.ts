/**
 * The SimpleOp compiler for cuda-native: an op's `elementwise.forward` expression becomes CUDA C,
 * specialised per call signature (dtypes, addressing mode, req) and cached, then launched over the
 * output with a grid-stride loop. Per call it:
 * - checks shapes (equal unless `broadcast`; `inputViews` reshape inputs first);
 * - picks the addressing: contiguous when every input has the output's size or one element, else
 *   strided over the collapsed broadcast layout (layout.ts) with shapes and strides passed as
 *   MxDims arguments;
 * - passes scalar params as kernel arguments converted as a C cast would (cpu-wasm's intValue).
 * Inputs the expression never reads are not passed.
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { type Attrs, type Expr, exprKey, type Kernel, type Op, OpReq } from '@mx/ops';
import {
  argTypeOf,
  BLOCK,
  blocksFor,
  CUDA_DTYPES,
  type CudaSource,
  ctype,
  hashText,
  type KernelArg,
  KIND_C,
  type Kind,
  loadC,
  MAXD,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaHost, cudaKernel } from '../../kernel.js';
import { EW_SUPPORT, emitNode } from './emit.js';
import { typeExpr } from './kinds.js';
import { broadcastStrides, collapse, shapeText } from './layout.js';

function inputsRead(e: Expr, out: Set<number>): Set<number> {
  if (e.k === 'input') out.add(e.index);
  else if (e.k === 'unary') inputsRead(e.a, out);
  else if (e.k === 'binary') {
    inputsRead(e.a, out);
    inputsRead(e.b, out);
  } else if (e.k === 'select') {
    inputsRead(e.cond, out);
    inputsRead(e.a, out);
    inputsRead(e.b, out);
  }
  return out;
}

/** A JS number as the kernel argument of a param of kind `kind` (C-cast semantics, as cpu-wasm). */
export function paramArg(kind: Kind, v: number): KernelArg {
  const t = argTypeOf(kind);
  if (kind === 'f32' || kind === 'f64') return { t, v };
  if (kind === 'bool') return { t, v: v !== 0 ? 1 : 0 };
  if (!Number.isFinite(v)) return { t, v: 0 };
  const x = Math.trunc(v);
  if (kind === 'i8') return { t, v: (x << 24) >> 24 };
  if (kind === 'u8') return { t, v: x & 255 };
  if (kind === 'i32') return { t, v: x | 0 };
  return { t, v: x };
}

function paramValue(op: string, attrs: Attrs, name: string): number {
  const v = attrs[name];
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  throw new MXNetError(`scalar parameter '${name}' is ${v === undefined ? 'missing' : String(v)}`, {
    op,
    params: attrs,
    device: 'gpu',
    hint: `pass a number for ${name}`,
  });
}

type Mode = 'full' | 'scalar' | 'strided';

interface Spec {
  readonly op: string;
  readonly expr: Expr;
  readonly inDtypes: readonly DTypeName[];
  readonly outDtype: DTypeName;
  readonly used: readonly number[];
  readonly modes: readonly Mode[];
  readonly add: boolean;
}

/** The CUDA C of one specialisation, and its params in argument order (`name|kind`). */
export function elementwiseSource(s: Spec): { source: CudaSource; params: string[] } {
  const inKinds = s.inDtypes.map((d) => ctype(d, s.op).kind);
  const outKind = ctype(s.outDtype, s.op).kind;
  const tree = typeExpr(s.expr, inKinds, outKind, s.op);
  const params: string[] = [];
  const lines: string[] = [];
  const strided = s.modes.includes('strided');
  const value = emitNode(
    tree,
    {
      lines,
      input: (i) => `x${i}`,
      param: (name, kind) => {
        const key = `${name}|${kind}`;
        if (!params.includes(key)) params.push(key);
        const p = `p${params.indexOf(key)}`;
        return kind === 'i8' || kind === 'u8' || kind === 'bool' ? `((${KIND_C[kind]})${p})` : p;
      },
    },
    (i) => inKinds[i] as Kind,
  );
  const key = `${exprKey(s.expr)}|${s.inDtypes.join(',')}>${s.outDtype}|${s.used.join(',')}|${s.modes.join(',')}|${s.add}`;
  const entry = `mx_ew_${s.op.replace(/[^A-Za-z0-9]/g, '_')}_${hashText(key)}`;
  const sig = [`${ctype(s.outDtype).storage}* out`];
  for (const i of s.used) sig.push(`const ${ctype(s.inDtypes[i] as DTypeName).storage}* in${i}`);
  sig.push('long long n');
  params.forEach((p, k) => {
    const kind = p.split('|')[1] as Kind;
    const t = argTypeOf(kind);
    sig.push(`${t === 'f32' ? 'float' : t === 'f64' ? 'double' : t === 'i64' ? 'long long' : 'int'} p${k}`);
  });
  if (strided) {
    sig.push('MxDims shape');
    for (const i of s.used) sig.push(`MxDims s${i}`);
    sig.push('int nd');
  }
  const body: string[] = [];
  if (strided) {
    body.push(`    long long r = i;`);
    for (const i of s.used) body.push(`    long long j${i} = 0;`);
    const accum = s.used.map((i) => `j${i} += c * s${i}.v[d];`).join(' ');
    body.push(
      `    for (int d = nd - 1; d >= 0; --d) { long long c = r % shape.v[d]; r /= shape.v[d]; ${accum} }`,
    );
  }
  s.used.forEach((i, k) => {
    const mode = s.modes[k] as Mode;
    const idx = mode === 'strided' ? `j${i}` : mode === 'scalar' ? '0' : 'i';
    const kind = inKinds[i] as Kind;
    body.push(`    const ${KIND_C[kind]} x${i} = ${loadC(`in${i}`, s.inDtypes[i] as DTypeName, idx)};`);
  });
  body.push(...lines);
  const outT = KIND_C[outKind];
  const result = tree.kind === outKind ? value : `(${outT})(${value})`;
  const store = s.add
    ? `${outT} acc = ${loadC('out', s.outDtype, 'i')}; out[i] = ${toStorage(s.outDtype, `acc + ${result}`)};`
    : `out[i] = ${toStorage(s.outDtype, result)};`;
  body.push(`    ${store}`);
  const code = `${EW_SUPPORT}extern "C" __global__ void ${entry}(${sig.join(', ')}) {\n  MX_GRID_LOOP(i, n) {\n${body.join('\n')}\n  }\n}\n`;
  return { source: { entry, code }, params };
}

export interface ElementwiseDefLike {
  readonly broadcast?: boolean;
  readonly inputViews?: (ins: readonly Shape[], out: Shape) => readonly Shape[];
}

/** The cuda kernel computing `expr` for op `name` over every CUDA dtype. */
export function elementwiseKernel(host: CudaHost, name: string, expr: Expr, def: ElementwiseDefLike): Kernel {
  const read = [...inputsRead(expr, new Set())].sort((a, b) => a - b);
  const cache = new Map<string, { source: CudaSource; params: string[] }>();
  return cudaKernel(
    host,
    name,
    (attrs, inputs, req, outputs) => {
      const r = req[0];
      const out = outputs[0];
      if (out === undefined || r === undefined || r === OpReq.null) return;
      const shapes = inputs.map((b) => b.shape);
      if (def.broadcast !== true && def.inputViews === undefined) {
        for (const b of inputs) {
          if (b.shape.length !== out.shape.length || b.shape.some((d, i) => d !== out.shape[i])) {
            throw new MXNetError(
              `shapes must be equal: got ${shapes.map(shapeText).join(' ')} for output ${shapeText(out.shape)}`,
              { op: name, shapes, device: 'gpu', hint: 'use the broadcast_ variant to broadcast' },
            );
          }
        }
      }
      if (out.size === 0) return;
      const views = def.inputViews ? def.inputViews(shapes, out.shape) : shapes;
      const n = out.size;
      const contiguous = read.every((i) => (inputs[i]?.size ?? 0) === n || inputs[i]?.size === 1);
      const strides = contiguous
        ? []
        : read.map((i) => broadcastStrides(name, views[i] as Shape, out.shape, views));
      const plan = contiguous ? undefined : collapse(out.shape, strides);
      if (plan !== undefined && plan.dims.length > MAXD) {
        throw new MXNetError(`broadcasting over ${plan.dims.length} non-mergeable dims (at most ${MAXD})`, {
          op: name,
          shapes,
          device: 'gpu',
          hint: 'reshape the operands to fewer dims',
        });
      }
      const modes: Mode[] = read.map((i) =>
        contiguous ? ((inputs[i] as { size: number }).size === n ? 'full' : 'scalar') : 'strided',
      );
      const inDtypes = inputs.map((b) => b.dtype);
      const add = r === OpReq.add;
      const key = `${inDtypes.join(',')}>${out.dtype}|${modes.join(',')}|${add}`;
      let spec = cache.get(key);
      if (spec === undefined) {
        spec = elementwiseSource({ op: name, expr, inDtypes, outDtype: out.dtype, used: read, modes, add });
        cache.set(key, spec);
      }
      const args: KernelArg[] = [{ t: 'ptr', v: addr(out, name) }];
      for (const i of read) args.push({ t: 'ptr', v: addr(inputs[i] as never, name) });
      args.push({ t: 'i64', v: n });
      for (const p of spec.params) {
        const [pname, kind] = p.split('|') as [string, Kind];
        args.push(paramArg(kind, paramValue(name, attrs, pname)));
      }
      if (plan !== undefined) {
        args.push({ t: 'dims', v: plan.dims });
        for (const s of plan.strides) args.push({ t: 'dims', v: s });
        args.push({ t: 'i32', v: plan.dims.length });
      }
      host.rt.launch(spec.source, [blocksFor(n)], [BLOCK], args);
    },
    CUDA_DTYPES,
  );
}

/** Compile a SimpleOp (the registry's elementwise compiler for cuda-native). */
export function compileElementwise(host: CudaHost, op: Op): Kernel {
  const def = op.elementwise;
  if (def === undefined) throw new MXNetError('not an elementwise op', { op: op.name, device: 'gpu' });
  return elementwiseKernel(host, op.name, def.forward, def);
}
