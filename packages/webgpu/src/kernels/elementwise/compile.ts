/**
 * The SimpleOp compiler for webgpu: an op's `elementwise.forward` expression becomes a kernel that
 * handles any shapes at run time (cpu-wasm's compile.ts is the model). Per call it:
 * - checks shapes (equal unless `broadcast`; `inputViews` reshape inputs first) and types the
 *   expression for the call's dtypes (cached per dtype signature);
 * - picks the addressing: contiguous when every input has the output's size or one element,
 *   else strided over the collapsed broadcast layout (plan.ts); more than MAXD collapsed dims are
 *   iterated here, one dispatch per outer index;
 * - gets the pipeline keyed by expression, dtypes, modes, req=add, aliasing and cast mode, and
 *   dispatches with shapes, offsets and params in the uniforms.
 * Inputs the expression never reads are not bound (layout 'auto' would drop them).
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { type Attrs, type Expr, exprKey, type Kernel, type Op, OpReq } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { grid1d } from '../../runtime.js';
import { bindBlobs, elemOffset, wgslType } from '../../wgsl.js';
import { castNumber, type Kind, kindBits, kindOf, type TNode, typeExpr } from './kinds.js';
import { broadcastStrides, collapse, shapeStr } from './plan.js';
import { MAXD, type Mode, paramWords, shaderSource, WG } from './shader.js';

interface Variant {
  readonly tree: TNode;
  readonly used: number[];
  /** `${name}|${kind}` slots. */
  readonly params: string[];
}

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

function paramSlots(n: TNode, out: string[]): string[] {
  if (n.e.k === 'param') {
    const k = `${n.e.name}|${n.kind}`;
    if (!out.includes(k)) out.push(k);
  }
  for (const c of n.kids) paramSlots(c, out);
  return out;
}

function paramValue(op: string, attrs: Attrs, name: string): number {
  const v = attrs[name];
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  throw new MXNetError(`scalar parameter '${name}' is ${v === undefined ? 'missing' : String(v)}`, {
    op,
    params: attrs,
    device: 'gpu(0)',
    hint: `pass a number for ${name}`,
  });
}

export interface ElementwiseOptions {
  /** Cast semantics for float → integer (wrap modulo 2^32, as cpu-wasm's Cast). */
  readonly wrapCast?: boolean;
}

