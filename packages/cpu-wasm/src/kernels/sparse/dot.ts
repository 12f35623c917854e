/**
 * Sparse `dot` and `_backward_dot` on cpu-wasm (MXNet `DotForwardEx` / `DotBackwardEx<cpu>`), and
 * FullyConnected with csr data (fully-connected-csr.ts). The dense kernels stay what they were: the
 * installer extends each op's registered kernel with `computeEx` + `computeExStorage`, so all-dense
 * calls never come here and the dense products the sparse cases need (a csr lhs's gradient, the
 * dense operands of `forward_stype`) reuse the GEMM kernel on 2-D views of the blobs.
 *
 * Served storage signatures (the rest take the NDArray layer's dense fallback, as in MXNet):
 *   dot:  csr · dense/rsp → dense; csrᵀ · dense/rsp → row_sparse or dense; dense · csr → csr or
 *         dense; dense · csrᵀ → dense; dense · dense → csr/row_sparse (`forward_stype`: the dense
 *         product, then cast_storage's kernel).
 *   _backward_dot: dense ograd with a csr lhs (rhs gradient csrᵀ · ograd as row_sparse or dense;
 *         csr · ograd with transpose_a) or a csr rhs (lhs gradient ograd · op(csr)ᵀ). The gradient
 *         of the csr operand itself, which MXNet leaves uncomputed, is computed dense when asked.
 * Dense operands of any rank are viewed as MXNet's 2-D matrices (MXNet itself refuses non-2-D
 * operands in sparse dot); csr · dense with a row_sparse rhs is also served with transpose_a,
 * which MXNet leaves unimplemented.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import {
  isSparseBlob,
  type Kernel,
  type OpContext,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type SparseOutput,
  type TBlob,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { blobAt, bytesOf, type CsrOperand, SparseDotRunner } from './dot-run.js';
import { installFullyConnectedCsr } from './fully-connected-csr.js';

const BACKEND = 'cpu-wasm';

type Blob = TBlob<number>;
type In = Blob | SparseBlob<number>;
type Out = Blob | SparseOutput<number>;
type Stype = 'default' | 'row_sparse' | 'csr';

interface DotAttrs {
  readonly transpose_a: boolean;
  readonly transpose_b: boolean;
  readonly forward_stype?: Stype | null;
  readonly [k: string]: unknown;
}

/** Which storage signatures the sparse `dot` kernel serves (see the file comment). */
export function dotServes(p: DotAttrs, inSt: readonly Stype[], outSt: readonly Stype[]): boolean {
  const [l, r] = inSt;
  const o = outSt[0];
  if (l === 'csr' && (r === 'default' || r === 'row_sparse') && !p.transpose_b)
    return p.transpose_a ? o === 'default' || o === 'row_sparse' : o === 'default';
  if (l === 'default' && r === 'csr' && !p.transpose_a)
    return o === 'default' || (o === 'csr' && !p.transpose_b);
  return l === 'default' && r === 'default' && o !== 'default';
}

/** Which storage signatures the sparse `_backward_dot` kernel serves. */
export function backwardDotServes(p: DotAttrs, inSt: readonly Stype[], outSt: readonly Stype[]): boolean {
  const [og, l, r] = inSt;
  const [gl, gr] = outSt;
  if (og !== 'default' || gl !== 'default') return false;
  if (l === 'csr' && (r === 'default' || r === 'row_sparse') && !p.transpose_b)
    return gr === 'default' || (gr === 'row_sparse' && !p.transpose_a);
  return l === 'default' && r === 'csr' && !p.transpose_a && gr === 'default';
}

const prod = (s: readonly number[], from = 0, to = s.length): number => {
  let n = 1;
  for (let i = from; i < to; i++) n *= s[i] as number;
  return n;
};

/** A blob viewed as a (rows, size / rows) matrix. */
function mat(b: Blob, rows: number, cols: number): Blob {
  return { ...b, shape: [rows, cols] };
}

