/**
 * Contraction planning for einsum (pure): the order of pairwise contractions, as NumPy's
 * `np.einsum_path` chooses it, and how each step runs on a backend.
 *
 * The path follows NumPy 1.24's Python planner step for step — its greedy and optimal searches,
 * its FLOP model and its memory limit (no intermediate larger than the largest operand or the
 * output) — so the chosen path and the FLOP counts can be checked against `np.einsum_path`'s
 * output (`__golden__/einsum_path.json`). Ties go where NumPy's go (first minimum in its
 * enumeration order). 'optimal' is exhaustive; beyond {@link OPTIMAL_MAX_OPERANDS} operands it
 * would take too long and 'greedy' is used instead.
 *
 * The lowering is ours: a two-operand step is a batched GEMM when it contracts something (or is an
 * outer product): labels in both operands and the result are the batch, labels in one operand and
 * the result are its matrix rows/columns, labels in both and not in the result are contracted. An
 * operand already laid out as (batch, rows, k) or (batch, k, rows) is used in place with the
 * matching transpose flag; otherwise it is copied into that layout first. The candidate orders of
 * each label group are tried and the one copying the fewest elements wins, so `bij,bjk->bik` is
 * one `batch_dot` with no copy. A label repeated in one operand (a diagonal) or summed only there
 * is reduced first. Everything else (several operands at once, elementwise products, labels that
 * broadcast from length 1) is an elementwise multiply-and-sum over strided loops.
 */
import { LETTER_LABELS } from './einsum-parse.js';

/** Past this many operands 'optimal' plans with 'greedy' (its search is factorial). */
export const OPTIMAL_MAX_OPERANDS = 7;

/** How to choose the path: one step over all operands (`false`), NumPy's greedy or optimal search. */
export type EinsumOptimize = false | 'greedy' | 'optimal';

/** One operand as the planner sees it: a label per axis (repeats = diagonal) and its dims. */
export interface PlanOperand {
  readonly labels: readonly number[];
  readonly dims: readonly number[];
}

/** Run the step as one batched GEMM (see the file comment). Operand 0/1 = the step's operands in path order. */
export interface GemmLowering {
  readonly kind: 'gemm';
  /** Which step operand is the GEMM's left side. */
  readonly lhs: 0 | 1;
  readonly batch: readonly number[];
  readonly m: readonly number[];
  readonly n: readonly number[];
  readonly k: readonly number[];
  readonly transposeA: boolean;
  readonly transposeB: boolean;
  /** Reduce the left / right operand first (a diagonal, or labels only it has and the result drops). */
  readonly reduceA: boolean;
  readonly reduceB: boolean;
  /** Copy the left / right operand into this label order first (null: used in place). */
  readonly copyA: readonly number[] | null;
  readonly copyB: readonly number[] | null;
  /**
   * The GEMM writes batch+m+n; true when the step's result differs — another order, or output
   * labels broadcast from length 1 — and a final strided copy moves it into place.
   */
  readonly permuteOut: boolean;
}

/** Elementwise multiply of the step's operands and a sum over the removed labels (strided loops). */
export interface GenericLowering {
  readonly kind: 'generic';
}

/** One operand and nothing summed: a strided copy (transpose, diagonal, broadcast). */
export interface CopyLowering {
  readonly kind: 'copy';
}

export type StepLowering = GemmLowering | GenericLowering | CopyLowering;

export interface EinsumStep {
  /** NumPy's path entry: positions in the current operand list, ascending; the result is appended. */
  readonly positions: readonly number[];
  /** Labels summed away here (NumPy's idx_removed), ascending. */
  readonly removed: readonly number[];
  /** The result's labels in axis order (the last step's are the output's). */
  readonly result: readonly number[];
  /** The result's dims (1 where every operand had 1 for a label that is larger elsewhere). */
  readonly resultDims: readonly number[];
  /** NumPy's FLOP estimate of this step. */
  readonly flops: number;
  /** Number of labels the step loops over (NumPy's scaling). */
  readonly scaling: number;
  /** NumPy's own BLAS verdict (`_can_dot`), kept to compare with `np.einsum_path`. */
  readonly numpyBlas: boolean;
  readonly lowering: StepLowering;
}

