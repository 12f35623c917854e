/**
 * The products MXNet 2.0 registers as their own ops but which are each one einsum: `_npi_matmul`,
 * `_npi_dot`, `_npi_tensordot`, `_npi_tensordot_int_axes` and `_npi_kron`, with MXNet's backward
 * ops (`_backward_np_matmul` — MXNet's spelling —, `_backward_npi_dot`, `_backward_npi_tensordot`,
 * `_backward_npi_tensordot_int_axes`, `_backward_npi_kron`; inputs ograd, a, b as
 * `ElemwiseGradUseIn`). Each op's geometry is a pure *lowering* to einsum subscripts (plus the
 * shapes the operands and output are viewed as, for kron's interleaved axes), so inference and the
 * backends' kernels run the same plan as `_npi_einsum` and its gradient. The op names and params
 * stay MXNet's, so symbol JSON written by MXNet 2.0 loads and ours matches it.
 *
 * Shape errors carry NumPy's wording (the np layer's messages are these). Operands of two dtypes
 * are promoted as NumPy does (MXNet's `ElemwiseType` refuses them; the np layer casts first).
 */
import { type DTypeName, MXNetError, resultType, type Shape } from '@mx/base';
import type { TypeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known } from '../../linalg/shape-util.js';
import { parseEinsum } from '../einsum-parse.js';