function mismatch(op: string, p: DotAttrs, shapes: Shape[], what: string): MXNetError {
  return new MXNetError(`${op}: ${what} (shapes ${shapes.map(shapeToString).join(', ')})`, {
    op,
    params: { transpose_a: p.transpose_a, transpose_b: p.transpose_b },
    shapes,
    hint: 'check the operands and transpose_a/transpose_b',
  });
}

export function installDot(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const runner = new SparseDotRunner(rt);
  const baseOf = (name: string): Kernel | undefined => {
    const op = registry.find(name);
    return op === undefined ? undefined : registry.kernel(op, BACKEND);
  };
  const dotBase = baseOf('dot');
  // The dense GEMM kernel is the base every product here extends or reuses (installed by gemm/).
  if (dotBase?.compute === undefined) return;
  const gemmCompute = dotBase.compute;
  const addr = (b: Blob) => rt.address(b);

  /** out (req) = op(a) · op(b) on 2-D blobs, by the dense GEMM kernel. */
  const gemm = (
    ctx: OpContext,
    a: Blob,
    b: Blob,
    ta: boolean,
    tb: boolean,
    out: Blob,
    req: OpReqType,
  ): void => {
    if (req === OpReq.null) return;
    gemmCompute({ transpose_a: ta, transpose_b: tb, forward_stype: null }, ctx, [a, b], [req], [out]);
  };

  /** A dense copy of a sparse blob in a temporary (cast_storage's kernel), then `body`. */
  const withDense = <R>(ctx: OpContext, op: string, x: In, body: (d: Blob) => R): R => {
    if (!isSparseBlob(x)) return body(x);
    const cast = baseOf('cast_storage');
    return runner.withTemps(op, [bytesOf(x.dtype, prod(x.shape))], ([p]) => {
      const d = blobAt(p as number, x.shape, x.dtype);
      cast?.computeEx?.({ stype: 'default' }, ctx, [x], [OpReq.write], [d]);
      return body(d);
    });
  };

  const checkDtypes = (op: string, xs: readonly (In | Out)[]): void => {
    const dt = xs[0]?.dtype;
    if (xs.some((x) => x.dtype !== dt) || (dt !== 'float32' && dt !== 'float64'))
      throw new MXNetError(
        `${op} on sparse arrays needs one float dtype, got ${xs.map((x) => x.dtype).join(', ')}`,
        {
          op,
          dtypes: xs.map((x) => x.dtype),
          hint: 'cast the operands to float32 or float64 with astype()',
        },
      );
  };

  /**
   * csr `a` (times op) dense-or-rsp `r` into `o`: with !ta o = a · r (dense), with ta o = aᵀ · r
   * (row_sparse or dense).
   */
  const csrTimes = (op: string, a: CsrOperand, ta: boolean, r: In, o: Out, acc: boolean): void => {
    const rows = r.shape[0] as number;
    const n = prod(r.shape, 1);
    const run = (dense: number, map: number): void => {
      if (isSparseBlob(o)) runner.csrTRsp(op, a, dense, map, n, o);
      else if (ta) runner.csrTDense(op, a, dense, map, o, a.cols, n, 0, acc);
      else runner.csrDense(op, a, dense, map, addr(o), n, acc);
    };
    if (!isSparseBlob(r)) run(addr(r), 0);
    else
      runner.withRowMap(op, rows, (map) => {
        runner.rspRowMap(op, r, map);
        run(addr(r.data), map);
      });
  };

  const dotEx = (
    p: DotAttrs,
    ctx: OpContext,
    inputs: readonly In[],
    req: readonly OpReqType[],
    outputs: readonly Out[],
  ) => {
    const op = 'dot';
    const rq = req[0] ?? OpReq.write;
    if (rq === OpReq.null) return;
    const [l, r] = inputs as [In, In];
    const o = outputs[0] as Out;
    checkDtypes(op, [l, r, o]);
    if (isSparseBlob(o) && rq === OpReq.add)
      throw new MXNetError('cannot accumulate (req=add) into a sparse dot output', {
        op,
        hint: 'add explicitly',
      });
    const acc = rq === OpReq.add;
    const ta = p.transpose_a;
    const tb = p.transpose_b;
    if (isSparseBlob(l) && l.stype === 'csr' && (!isSparseBlob(r) || r.stype === 'row_sparse') && !tb) {
      const a = runner.csr(op, l);
      const k = ta ? a.rows : a.cols;
      if ((r.shape[0] as number) !== k || r.shape.length === 0)
        throw mismatch(
          op,
          p,
          [l.shape, r.shape],
          `the csr's ${ta ? 'rows' : 'columns'} (${k}) must match the rhs's first axis`,
        );
      if (isSparseBlob(o) && (o.stype !== 'row_sparse' || !ta))
        throw mismatch(
          op,
          p,
          [l.shape, r.shape],
          `csr${ta ? 'ᵀ' : ''} · ${isSparseBlob(r) ? r.stype : 'default'} cannot give ${o.stype}`,
        );
      csrTimes(op, a, ta, r, o, acc);
      return;
    }
    if (!isSparseBlob(l) && isSparseBlob(r) && r.stype === 'csr' && !ta) {
      const a = runner.csr(op, r);
      const k = l.shape[l.shape.length - 1] as number;
      if (l.shape.length === 0 || k !== (tb ? a.cols : a.rows))
        throw mismatch(
          op,
          p,
          [l.shape, r.shape],
          `the lhs's last axis (${k}) must match the csr's ${tb ? 'columns' : 'rows'}`,
        );
      const xRows = prod(l.shape, 0, l.shape.length - 1);
      if (isSparseBlob(o)) {
        if (o.stype !== 'csr' || tb)
          throw mismatch(op, p, [l.shape, r.shape], `dense · csr cannot give ${o.stype} here`);
        runner.denseCsrToCsr(op, addr(l), xRows, a, o);
      } else if (tb) runner.denseCsrT(op, addr(l), xRows, a, addr(o), acc);
      else runner.denseCsr(op, addr(l), xRows, a, addr(o), a.cols, 0, acc);
      return;
    }
    if (!isSparseBlob(l) && !isSparseBlob(r) && isSparseBlob(o)) {
      // forward_stype with dense operands: MXNet's fallback — the dense product, then a cast.
      if (o.stype === 'csr' && o.shape.length !== 2)
        throw mismatch(
          op,
          p,
          [l.shape, r.shape],
          `a csr output must be 2-D, the product is ${shapeToString(o.shape)}`,
        );
      runner.withTemps(op, [bytesOf(o.dtype, prod(o.shape))], ([t]) => {
        const d = blobAt(t as number, o.shape, o.dtype);
        gemmCompute(p, ctx, [l, r], [OpReq.write], [d]);
        baseOf('cast_storage')?.computeEx?.({ stype: o.stype }, ctx, [d], [OpReq.write], [o]);
      });
      return;
    }
    throw new MXNetError(
      `no sparse dot kernel for ${[l, r].map((x) => (isSparseBlob(x) ? x.stype : 'default')).join(' · ')} → ${isSparseBlob(o) ? o.stype : 'default'} with transpose_a=${ta}, transpose_b=${tb}`,
      { op, shapes: [l.shape, r.shape], hint: 'cast the operands to dense (asDense()) first' },
    );
  };

  const backwardDotEx = (
    p: DotAttrs,
    ctx: OpContext,
    inputs: readonly In[],
    req: readonly OpReqType[],
    outputs: readonly Out[],
  ) => {
    const op = '_backward_dot';
    const [og, l, r] = inputs as [In, In, In];
    const [gl, gr] = outputs as [Out, Out];
    const rl = req[0] ?? OpReq.write;
    const rr = req[1] ?? OpReq.write;
    checkDtypes(op, [og, l, r, gl, gr]);
    const unsupported = () =>
      new MXNetError(
        `no sparse _backward_dot kernel for ograd ${isSparseBlob(og) ? og.stype : 'default'}, lhs ${isSparseBlob(l) ? l.stype : 'default'}, rhs ${isSparseBlob(r) ? r.stype : 'default'} → (${isSparseBlob(gl) ? gl.stype : 'default'}, ${isSparseBlob(gr) ? gr.stype : 'default'})`,
        { op, shapes: [og.shape, l.shape, r.shape], hint: 'this signature takes the dense fallback' },
      );
    if (isSparseBlob(og) || isSparseBlob(gl)) throw unsupported();
    const lhsCsr =
      isSparseBlob(l) &&
      l.stype === 'csr' &&
      !p.transpose_b &&
      (!isSparseBlob(r) || r.stype === 'row_sparse');
    const rhsCsr =
      !isSparseBlob(l) && isSparseBlob(r) && r.stype === 'csr' && !p.transpose_a && !isSparseBlob(gr);
    if (!lhsCsr && !rhsCsr) throw unsupported();
    if (isSparseBlob(gr) && (gr.stype !== 'row_sparse' || p.transpose_a || rr === OpReq.add))
      throw unsupported();
    if (lhsCsr) {
      // lhs csr (R, K), rhs (Kr, ...) viewed (Kr, n); ograd (R or K, n).
      const a = runner.csr(op, l as SparseBlob<number>);
      const n = prod(r.shape, 1);
      const ta = p.transpose_a;
      const dc = og as Blob;
      if (rr !== OpReq.null) csrTimes(op, a, !ta, dc, gr, rr === OpReq.add);
      if (rl !== OpReq.null)
        withDense(ctx, op, r, (b) => {
          const B = mat(b, r.shape[0] as number, n);
          const dC = mat(dc, ta ? a.cols : a.rows, n);
          const out = mat(gl as Blob, a.rows, a.cols);
          // dA = dC · Bᵀ, or with transpose_a B · dCᵀ.
          if (ta) gemm(ctx, B, dC, false, true, out, rl);
          else gemm(ctx, dC, B, false, true, out, rl);
        });
      return;
    }
    // lhs dense (..., k) viewed (M, k), rhs csr (R, K); ograd (M, K) or with transpose_b (M, R).
    const a = runner.csr(op, r as SparseBlob<number>);
    const lb = l as Blob;
    const k = lb.shape[lb.shape.length - 1] as number;
    const M = prod(lb.shape, 0, lb.shape.length - 1);
    const tb = p.transpose_b;
    const dc = og as Blob;
    if (rl !== OpReq.null) {
      if (tb) runner.denseCsr(op, addr(dc), M, a, addr(gl as Blob), a.cols, 0, rl === OpReq.add);
      else runner.denseCsrT(op, addr(dc), M, a, addr(gl as Blob), rl === OpReq.add);
    }
    if (rr !== OpReq.null) {
      const A = mat(lb, M, k);
      const dC = mat(dc, M, tb ? a.rows : a.cols);
      // dB = Aᵀ · dC, or with transpose_b dCᵀ · A (both (R, K)).
      if (tb) gemm(ctx, dC, A, true, false, mat(gr as Blob, a.rows, a.cols), rr);
      else gemm(ctx, A, dC, true, false, mat(gr as Blob, a.rows, a.cols), rr);
    }
  };

  const extend = (
    name: string,
    serves: (p: DotAttrs, i: readonly Stype[], o: readonly Stype[]) => boolean,
    ex: typeof dotEx,
  ): void => {
    const base = baseOf(name);
    if (base === undefined) return;
    registry.registerKernel<DotAttrs>(name, BACKEND, {
      ...(base as Kernel<DotAttrs>),
      computeExStorage: (p, i, o) => serves(p, i as Stype[], o as Stype[]),
      computeEx: (p, ctx, inputs, req, outputs) =>
        ex(p, ctx, inputs as readonly In[], req, outputs as readonly Out[]),
    });
  };
  extend('dot', dotServes, dotEx);
  extend('_backward_dot', backwardDotServes, backwardDotEx);
  installFullyConnectedCsr(registry, rt, runner, gemm);
}