export interface EinsumPlan {
  /** NumPy's path: one tuple of positions per step. */
  readonly path: readonly (readonly number[])[];
  readonly steps: readonly EinsumStep[];
  /** NumPy's "Naive FLOP count". */
  readonly naiveCost: number;
  /** NumPy's "Optimized FLOP count" (sum of the steps' + 1, as NumPy prints it). */
  readonly optimizedCost: number;
  /** NumPy's "Naive scaling" and "Optimized scaling". */
  readonly naiveScaling: number;
  readonly optimizedScaling: number;
  /** NumPy's "Largest intermediate" (elements). */
  readonly largestIntermediate: number;
}

type LabelSet = ReadonlySet<number>;

const sizeOf = (labels: Iterable<number>, sizes: readonly number[]): number => {
  let n = 1;
  for (const l of labels) n *= Math.max(0, sizes[l] as number);
  return n;
};

/** NumPy `_flop_count`. */
function flopCount(contract: LabelSet, inner: boolean, terms: number, sizes: readonly number[]): number {
  return sizeOf(contract, sizes) * (Math.max(1, terms - 1) + (inner ? 1 : 0));
}

interface Contraction {
  readonly result: Set<number>;
  readonly remaining: Set<number>[];
  readonly removed: Set<number>;
  readonly contract: Set<number>;
}

/** NumPy `_find_contraction`: the operands at `positions` merged, the rest kept, the result appended. */
function findContraction(
  positions: readonly number[],
  sets: readonly LabelSet[],
  output: LabelSet,
): Contraction {
  const contract = new Set<number>();
  const remain = new Set(output);
  const remaining: Set<number>[] = [];
  sets.forEach((s, i) => {
    if (positions.includes(i)) for (const l of s) contract.add(l);
    else {
      remaining.push(new Set(s));
      for (const l of s) remain.add(l);
    }
  });
  const result = new Set([...contract].filter((l) => remain.has(l)));
  const removed = new Set([...contract].filter((l) => !result.has(l)));
  remaining.push(result);
  return { result, remaining, removed, contract };
}

function* pairs(n: number): Generator<[number, number]> {
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) yield [i, j];
}

/** NumPy `_optimal_path`. */
function optimalPath(
  sets: LabelSet[],
  output: LabelSet,
  sizes: readonly number[],
  limit: number,
): number[][] {
  let full: { cost: number; path: number[][]; sets: LabelSet[] }[] = [{ cost: 0, path: [], sets }];
  for (let it = 0; it < sets.length - 1; it++) {
    const next: typeof full = [];
    for (const cur of full) {
      for (const con of pairs(sets.length - it)) {
        const c = findContraction(con, cur.sets, output);
        if (sizeOf(c.result, sizes) > limit) continue;
        const cost = cur.cost + flopCount(c.contract, c.removed.size > 0, 2, sizes);
        next.push({ cost, path: [...cur.path, con], sets: c.remaining });
      }
    }
    if (next.length === 0) {
      const best = minBy(full, (x) => [x.cost]);
      return [...best.path, Array.from({ length: sets.length - it }, (_, i) => i)];
    }
    full = next;
  }
  return minBy(full, (x) => [x.cost]).path;
}

/** First element with the smallest key (lexicographic), as Python's `min`. */
function minBy<T>(xs: readonly T[], key: (x: T) => readonly number[]): T {
  let best = xs[0] as T;
  let bk = key(best);
  for (const x of xs.slice(1)) {
    const k = key(x);
    let i = 0;
    while (i < k.length && k[i] === bk[i]) i++;
    if (i < k.length && (k[i] as number) < (bk[i] as number)) {
      best = x;
      bk = k;
    }
  }
  return best;
}

interface Candidate {
  sort: [number, number];
  positions: [number, number];
  sets: LabelSet[];
}