/** The webgpu kernel computing `expr` for op `name` (its `broadcast` / `inputViews` as the def says). */
export function elementwiseKernel(
  gpu: GpuHost,
  name: string,
  expr: Expr,
  def: {
    readonly broadcast?: boolean;
    readonly inputViews?: (ins: readonly Shape[], out: Shape) => readonly Shape[];
  },
  options: ElementwiseOptions = {},
): Kernel {
  const key = exprKey(expr);
  const read = [...inputsRead(expr, new Set())].sort((a, b) => a - b);
  const variants = new Map<string, Variant>();
  const variant = (inDtypes: readonly DTypeName[], outDtype: DTypeName): Variant => {
    const sig = `${inDtypes.join(',')}>${outDtype}`;
    let v = variants.get(sig);
    if (v === undefined) {
      const kinds: Kind[] = inDtypes.map((d) => kindOf(d, name));
      const tree = typeExpr(expr, kinds, kindOf(outDtype, name), name);
      v = { tree, used: read, params: paramSlots(tree, []) };
      variants.set(sig, v);
    }
    return v;
  };

  return gpuKernel(gpu, name, (attrs, inputs, req, outputs) => {
    const r = req[0];
    const out = outputs[0];
    if (out === undefined || r === undefined || r === OpReq.null) return;
    const shapes = inputs.map((b) => b.shape);
    if (def.broadcast !== true && def.inputViews === undefined) {
      for (const b of inputs) {
        if (b.shape.length !== out.shape.length || b.shape.some((d, i) => d !== out.shape[i])) {
          throw new MXNetError(
            `shapes must be equal: got ${shapes.map(shapeStr).join(' ')} for output ${shapeStr(out.shape)}`,
            { op: name, shapes, device: 'gpu(0)', hint: 'use the broadcast_ variant to broadcast' },
          );
        }
      }
    }
    const views = def.inputViews ? def.inputViews(shapes, out.shape) : shapes;
    const strides = views.map((s) => broadcastStrides(name, s, out.shape, views));
    const v = variant(
      inputs.map((b) => b.dtype),
      out.dtype,
    );
    if (out.size === 0 || out.ptr === null) return;
    const rt = gpu.rt;
    const used = v.used.map((i) => inputs[i] as GpuBlob);
    for (const b of used) {
      if (b.ptr === null) {
        throw new MXNetError(`an input of ${b.size} elements has no buffer`, { op: name, device: 'gpu(0)' });
      }
    }
    const add = r === OpReq.add;
    const n = out.size;
    const contiguous = used.every((b) => b.size === n || b.size === 1);
    const plan = contiguous
      ? undefined
      : collapse(
          out.shape,
          v.used.map((i) => strides[i] as number[]),
        );
    const modes: Mode[] = used.map((b) => (contiguous ? (b.size === n ? 'f' : 's') : 'g'));
    const arrays: GpuBlob[] = [out, ...used];
    const bindings = bindBlobs(arrays);
    const dtypes = arrays.map((b) => b.dtype);
    const pkey = `ew|${key}|${dtypes.join(',')}|${modes.join('')}|${add ? 'add' : 'w'}|${bindings.key}|${options.wrapCast ? 'wrap' : ''}`;
    const spec = {
      op: name,
      tree: v.tree,
      dtypes,
      used: v.used,
      modes,
      add,
      bindings,
      params: v.params,
      ...options,
    };
    const words = paramWords(spec);
    const entry = rt.pipeline(pkey, () => shaderSource(spec), words);
    const u = new Uint32Array(words);
    for (let p = 0; p < v.params.length; p++) {
      const [pname, kind] = (v.params[p] as string).split('|') as [string, Kind];
      u[4 + used.length + p] = kindBits(kind, castNumber(kind, paramValue(name, attrs, pname)));
    }
    const outOff = elemOffset(out);
    const inOff = used.map((b) => elemOffset(b));
    const packed = wgslType(out.dtype).packed === 4;
    const launch = (count: number, oOff: number, iOff: readonly number[]): void => {
      if (count === 0) return;
      const inv = packed ? Math.ceil((oOff + count) / 4) - Math.floor(oOff / 4) : count;
      u[0] = inv;
      u[1] = count;
      u[2] = oOff;
      for (let k = 0; k < iOff.length; k++) u[4 + k] = iOff[k] as number;
      rt.dispatch(entry, bindings.buffers, u, grid1d(inv, WG));
    };
    if (plan === undefined) {
      launch(n, outOff, inOff);
      return;
    }
    // Strided: the innermost MAXD collapsed dims go to the shader, outer ones are iterated here.
    const nd = plan.dims.length;
    const inner = Math.min(nd, MAXD);
    const D0 = 4 + used.length + v.params.length;
    u[3] = inner;
    for (let d = 0; d < inner; d++) {
      const src = nd - 1 - d;
      u[D0 + d] = plan.dims[src] as number;
      for (let k = 0; k < used.length; k++)
        u[D0 + MAXD * (1 + k) + d] = (plan.strides[k] as number[])[src] as number;
    }
    const outer = plan.dims.slice(0, nd - inner);
    const innerSize = plan.dims.slice(nd - inner).reduce((a, b) => a * b, 1);
    const outerCount = outer.reduce((a, b) => a * b, 1);
    const idx = new Array<number>(outer.length).fill(0);
    for (let o = 0; o < outerCount; o++) {
      const iOff = inOff.map((off, k) =>
        outer.reduce((s, _, d) => s + (idx[d] as number) * ((plan.strides[k] as number[])[d] as number), off),
      );
      launch(innerSize, outOff + o * innerSize, iOff);
      for (let d = outer.length - 1; d >= 0; d--) {
        idx[d] = (idx[d] as number) + 1;
        if ((idx[d] as number) < (outer[d] as number)) break;
        idx[d] = 0;
      }
    }
  });
}

/** Compile a SimpleOp (the registry's elementwise compiler for webgpu). */
export function compileElementwise(gpu: GpuHost, op: Op): Kernel {
  const def = op.elementwise;
  if (def === undefined) throw new MXNetError('not an elementwise op', { op: op.name, device: 'gpu(0)' });
  return elementwiseKernel(gpu, op.name, def.forward, def);
}
