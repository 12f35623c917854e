/**
 * NumPy's einsum subscripts, parsed and checked against the operands' shapes (pure; no arrays).
 *
 * Shaped after NumPy 1.24's C parser (`PyArray_EinsteinSum` in einsum.c.src), so that the same
 * strings are accepted and the same mistakes get NumPy's words, checked in the same order:
 * operand terms one by one (operand count, bad characters, '.', too many / too few labels), the
 * output term, collapsed (repeated) labels, then the broadcast of every label. NumPy's two
 * operand-count messages are swapped in NumPy itself ("fewer operands provided" is what it says
 * when *more* operands than terms are given); we keep NumPy's text and say the counts in the hint.
 *
 * Labels are small integers: letters in character-code order ('A'..'Z' → 0..25, 'a'..'z' →
 * 26..51), so sorting ids sorts as NumPy's implicit output does, and the dims an ellipsis stands
 * for are 52 + j, j counting from the left of the broadcast block (operands with fewer ellipsis
 * dims align right, as NumPy's do). Sizes broadcast as NumPy's iterator does (1 stretches);
 * repeated labels in one operand (a diagonal) need equal dims. Unknown dims (-1) are allowed for
 * graph inference: they are skipped by the checks and give -1 sizes.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';

/** Number of letter labels; ids from here on are ellipsis (broadcast) dims. */
export const LETTER_LABELS = 52;

const OP = '_npi_einsum';

/** The subscripts resolved against operand ranks: one label id per axis. */
export interface EinsumSubscripts {
  /** Label id of every axis of every operand (repeats mark a diagonal). */
  readonly inputs: readonly (readonly number[])[];
  /** Label id of every output axis (no repeats). */
  readonly output: readonly number[];
  /** True when the string had '->'. */
  readonly explicit: boolean;
  /** Number of dims the ellipses stand for (the widest operand's). */
  readonly ellipsisNdim: number;
}

/** The subscripts plus the label sizes and the output shape. */
export interface EinsumProblem extends EinsumSubscripts {
  /** Size of each label id in [0, 52 + ellipsisNdim); -1 when unused or unknown. */
  readonly sizes: readonly number[];
  /** The output's shape. */
  readonly outShape: Shape;
}

/** The letter of a letter label, or `…j` for ellipsis dim j (for messages and tests). */
export function labelName(id: number): string {
  if (id < 26) return String.fromCharCode(65 + id);
  if (id < LETTER_LABELS) return String.fromCharCode(97 + id - 26);
  return `…${id - LETTER_LABELS}`;
}

function letterId(c: string): number {
  const k = c.charCodeAt(0);
  if (k >= 65 && k <= 90) return k - 65;
  if (k >= 97 && k <= 122) return k - 97 + 26;
  return -1;
}

function fail(message: string, subscripts: string, shapes: readonly Shape[], hint: string): MXNetError {
  return new MXNetError(message, { op: OP, params: { subscripts }, shapes: [...shapes], hint });
}

const DOT_MSG = (where: string) =>
  `einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in ${where}`;
const INVALID = (c: string) =>
  `invalid subscript '${c}' in einstein sum subscripts string, subscripts must be letters`;
const NO_ELLIPSIS = (what: string) =>
  `${what} has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.`;

/**
 * One operand's term (NumPy `parse_operand_subscripts`): label ids per axis, ellipsis dims as
 * -1 - k (k from the right of the operand's ellipsis block), and the ellipsis width.
 */
function parseTerm(
  term: string,
  ndim: number,
  iop: number,
  ctx: { s: string; shapes: readonly Shape[] },
): { axes: number[]; ellipsis: number } {
  const labels: number[] = [];
  let ellipsisAt = -1;
  for (let i = 0; i < term.length; i++) {
    const c = term[i] as string;
    const id = letterId(c);
    if (id >= 0) {
      if (labels.length >= ndim) {
        throw fail(
          `einstein sum subscripts string contains too many subscripts for operand ${iop}`,
          ctx.s,
          ctx.shapes,
          `operand ${iop} has ${ndim} dimension(s); give it ${ndim} subscript(s)${ellipsisAt >= 0 ? ' counting the ellipsis' : ''}`,
        );
      }
      labels.push(id);
    } else if (c === '.') {
      if (ellipsisAt !== -1 || i + 2 >= term.length || term[i + 1] !== '.' || term[i + 2] !== '.') {
        throw fail(
          DOT_MSG(`operand ${iop}`),
          ctx.s,
          ctx.shapes,
          "write an ellipsis as exactly '...', once per term",
        );
      }
      i += 2;
      ellipsisAt = labels.length;
    } else if (c !== ' ') {
      throw fail(INVALID(c), ctx.s, ctx.shapes, "use letters a-z, A-Z, ',', '->', '...' and spaces");
    }
  }
  if (ellipsisAt === -1) {
    if (labels.length !== ndim) {
      throw fail(
        NO_ELLIPSIS('operand'),
        ctx.s,
        ctx.shapes,
        `operand ${iop} has ${ndim} dimensions but ${labels.length} subscripts; add subscripts or '...'`,
      );
    }
    return { axes: labels, ellipsis: 0 };
  }
  const width = ndim - labels.length;
  const axes = [
    ...labels.slice(0, ellipsisAt),
    ...Array.from({ length: width }, (_, k) => -1 - (width - 1 - k)),
    ...labels.slice(ellipsisAt),
  ];
  return { axes, ellipsis: width };
}