/** NumPy `_greedy_path` with `_parse_possible_contraction` and `_update_other_results`. */
function greedyPath(
  sets0: LabelSet[],
  output: LabelSet,
  sizes: readonly number[],
  limit: number,
): number[][] {
  if (sets0.length === 1) return [[0]];
  if (sets0.length === 2) return [[0, 1]];
  let sets = sets0;
  const all = findContraction(
    sets.map((_, i) => i),
    sets,
    output,
  );
  const naive = flopCount(all.contract, all.removed.size > 0, sets.length, sizes);
  const possible = (pos: [number, number], pathCost: number): Candidate | null => {
    const c = findContraction(pos, sets, output);
    const newSize = sizeOf(c.result, sizes);
    if (newSize > limit) return null;
    const removedSize =
      sizeOf(sets[pos[0]] as LabelSet, sizes) + sizeOf(sets[pos[1]] as LabelSet, sizes) - newSize;
    const cost = flopCount(c.contract, c.removed.size > 0, 2, sizes);
    if (pathCost + cost > naive) return null;
    return { sort: [-removedSize, cost], positions: pos, sets: c.remaining };
  };
  let combos: Iterable<[number, number]> = pairs(sets.length);
  let known: Candidate[] = [];
  let pathCost = 0;
  const path: number[][] = [];
  const n0 = sets.length;
  for (let it = 0; it < n0 - 1; it++) {
    for (const pos of combos) {
      const a = sets[pos[0]] as LabelSet;
      if (![...(sets[pos[1]] as LabelSet)].some((l) => a.has(l))) continue;
      const r = possible(pos, pathCost);
      if (r !== null) known.push(r);
    }
    if (known.length === 0) {
      for (const pos of pairs(sets.length)) {
        const r = possible(pos, pathCost);
        if (r !== null) known.push(r);
      }
      if (known.length === 0) {
        path.push(sets.map((_, i) => i));
        break;
      }
    }
    const best = minBy(known, (x) => x.sort);
    known = updateOthers(known, best);
    sets = best.sets;
    const last = sets.length - 1;
    combos = Array.from({ length: last }, (_, i): [number, number] => [i, last]);
    path.push([...best.positions]);
    pathCost += best.sort[1];
  }
  return path;
}

function updateOthers(results: Candidate[], best: Candidate): Candidate[] {
  const [bx, by] = best.positions;
  const out: Candidate[] = [];
  for (const r of results) {
    const [x, y] = r.positions;
    if (x === bx || x === by || y === bx || y === by) continue;
    const sets = [...r.sets];
    sets.splice(by - +(by > x) - +(by > y), 1);
    sets.splice(bx - +(bx > x) - +(bx > y), 1);
    sets.splice(sets.length - 1, 0, best.sets[best.sets.length - 1] as LabelSet);
    out.push({ sort: r.sort, positions: [x - +(x > bx) - +(x > by), y - +(y > bx) - +(y > by)], sets });
  }
  return out;
}

/** NumPy `_can_dot` on label lists (its strings). */
function canDot(inputs: readonly (readonly number[])[], result: LabelSet, removed: LabelSet): boolean {
  if (removed.size === 0 || inputs.length !== 2) return false;
  const [l, r] = inputs as [readonly number[], readonly number[]];
  const count = (xs: readonly number[], c: number) => xs.filter((x) => x === c).length;
  for (const c of new Set([...l, ...r])) {
    const nl = count(l, c);
    const nr = count(r, c);
    if (nl > 1 || nr > 1 || nl + nr > 2) return false;
    if (nl + nr - 1 === (result.has(c) ? 1 : 0)) return false;
  }
  const sl = new Set(l);
  const sr = new Set(r);
  const rs = removed.size;
  const eq = (a: readonly number[], b: readonly number[]) =>
    a.length === b.length && a.every((x, i) => x === b[i]);
  if (eq(l, r)) return true;
  if (sl.size === sr.size && [...sl].every((x) => sr.has(x))) return false;
  const head = (xs: readonly number[]) => xs.slice(0, rs);
  const tail = (xs: readonly number[]) => xs.slice(Math.max(0, xs.length - rs));
  if (eq(tail(l), head(r)) || eq(head(l), tail(r)) || eq(tail(l), tail(r)) || eq(head(l), head(r)))
    return true;
  const keepL = [...sl].some((x) => !removed.has(x));
  const keepR = [...sr].some((x) => !removed.has(x));
  return keepL && keepR;
}

/**
 * Plan `inputs → output` (label ids from einsum-parse; `sizes` per label id, broadcast-resolved).
 * `memoryLimit` defaults to NumPy's: the largest operand or output, in elements.
 */