/** One product as an einsum: subscripts over operands viewed as `views` into an output viewed as `outView`. */
export interface ProductLowering {
  readonly subscripts: string;
  /** The operands' shapes as the subscripts see them (same sizes as the real shapes). */
  readonly views: readonly Shape[];
  /** The op's output shape. */
  readonly outShape: Shape;
  /** The output's shape as the subscripts see it (same size as `outShape`). */
  readonly outView: Shape;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const MATMUL_SIG = '(n?,k),(k,m?)->(n?,m?)';
const s = (x: Shape) => `(${x.join(',')}${x.length === 1 ? ',' : ''})`;

function letters(op: string, n: number, shapes: readonly Shape[]): string {
  if (n > LETTERS.length) {
    throw new MXNetError(`${op}: too many dimensions (${n} distinct axes; at most ${LETTERS.length})`, {
      op,
      shapes: [...shapes],
      hint: 'reshape the operands to fewer dimensions',
    });
  }
  return LETTERS.slice(0, n);
}

function lowering(subscripts: string, views: readonly Shape[], outView?: Shape, outShape?: Shape) {
  const p = parseEinsum(subscripts, views);
  return { subscripts, views, outShape: outShape ?? p.outShape, outView: outView ?? p.outShape };
}

/** NumPy `matmul`'s geometry (1-D operands promoted and the added axis removed; batch dims broadcast). */
export function matmulLowering(a: Shape, b: Shape): ProductLowering {
  const op = '_npi_matmul';
  [a, b].forEach((x, i) => {
    if (x.length === 0) {
      throw new MXNetError(
        `matmul: Input operand ${i} does not have enough dimensions (has 0, gufunc core with signature ${MATMUL_SIG} requires 1)`,
        { op, shapes: [a, b], hint: 'matmul does not take scalars: use multiply' },
      );
    }
  });
  const k = a[a.length - 1] as number;
  const kb = (b.length === 1 ? b[0] : b[b.length - 2]) as number;
  if (k !== kb) {
    throw new MXNetError(
      `matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature ${MATMUL_SIG} (size ${kb} is different from ${k})`,
      { op, shapes: [a, b], hint: "a's last axis must match b's second-to-last (its only, for 1-D b)" },
    );
  }
  const ba = a.slice(0, -2);
  const bb = b.slice(0, -2);
  const n = Math.max(ba.length, bb.length);
  for (let i = 1; i <= n; i++) {
    const x = ba[ba.length - i] ?? 1;
    const y = bb[bb.length - i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) {
      throw new MXNetError(
        `operands could not be broadcast together with remapped shapes [original->remapped]: ${s(a)} and ${s(b)} (batch dims ${s(ba)} vs ${s(bb)})`,
        { op, shapes: [a, b], hint: 'the batch dims (all but the last two) must broadcast' },
      );
    }
  }
  const left = a.length === 1 ? 'j' : '...ij';
  const right = b.length === 1 ? 'j' : '...jk';
  const out = `${a.length === 1 && b.length === 1 ? '' : '...'}${a.length === 1 ? '' : 'i'}${b.length === 1 ? '' : 'k'}`;
  return lowering(`${left},${right}->${out}`, [a, b]);
}

/** NumPy `dot`'s geometry: a scalar multiplies; else a's last axis with b's second-to-last (its only, 1-D). */
export function dotLowering(a: Shape, b: Shape): ProductLowering {
  const op = '_npi_dot';
  if (a.length === 0 || b.length === 0) {
    const l = letters(op, Math.max(a.length, b.length), [a, b]);
    const t = a.length === 0 ? '' : l;
    const u = b.length === 0 ? '' : l;
    return lowering(`${t},${u}->${l}`, [a, b]);
  }
  const k = a[a.length - 1] as number;
  const kb = (b.length === 1 ? b[0] : b[b.length - 2]) as number;
  if (k !== kb) {
    throw new MXNetError(
      `shapes ${s(a)} and ${s(b)} not aligned: ${k} (dim ${a.length - 1}) != ${kb} (dim ${Math.max(0, b.length - 2)})`,
      { op, shapes: [a, b], hint: "make a's last axis match b's second-to-last" },
    );
  }
  const l = letters(op, a.length + b.length - 1, [a, b]);
  const ta = l.slice(0, a.length - 1);
  const sum = l[a.length - 1] as string;
  const rest = l.slice(a.length);
  const tb = b.length === 1 ? sum : `${rest.slice(0, b.length - 2)}${sum}${rest.slice(b.length - 2)}`;
  return lowering(`${ta}${sum},${tb}->${ta}${rest}`, [a, b]);
}

function normAxis(op: string, ax: number, nd: number, shapes: readonly Shape[], prefix = ''): number {
  const x = ax < 0 ? ax + nd : ax;
  if (!Number.isInteger(ax) || x < 0 || x >= nd) {
    throw new MXNetError(`${prefix}axis ${ax} is out of bounds for array of dimension ${nd}`, {
      op,
      shapes: [...shapes],
      hint: `use an axis in [${-nd}, ${nd})`,
    });
  }
  return x;
}

/** NumPy `tensordot(a, b, (aAxes, bAxes))`: summed pairs, then a's free axes and b's in order. */
export function tensordotLowering(a: Shape, b: Shape, aAxes: readonly number[], bAxes: readonly number[]) {
  const op = '_npi_tensordot';
  const mismatch = () =>
    new MXNetError('shape-mismatch for sum', {
      op,
      shapes: [a, b],
      params: { a_axes_summed: aAxes, b_axes_summed: bAxes },
      hint: 'the summed axes of a and b must pair up with equal lengths',
    });
  if (aAxes.length !== bAxes.length) throw mismatch();
  const as = aAxes.map((x) => normAxis(op, x, a.length, [a, b]));
  const bs = bAxes.map((x) => normAxis(op, x, b.length, [a, b]));
  if (as.some((x, i) => a[x] !== b[bs[i] as number])) throw mismatch();
  if (new Set(as).size !== as.length || new Set(bs).size !== bs.length) {
    throw new MXNetError('repeated axis in tensordot axes', {
      op,
      shapes: [a, b],
      params: { a_axes_summed: aAxes, b_axes_summed: bAxes },
      hint: 'name each summed axis once',
    });
  }
  const l = letters(op, a.length + b.length - as.length, [a, b]);
  const ta = l.slice(0, a.length).split('');
  let next = a.length;
  const tb = Array.from({ length: b.length }, (_, j) => {
    const i = bs.indexOf(j);
    return i >= 0 ? (ta[as[i] as number] as string) : (l[next++] as string);
  });
  const out = [...ta.filter((_, i) => !as.includes(i)), ...tb.filter((_, j) => !bs.includes(j))];
  return lowering(`${ta.join('')},${tb.join('')}->${out.join('')}`, [a, b]);
}

/** NumPy `tensordot(a, b, axes)` with an int: a's last `axes` axes with b's first `axes`. */
export function tensordotIntLowering(a: Shape, b: Shape, axes: number): ProductLowering {
  if (axes < 0 || axes > a.length || axes > b.length) {
    throw new MXNetError('shape-mismatch for sum', {
      op: '_npi_tensordot_int_axes',
      shapes: [a, b],
      params: { axes },
      hint: `axes must be in [0, ${Math.min(a.length, b.length)}] for these operands`,
    });
  }
  const aa = Array.from({ length: axes }, (_, i) => a.length - axes + i);
  const bb = Array.from({ length: axes }, (_, i) => i);
  return tensordotLowering(a, b, aa, bb);
}

/** NumPy `kron`: the shorter shape padded with leading 1s; out dim i = a_i · b_i (interleaved einsum). */
export function kronLowering(a: Shape, b: Shape): ProductLowering {
  const nd = Math.max(a.length, b.length);
  const pa = [...new Array<number>(nd - a.length).fill(1), ...a];
  const pb = [...new Array<number>(nd - b.length).fill(1), ...b];
  const l = letters('_npi_kron', 2 * nd, [a, b]);
  const ta = l.slice(0, nd);
  const tb = l.slice(nd);
  const out = Array.from({ length: nd }, (_, i) => `${ta[i]}${tb[i]}`).join('');
  const outView = Array.from({ length: nd }, (_, i) => [pa[i] as number, pb[i] as number]).flat();
  return lowering(
    `${ta},${tb}->${out}`,
    [pa, pb],
    outView,
    pa.map((x, i) => x * (pb[i] as number)),
  );
}

/** The params the lowered ops take (MXNet's param structs). */
export const loweredParams = {
  _npi_matmul: {},
  _npi_dot: {},
  _npi_kron: {},
  _npi_tensordot: {
    a_axes_summed: P.tuple(P.int(), { doc: "Summed axes of a (tensordot's first axes list)." }),
    b_axes_summed: P.tuple(P.int(), { doc: "Summed axes of b (tensordot's second axes list)." }),
  },
  _npi_tensordot_int_axes: {
    axes: P.int({ doc: "Sum over a's last `axes` axes and b's first `axes` axes." }),
  },
} as const;

/** A lowered op's name, with the geometry of its params and operand shapes. */
export type LoweredOp = keyof typeof loweredParams;

/** The lowering of `op` for operand shapes `a`, `b` (parsed params). */
export function lowerProduct(op: string, attrs: Readonly<Record<string, unknown>>, a: Shape, b: Shape) {
  switch (op) {
    case '_npi_matmul':
      return matmulLowering(a, b);
    case '_npi_dot':
      return dotLowering(a, b);
    case '_npi_kron':
      return kronLowering(a, b);
    case '_npi_tensordot':
      return tensordotLowering(a, b, attrs.a_axes_summed as number[], attrs.b_axes_summed as number[]);
    case '_npi_tensordot_int_axes':
      return tensordotIntLowering(a, b, attrs.axes as number);
    default:
      throw new MXNetError(`${op} is not an einsum-lowered product`, { op, hint: 'internal error' });
  }
}

/** Backward op name of each lowered op (MXNet's). */
export const LOWERED_BACKWARD: Readonly<Record<LoweredOp, string>> = {
  _npi_matmul: '_backward_np_matmul',
  _npi_dot: '_backward_npi_dot',
  _npi_kron: '_backward_npi_kron',
  _npi_tensordot: '_backward_npi_tensordot',
  _npi_tensordot_int_axes: '_backward_npi_tensordot_int_axes',
};

const DOCS: Readonly<Record<LoweredOp, string>> = {
  _npi_matmul:
    "NumPy's matmul: matrix product of the last two axes, batch axes broadcast; 1-D operands are promoted (a row or a column) and the added axis removed.",
  _npi_dot:
    "NumPy's dot: a scalar multiplies; otherwise the sum product over a's last axis and b's second-to-last (its only, for 1-D b).",
  _npi_kron: "NumPy's kron: the Kronecker product (shapes padded with leading 1s; out dim i = a_i * b_i).",
  _npi_tensordot:
    "NumPy's tensordot with axes as two lists: sum products over the paired axes; the result has a's free axes then b's.",
  _npi_tensordot_int_axes:
    "NumPy's tensordot with an int: sum products over a's last `axes` axes and b's first `axes` axes.",
};

function promoted(types: TypeSlots): DTypeName | undefined {
  if (types.some((t) => t === undefined)) return undefined;
  return resultType(types as DTypeName[]);
}

export function registerLoweredProducts(registry: OpRegistry): void {
  for (const name of Object.keys(loweredParams) as LoweredOp[]) {
    const params = loweredParams[name];
    const backward = LOWERED_BACKWARD[name];
    registry.define({
      name,
      doc: DOCS[name],
      params,
      numInputs: 2,
      listInputNames: ['a', 'b'],
      listOutputNames: ['out'],
      inferShape: (attrs, inS, outS) => {
        const [a, b] = inS;
        if (!known(a) || !known(b)) return false;
        const l = lowerProduct(name, attrs as Record<string, unknown>, a, b);
        assignShape(name, outS, 0, l.outShape, 'output');
        return true;
      },
      inferType: (_a, inT, outT) => {
        const t = promoted(inT);
        if (t === undefined) return false;
        outT[0] = t;
        return true;
      },
      resourceRequest: () => ['tempSpace'],
      gradient: {
        inputs: 'all',
        build: (g, attrs) =>
          g.op(backward, [g.ograd(0), g.input(0), g.input(1)], attrs as Record<string, unknown>),
      },
    });
    registry.define({
      name: backward,
      doc: `Gradient of ${name}: (ograd, a, b) -> (grad a, grad b), each the einsum of ograd with the other operand.`,
      params,
      numInputs: 3,
      numOutputs: 2,
      listInputNames: ['ograd', 'a', 'b'],
      listOutputNames: ['a_grad', 'b_grad'],
      isBackward: true,
      resourceRequest: () => ['tempSpace'],
      inferShape: (attrs, inS, outS) => {
        const [, a, b] = inS;
        if (!known(a) || !known(b)) return false;
        const l = lowerProduct(name, attrs as Record<string, unknown>, a, b);
        assignShape(backward, inS, 0, l.outShape, 'ograd');
        assignShape(backward, outS, 0, a, 'gradient of a');
        assignShape(backward, outS, 1, b, 'gradient of b');
        return true;
      },
      inferType: (_a, inT, outT) => {
        if (inT[1] !== undefined) outT[0] = inT[1];
        if (inT[2] !== undefined) outT[1] = inT[2];
        const t = promoted(inT.slice(1));
        if (t !== undefined && inT[0] === undefined) inT[0] = t;
        return inT.every((x) => x !== undefined) && outT.every((x) => x !== undefined);
      },
    });
  }
}

/** `_npi_trace`'s output shape (MXNet NumpyTraceOpShape): a without axis1 and axis2. */
export function traceShape(a: Shape, offset: number, axis1: number, axis2: number): Shape {
  const op = '_npi_trace';
  if (a.length < 2) {
    throw new MXNetError('diag requires an array of at least two dimensions', {
      op,
      shapes: [a],
      hint: 'trace needs ndim >= 2',
    });
  }
  const x1 = normAxis(op, axis1, a.length, [a], 'axis1: ');
  const x2 = normAxis(op, axis2, a.length, [a], 'axis2: ');
  if (x1 === x2) {
    throw new MXNetError('axis1 and axis2 cannot be the same', {
      op,
      shapes: [a],
      params: { offset, axis1, axis2 },
      hint: 'pick two different axes',
    });
  }
  return a.filter((_, i) => i !== x1 && i !== x2);
}

/** The diagonal `_npi_trace` sums: its length and first (row, column) along (axis1, axis2). */
export function traceDiagonal(
  n1: number,
  n2: number,
  offset: number,
): { len: number; i0: number; j0: number } {
  const i0 = Math.max(0, -offset);
  const j0 = Math.max(0, offset);
  return { len: Math.max(0, Math.min(n1 - i0, n2 - j0)), i0, j0 };
}

const traceParams = {
  offset: P.int({
    default: 0,
    doc: 'Offset of the diagonal from the main diagonal. Can be both positive and negative.',
  }),
  axis1: P.int({ default: 0, doc: 'Axes to be used as the first axis of the 2-D sub-arrays.' }),
  axis2: P.int({ default: 1, doc: 'Axes to be used as the second axis of the 2-D sub-arrays.' }),
};

export function registerTrace(registry: OpRegistry): void {
  registry.define({
    name: '_npi_trace',
    doc: 'Sum along a diagonal of the 2-D sub-arrays on (axis1, axis2), `offset` above (+) or below (-) the main one.',
    params: traceParams,
    listInputNames: ['data'],
    inferShape: (p, inS, outS) => {
      const a = inS[0];
      if (!known(a)) return false;
      assignShape('_npi_trace', outS, 0, traceShape(a, p.offset, p.axis1, p.axis2), 'output');
      return true;
    },
    inferType: (_p, inT, outT) => {
      const t = inT[0] ?? outT[0];
      if (t === undefined) return false;
      inT[0] = t;
      outT[0] = t;
      return true;
    },
    gradient: {
      inputs: 'all',
      build: (g, p) => [g.op1('_backward_npi_trace', [g.ograd(0), g.input(0)], p)],
    },
  });
  registry.define({
    name: '_backward_npi_trace',
    doc: "Gradient of _npi_trace: ograd on the diagonal, zero elsewhere. Inputs (ograd, data) — MXNet's takes ograd only and reads data's shape from the graph.",
    params: traceParams,
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    inferShape: (_p, inS, outS) => {
      const a = inS[1];
      if (!known(a)) return false;
      assignShape('_backward_npi_trace', outS, 0, a, 'gradient');
      return true;
    },
    inferType: (_p, inT, outT) => {
      const t = inT[1] ?? inT[0];
      if (t === undefined) return false;
      outT[0] = t;
      return true;
    },
  });
}