/**
 * Resolve `subscripts` against operands of ranks `ndims` (NumPy's rules and messages). Throws
 * MXNetError for a malformed string or a rank that does not fit it.
 */
export function parseSubscripts(
  subscripts: string,
  ndims: readonly number[],
  shapes: readonly Shape[] = ndims.map((n) => Array.from({ length: n }, () => -1)),
): EinsumSubscripts {
  const ctx = { s: subscripts, shapes };
  const nop = ndims.length;
  if (nop === 0) throw fail('No input operands', subscripts, shapes, 'pass at least one operand');
  const nTerms = () => subscripts.split('->')[0]?.split(',').length ?? 0;
  const raw: { axes: number[]; ellipsis: number }[] = [];
  const counts = new Array<number>(LETTER_LABELS).fill(0);
  let pos = 0;
  for (let iop = 0; iop < nop; iop++) {
    let end = pos;
    while (end < subscripts.length && subscripts[end] !== ',' && subscripts[end] !== '-') end++;
    const stop = subscripts[end];
    if (iop === nop - 1 && stop === ',') {
      throw fail(
        'more operands provided to einstein sum function than specified in the subscripts string',
        subscripts,
        shapes,
        `${nop} operand(s) given but the subscripts have ${nTerms()} term(s) (NumPy's wording); pass one operand per term`,
      );
    }
    if (iop !== nop - 1 && stop !== ',') {
      throw fail(
        'fewer operands provided to einstein sum function than specified in the subscripts string',
        subscripts,
        shapes,
        `${nop} operands given but the subscripts have ${iop + 1} term(s) (NumPy's wording); pass one operand per term`,
      );
    }
    const term = parseTerm(subscripts.slice(pos, end), ndims[iop] as number, iop, ctx);
    for (const a of term.axes) if (a >= 0) counts[a] = (counts[a] as number) + 1;
    raw.push(term);
    pos = iop === nop - 1 ? end : end + 1;
  }
  const ellipsisNdim = Math.max(0, ...raw.map((t) => t.ellipsis));
  const bcast = (k: number) => LETTER_LABELS + ellipsisNdim - 1 - k;
  const inputs = raw.map((t) => t.axes.map((a) => (a >= 0 ? a : bcast(-1 - a))));
  const broadcastIds = Array.from({ length: ellipsisNdim }, (_, j) => LETTER_LABELS + j);
  let output: number[];
  const explicit = pos < subscripts.length;
  if (!explicit) {
    output = [...broadcastIds];
    for (let id = 0; id < LETTER_LABELS; id++) if (counts[id] === 1) output.push(id);
  } else {
    if (subscripts[pos] !== '-' || subscripts[pos + 1] !== '>') {
      throw fail(
        "einstein sum subscript string does not contain proper '->' output specified",
        subscripts,
        shapes,
        "separate the output term with '->'",
      );
    }
    output = parseOutput(subscripts.slice(pos + 2), counts, broadcastIds, ctx);
  }
  return { inputs, output, explicit, ellipsisNdim };
}

/** NumPy `parse_output_subscripts`. */
function parseOutput(
  term: string,
  counts: readonly number[],
  broadcastIds: readonly number[],
  ctx: { s: string; shapes: readonly Shape[] },
): number[] {
  const out: number[] = [];
  let ellipsis = false;
  for (let i = 0; i < term.length; i++) {
    const c = term[i] as string;
    const id = letterId(c);
    if (id >= 0) {
      if (term.indexOf(c, i + 1) !== -1) {
        throw fail(
          `einstein sum subscripts string includes output subscript '${c}' multiple times`,
          ctx.s,
          ctx.shapes,
          'name each output axis once; take a diagonal in an input term instead',
        );
      }
      if (counts[id] === 0) {
        throw fail(
          `einstein sum subscripts string included output subscript '${c}' which never appeared in an input`,
          ctx.s,
          ctx.shapes,
          'every output subscript must label an axis of some operand',
        );
      }
      out.push(id);
    } else if (c === '.') {
      if (ellipsis || i + 2 >= term.length || term[i + 1] !== '.' || term[i + 2] !== '.') {
        throw fail(DOT_MSG('the output'), ctx.s, ctx.shapes, "write an ellipsis as exactly '...', once");
      }
      i += 2;
      ellipsis = true;
      out.push(...broadcastIds);
    } else if (c !== ' ') {
      throw fail(INVALID(c), ctx.s, ctx.shapes, "use letters a-z, A-Z, '...' and spaces in the output");
    }
  }
  if (!ellipsis && broadcastIds.length > 0) {
    throw fail(
      NO_ELLIPSIS('output'),
      ctx.s,
      ctx.shapes,
      "the inputs' ellipses stand for dimensions the output must keep: add '...' to the output",
    );
  }
  return out;
}