export function planEinsum(
  inputs: readonly PlanOperand[],
  output: readonly number[],
  sizes: readonly number[],
  optimize: EinsumOptimize,
  memoryLimit?: number,
): EinsumPlan {
  const sets: LabelSet[] = inputs.map((x) => new Set(x.labels));
  const outSet: LabelSet = new Set(output);
  const indices = new Set(inputs.flatMap((x) => x.labels));
  const limit =
    memoryLimit ?? Math.max(...[...inputs.map((x) => x.labels), output].map((t) => sizeOf(t, sizes)));
  const inner = sets.reduce((n, s) => n + s.size, 0) - indices.size > 0;
  const naiveCost = flopCount(indices, inner, inputs.length, sizes);
  const everything = indices.size === outSet.size && [...indices].every((l) => outSet.has(l));
  let path: number[][];
  if (optimize === false || inputs.length <= 2 || everything) path = [inputs.map((_, i) => i)];
  else if (optimize === 'optimal' && inputs.length <= OPTIMAL_MAX_OPERANDS)
    path = optimalPath(sets, outSet, sizes, limit);
  else path = greedyPath(sets, outSet, sizes, limit);

  interface Term {
    labels: readonly number[];
    dims: readonly number[];
    numpy: readonly number[];
    bcast: Set<number>;
  }
  let terms: Term[] = inputs.map((x) => ({
    labels: x.labels,
    dims: x.dims,
    numpy: x.labels,
    bcast: new Set(x.labels.filter((_, i) => x.dims[i] === 1)),
  }));
  let curSets = sets;
  const steps: EinsumStep[] = [];
  path.forEach((entry, si) => {
    const positions = [...entry].sort((a, b) => a - b);
    const desc = [...positions].reverse();
    const c = findContraction(desc, curSets, outSet);
    curSets = c.remaining;
    const flops = flopCount(c.contract, c.removed.size > 0, desc.length, sizes);
    const taken = desc.map((p) => terms[p] as Term);
    terms = terms.filter((_, i) => !positions.includes(i));
    const bcast = new Set(taken.flatMap((t) => [...t.bcast]));
    const numpyBlas = [...c.removed].some((l) => bcast.has(l))
      ? false
      : canDot(
          taken.map((t) => t.numpy),
          c.result,
          c.removed,
        );
    const last = si === path.length - 1;
    const ops = positions.map((p) => taken[desc.indexOf(p)] as Term);
    // On the last step an output label longer than every operand's dim is broadcast from 1 (a
    // gradient's einsum onto an operand's own label): the GEMM cannot write that directly.
    const stretched = last && output.some((l) => Math.max(...taken.map((t) => dimIn(t, l))) !== sizes[l]);
    const lowering = lower(ops, c, last ? output : null, sizes, stretched);
    const result = last
      ? [...output]
      : lowering.kind === 'gemm'
        ? [...lowering.batch, ...lowering.m, ...lowering.n]
        : [...c.result].sort((a, b) => a - b);
    const dimOf = (l: number) => Math.max(...taken.map((t) => dimIn(t, l)));
    const numpyOrder = last
      ? [...output]
      : [...c.result].sort((a, b) => (sizes[a] as number) - (sizes[b] as number) || a - b);
    terms.push({
      labels: result,
      dims: result.map(dimOf),
      numpy: numpyOrder,
      bcast: new Set([...bcast].filter((l) => !c.removed.has(l))),
    });
    steps.push({
      positions,
      removed: [...c.removed].sort((a, b) => a - b),
      result,
      resultDims: result.map(dimOf),
      flops,
      scaling: c.contract.size,
      numpyBlas,
      lowering,
    });
  });
  return {
    path: path.map((p) => [...p]),
    steps,
    naiveCost,
    optimizedCost: steps.reduce((n, s) => n + s.flops, 0) + 1,
    naiveScaling: indices.size,
    optimizedScaling: Math.max(...steps.map((s) => s.scaling)),
    largestIntermediate: Math.max(...steps.map((s) => sizeOf(s.result, sizes))),
  };
}

/** A term's dim for label `l` (1 when absent, i.e. broadcast). */
function dimIn(t: PlanOperand, l: number): number {
  const i = t.labels.indexOf(l);
  return i < 0 ? 1 : (t.dims[i] as number);
}

const same = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Labels of `t` once its diagonal is taken and labels in `drop` are summed (axis order kept). */
function reducedLabels(t: PlanOperand, drop: LabelSet): number[] {
  return [...new Set(t.labels)].filter((l) => !drop.has(l));
}