/** NumPy's `convert_shape_to_string`: leading newaxes (-1) dropped, `(n,)` for one dim. */
function remappedString(dims: readonly number[], ending: string): string {
  let i = 0;
  while (i < dims.length && (dims[i] as number) < 0) i++;
  if (i === dims.length) return `()${ending}`;
  const parts = dims.slice(i).map((d) => (d < 0 ? 'newaxis' : String(d)));
  return dims.length === 1 ? `(${parts[0]},)${ending}` : `(${parts.join(',')})${ending}`;
}

/**
 * Parse `subscripts` for operands of `shapes`: labels, label sizes and the output shape, with
 * NumPy's errors for collapsed dims that differ and labels that do not broadcast.
 */
export function parseEinsum(subscripts: string, shapes: readonly Shape[]): EinsumProblem {
  const sub = parseSubscripts(
    subscripts,
    shapes.map((s) => s.length),
    shapes,
  );
  const nop = shapes.length;
  // NumPy first tries a view for one operand whose labels all reach the output (its own message).
  if (nop === 1) {
    const labels = sub.inputs[0] as readonly number[];
    const shape = shapes[0] as Shape;
    for (let ax = 0; ax < labels.length; ax++) {
      const id = labels[ax] as number;
      const first = labels.indexOf(id);
      if (first < ax) {
        checkCollapse(shape, first, ax, id, 'single operand', subscripts, shapes);
      } else if (!sub.output.includes(id)) break;
    }
  }
  // Each operand's diagonal view: one dim per distinct label.
  const views: { labels: number[]; dims: number[] }[] = [];
  for (let iop = 0; iop < nop; iop++) {
    const labels = sub.inputs[iop] as readonly number[];
    const shape = shapes[iop] as Shape;
    const v = { labels: [] as number[], dims: [] as number[] };
    for (let ax = 0; ax < labels.length; ax++) {
      const id = labels[ax] as number;
      const first = labels.indexOf(id);
      if (first < ax) checkCollapse(shape, first, ax, id, `operand ${iop}`, subscripts, shapes);
      else {
        v.labels.push(id);
        v.dims.push(shape[ax] as number);
      }
    }
    views.push(v);
  }
  // The iterator's dims: the output's, then the summed letters in character-code order.
  const iter = [...sub.output];
  const used = new Set(views.flatMap((v) => v.labels));
  for (let id = 0; id < LETTER_LABELS; id++) if (used.has(id) && !sub.output.includes(id)) iter.push(id);
  const sizes = new Array<number>(LETTER_LABELS + sub.ellipsisNdim).fill(-1);
  let bad = false;
  for (const id of iter) {
    let size = 1;
    let unknown = false;
    for (const v of views) {
      const k = v.labels.indexOf(id);
      if (k < 0) continue;
      const d = v.dims[k] as number;
      if (d < 0) unknown = true;
      else if (d !== 1) {
        if (size !== 1 && size !== d) bad = true;
        size = d;
      }
    }
    sizes[id] = unknown && size === 1 ? -1 : size;
  }
  if (bad) {
    const parts = views.map((v) => {
      const orig = remappedString(v.dims, '->');
      const remapped = remappedString(
        iter.map((id) => {
          const k = v.labels.indexOf(id);
          return k < 0 ? -1 : (v.dims[k] as number);
        }),
        ' ',
      );
      return orig + remapped;
    });
    throw fail(
      `operands could not be broadcast together with remapped shapes [original->remapped]: ${parts.join('')}`,
      subscripts,
      shapes,
      'axes with the same subscript need the same length (or length 1 to broadcast)',
    );
  }
  const outShape = sub.output.map((id) => sizes[id] as number);
  return { ...sub, sizes, outShape };
}

function checkCollapse(
  shape: Shape,
  first: number,
  ax: number,
  id: number,
  where: string,
  subscripts: string,
  shapes: readonly Shape[],
): void {
  const a = shape[first] as number;
  const b = shape[ax] as number;
  if (a >= 0 && b >= 0 && a !== b) {
    throw fail(
      `dimensions in ${where} for collapsing index '${labelName(id)}' don't match (${a} != ${b})`,
      subscripts,
      shapes,
      `a subscript repeated in one term takes a diagonal: axes ${first} and ${ax} of ${shapeToString(shape)} must have equal length`,
    );
  }
}