/** The step's lowering (see the file comment); `output` is the op's output order on the last step. */
function lower(
  ops: readonly PlanOperand[],
  c: Contraction,
  output: readonly number[] | null,
  sizes: readonly number[],
  stretched: boolean,
): StepLowering {
  if (ops.length === 1) return c.removed.size === 0 ? { kind: 'copy' } : { kind: 'generic' };
  if (ops.length !== 2) return { kind: 'generic' };
  const [x, y] = ops as [PlanOperand, PlanOperand];
  const inX = new Set(x.labels);
  const inY = new Set(y.labels);
  // Labels one operand alone has that the result drops: summed in that operand's pre-pass.
  const onlyX = new Set([...inX].filter((l) => !inY.has(l) && !c.result.has(l)));
  const onlyY = new Set([...inY].filter((l) => !inX.has(l) && !c.result.has(l)));
  const rx = reducedLabels(x, onlyX);
  const ry = reducedLabels(y, onlyY);
  const shared = rx.filter((l) => inY.has(l));
  // Shared labels must have one length in both (no broadcasting from 1 inside a GEMM).
  if (shared.some((l) => dimIn(x, l) !== dimIn(y, l))) return { kind: 'generic' };
  const k0 = shared.filter((l) => !c.result.has(l));
  const b0 = shared.filter((l) => c.result.has(l));
  const mx = rx.filter((l) => !inY.has(l));
  const ny = ry.filter((l) => !inX.has(l));
  if (k0.length === 0 && (mx.length === 0 || ny.length === 0)) return { kind: 'generic' };
  const reduceX = onlyX.size > 0 || rx.length !== x.labels.length;
  const reduceY = onlyY.size > 0 || ry.length !== y.labels.length;
  const numel = (ls: readonly number[]) => sizeOf(ls, sizes);
  const orderIn = (ls: readonly number[], of: readonly number[]) => of.filter((l) => ls.includes(l));
  let best: { cost: number; low: GemmLowering } | undefined;
  for (const lhs of [0, 1] as const) {
    const [ra, rb, ma, nb] = lhs === 0 ? [rx, ry, mx, ny] : [ry, rx, ny, mx];
    const batchOrders = [orderIn(b0, ra), orderIn(b0, rb), ...(output ? [orderIn(b0, output)] : [])];
    const kOrders = [orderIn(k0, ra), orderIn(k0, rb)];
    const mOrders = [ma, ...(output ? [orderIn(ma, output)] : [])];
    const nOrders = [nb, ...(output ? [orderIn(nb, output)] : [])];
    for (const batch of batchOrders)
      for (const k of kOrders)
        for (const m of mOrders)
          for (const n of nOrders) {
            const tA = same(ra, [...batch, ...k, ...m]) && !same(ra, [...batch, ...m, ...k]);
            const copyA = same(ra, [...batch, ...m, ...k]) || tA ? null : [...batch, ...m, ...k];
            const tB = same(rb, [...batch, ...n, ...k]) && !same(rb, [...batch, ...k, ...n]);
            const copyB = same(rb, [...batch, ...k, ...n]) || tB ? null : [...batch, ...k, ...n];
            const permuteOut = output !== null && (stretched || !same(output, [...batch, ...m, ...n]));
            const cost =
              (copyA ? numel(ra) : 0) +
              (copyB ? numel(rb) : 0) +
              (permuteOut ? numel([...batch, ...m, ...n]) : 0);
            if (best === undefined || cost < best.cost) {
              best = {
                cost,
                low: {
                  kind: 'gemm',
                  lhs,
                  batch,
                  m,
                  n,
                  k,
                  transposeA: tA,
                  transposeB: tB,
                  reduceA: lhs === 0 ? reduceX : reduceY,
                  reduceB: lhs === 0 ? reduceY : reduceX,
                  copyA,
                  copyB,
                  permuteOut,
                },
              };
            }
          }
  }
  return (best as { low: GemmLowering }).low;
}

/** Letters for label ids (ellipsis dims as unused capital-first letters are not needed here). */
export function labelsToString(labels: readonly number[]): string {
  return labels
    .map((id) =>
      id < 26 ? String.fromCharCode(65 + id) : id < LETTER_LABELS ? String.fromCharCode(71 + id) : '.',
    )
    .join('');
}
