/**
 * cpu-wasm `computeEx` kernels of the optimizer updates with row_sparse gradients (MXNet 1.9.1
 * `SGDUpdateEx`, `SGDMomUpdateEx`, `AdamUpdateEx`, `FtrlUpdateEx`, `AdagradUpdateEx`,
 * `GroupAdagradUpdateEx`): sgd_update, sgd_mom_update, adam_update and ftrl_update keep their
 * dense kernels (installed by kernels/optimizer) and gain `computeEx`; `_sparse_adagrad_update`
 * and `_contrib_group_adagrad_update` have only this one, as in MXNet.
 *
 * One driver serves them all: it validates everything first (gradient rows in range and strictly
 * ascending, a row_sparse weight or state holding every row, as MXNet's `CheckAllRowsPresent`
 * demands), so a refused call has written nothing; then it makes the output hold the weight —
 * nothing to do when the output is the weight's memory (`out=weight`, MXNet's kWriteInplace, the
 * only form MXNet accepts), else a copy (dense, or a row_sparse output allocated with every row
 * stored) — and runs the op's row loops (optimizer-rows.ts) on the output, the states in place.
 * sgd_update's loop, the hot one of a sparse model's step, runs in wasm instead (sgd-run.ts) with
 * the same values bit for bit. Lazy or standard is MXNet's choice: lazy when `lazy_update` and the states have the weight's
 * storage type (sgd_update: `lazy_update` alone; ftrl and the adagrad ops are always lazy).
 *
 * MXNet fills a row_sparse state that has no rows yet with zero rows (`FillDnsZerosRspImpl`); a
 * kernel here receives its mutated inputs as blocks it cannot reallocate, so such a state is
 * refused with an MXNetError naming the fix (@mx/optimizer creates row_sparse states with every
 * row stored). Views are taken after the output's allocation, which may grow the memory.
 */
import { MXNetError } from '@mx/base';
import {
  type Attrs,
  isSparseBlob,
  type Kernel,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type SparseOutput,
  type StorageType,
  type TBlob,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import {
  adagradRows,
  adamLazy,
  adamStd,
  type Floats,
  ftrlRows,
  groupAdagradRows,
  type Params,
  type RowArgs,
  sgdDecayAll,
  sgdMomLazy,
  sgdMomStd,
  sgdRows,
} from './optimizer-rows.js';
import { type SgdWasm, sgdWasm } from './sgd-run.js';

type Blob = TBlob<number>;
type In = Blob | SparseBlob<number>;
type Out = Blob | SparseOutput<number>;
type St = readonly StorageType[];

/** The dtypes MXNet's sparse updates compute in (MSHADOW_REAL_TYPE_SWITCH) that cpu-wasm has. */
export const SPARSE_OPTIMIZER_DTYPES = Object.freeze(['float32', 'float64'] as const);

/** One sparse update: its states, MXNet's function name in messages, its storage signatures and loops. */
interface SparseUpdate {
  readonly op: string;
  /** MXNet's `func` in CheckAllRowsPresent messages (`SGDUpdate`, `AdamUpdate`...). */
  readonly func: string;
  readonly inputs: readonly string[];
  /** Input slots of the states (written in place). */
  readonly states: readonly number[];
  /** The storage signatures `computeEx` serves (MXNet's FComputeEx branches). */
  readonly serves: (attrs: Attrs, inSt: St, outSt: St) => boolean;
  /** Refuse parameters at run time as MXNet's kernel does (undefined when fine). */
  readonly check?: (attrs: Attrs) => string | undefined;
  readonly run: (a: RowArgs, p: Params, attrs: Attrs, lazy: boolean) => void;
}

const dnsOrRsp = (t: StorageType | undefined): boolean => t === 'default' || t === 'row_sparse';

/** Weight dense or row_sparse, gradient row_sparse, output the weight's storage type. */
function rspGrad(inSt: St, outSt: St): boolean {
  return inSt[1] === 'row_sparse' && dnsOrRsp(inSt[0]) && outSt[0] === inSt[0];
}

/** sgd_mom/adam: states of the weight's storage type, or a row_sparse weight with dense states. */
function statesServed(inSt: St, outSt: St, states: readonly number[]): boolean {
  if (!rspGrad(inSt, outSt)) return false;
  const s = inSt[states[0] as number];
  if (states.some((i) => inSt[i] !== s)) return false;
  return s === inSt[0] || (inSt[0] === 'row_sparse' && s === 'default');
}

/** Lazy when `lazy_update` and the states have the weight's storage type (MXNet's Ex dispatch). */
function lazyOf(attrs: Attrs, w: In, states: readonly In[]): boolean {
  const wSt = isSparseBlob(w) ? w.stype : 'default';
  return attrs.lazy_update === true && states.every((s) => (isSparseBlob(s) ? s.stype : 'default') === wSt);
}

const UPDATES: readonly SparseUpdate[] = [
  {
    op: 'sgd_update',
    func: 'SGDUpdate',
    inputs: ['weight', 'grad'],
    states: [],
    serves: (_a, inSt, outSt) => rspGrad(inSt, outSt),
    run: (a, p, attrs) => {
      if (attrs.lazy_update === true) sgdRows(a, p, p.wd);
      else {
        sgdDecayAll(a, p);
        sgdRows(a, p, 0);
      }
    },
  },
  {
    op: 'sgd_mom_update',
    func: 'SGDMomUpdate',
    inputs: ['weight', 'grad', 'mom'],
    states: [2],
    serves: (_a, inSt, outSt) => statesServed(inSt, outSt, [2]),
    run: (a, p, _attrs, lazy) => (lazy ? sgdMomLazy(a, p) : sgdMomStd(a, p)),
  },
  {
    op: 'adam_update',
    func: 'AdamUpdate',
    inputs: ['weight', 'grad', 'mean', 'var'],
    states: [2, 3],
    serves: (_a, inSt, outSt) => statesServed(inSt, outSt, [2, 3]),
    run: (a, p, _attrs, lazy) => (lazy ? adamLazy(a, p) : adamStd(a, p)),
  },
  {
    op: 'ftrl_update',
    func: 'FtrlUpdate',
    inputs: ['weight', 'grad', 'z', 'n'],
    states: [2, 3],
    serves: (_a, inSt, outSt) => [...inSt, ...outSt].every((t) => t === 'row_sparse'),
    run: (a, p) => ftrlRows(a, p),
  },
  {
    op: '_sparse_adagrad_update',
    func: 'AdagradUpdate',
    inputs: ['weight', 'grad', 'history'],
    states: [2],
    serves: (_a, inSt, outSt) => rspGrad(inSt, outSt) && inSt[2] === inSt[0],
    check: (attrs) => (attrs.wd !== 0 ? 'sparse adagrad_update does not support wd.' : undefined),
    run: (a, p) => adagradRows(a, p),
  },
  {
    op: '_contrib_group_adagrad_update',
    func: 'GroupAdagradUpdate',
    inputs: ['weight', 'grad', 'history'],
    states: [2],
    serves: (_a, inSt, outSt) => rspGrad(inSt, outSt) && inSt[2] === inSt[0],
    run: (a, p) => groupAdagradRows(a, p),
  },
];

/** The numeric parameters, rounded to float32 (MXNet `float` fields); 0 where the op has none. */
function paramsOf(attrs: Attrs): Params {
  const f = (key: string): number => Math.fround((attrs[key] as number | undefined) ?? 0);
  return {
    lr: f('lr'),
    wd: f('wd'),
    rescale: f('rescale_grad'),
    clip: f('clip_gradient'),
    momentum: f('momentum'),
    beta1: f('beta1'),
    beta2: f('beta2'),
    epsilon: f('epsilon'),
    lamda1: f('lamda1'),
    beta: f('beta'),
  };
}

function fail(u: SparseUpdate, message: string, hint: string, attrs?: Attrs): MXNetError {
  return new MXNetError(message, { op: u.op, params: attrs, hint });
}

/** Gradient row ids as numbers, checked in range and strictly ascending (the row_sparse format). */
function gradRows(u: SparseUpdate, rt: CpuWasmRuntime, grad: SparseBlob<number>, rows: number): Float64Array {
  const k = grad.storageShape[0] ?? 0;
  const idx = new Float64Array(k);
  if (k === 0) return idx;
  const raw = rt.view(grad.aux[0] as Blob);
  // int64 ids are read as 32-bit halves (little-endian), not through BigInt, when they fit in 32
  // bits (the high word is the low word's sign); others (out of range anyway) through BigInt.
  const wide = raw instanceof BigInt64Array;
  const view = wide ? new Int32Array(raw.buffer, raw.byteOffset, 2 * k) : (raw as ArrayLike<number>);
  let prev = -1;
  for (let j = 0; j < k; j++) {
    const lo = view[wide ? 2 * j : j] as number;
    const row = !wide || (view[2 * j + 1] as number) === lo >> 31 ? lo : Number((raw as BigInt64Array)[j]);
    if (!(row >= 0 && row < rows)) {
      throw fail(
        u,
        `row ${row} at grad.indices[${j}] is outside [0, ${rows}): the gradient is not a valid row_sparse array of shape (${grad.shape.join(', ')})`,
        'check the gradient with checkFormat(); its indices must be rows of the weight',
      );
    }
    if (row <= prev) {
      throw fail(
        u,
        `grad.indices must be strictly increasing, indices[${j - 1}] = ${prev} then ${row}`,
        'check the gradient with checkFormat(); row_sparse indices are sorted without duplicates',
      );
    }
    idx[j] = row;
    prev = row;
  }
  return idx;
}

/** MXNet's CheckAllRowsPresent for a row_sparse weight or state; a state with no rows gets its own hint. */
function checkAllRows(u: SparseUpdate, a: In, name: string, rows: number): void {
  if (!isSparseBlob(a)) return;
  const k = a.storageShape[0] ?? 0;
  if (k === rows) return;
  const noun = name === 'weight' ? 'weights' : name;
  if (k === 0 && name !== 'weight') {
    throw fail(
      u,
      `${u.func} for RowSparse ${noun} needs every row stored, but ${name} has no stored rows (nnz = 0)`,
      `create ${name} with every row stored (rowSparseArray of zeros with indices 0..${rows - 1}, as @mx/optimizer does) or pass it dense`,
    );
  }
  throw fail(
    u,
    `${u.func} for RowSparse ${noun} is only implemented for RowSparse ${noun} with all rows containing non-zeros. Expects ${noun}.data.shape[0] (${k}) == ${noun}.shape[0] (${rows}).`,
    `store every row of ${name} (cast it with tostype('default') and back loses zero rows; build it from all row ids)`,
  );
}

function dataBlob(a: In): Blob {
  return isSparseBlob(a) ? (a.data as Blob) : a;
}

/** Write 0..rows-1 into a row_sparse output's index block (int64 or int32). */
function fillRowIds(rt: CpuWasmRuntime, aux: Blob, rows: number): void {
  const view = rt.view(aux);
  if (view instanceof BigInt64Array) for (let i = 0; i < rows; i++) view[i] = BigInt(i);
  else for (let i = 0; i < rows; i++) (view as Int32Array)[i] = i;
}

/** Whether a row_sparse output is the weight's own store (its blocks are the weight's). */
function sameStore(out: SparseOutput<number>, wData: Blob): boolean {
  if (wData.ptr === null) return false;
  try {
    const d = out.data;
    return d.ptr === wData.ptr && d.byteOffset === wData.byteOffset;
  } catch {
    return false; // a fresh output: no blocks until alloc
  }
}

/**
 * Make the output hold the weight and return its data block: the weight itself when the output is
 * its memory (req inplace, the weight's row_sparse store, or a dense output at the weight's
 * address), else a copy.
 */
function outputHoldingWeight(rt: CpuWasmRuntime, w: In, out: Out, req: OpReqType): Blob {
  const wData = dataBlob(w);
  if (isSparseBlob(out)) {
    if (req === OpReq.inplace || sameStore(out, wData)) return wData;
    const rows = w.shape[0] ?? 0;
    out.alloc([rows, ...w.shape.slice(1)], [[rows]]);
    fillRowIds(rt, out.aux[0] as Blob, rows);
    if (wData.size > 0) rt.copyBlob(out.data as Blob, wData);
    return out.data as Blob;
  }
  if (out.size > 0 && rt.address(out) !== rt.address(wData)) rt.copyBlob(out, wData);
  return out;
}

function runUpdate(
  u: SparseUpdate,
  rt: CpuWasmRuntime,
  attrs: Attrs,
  inputs: readonly In[],
  req: readonly OpReqType[],
  outputs: readonly Out[],
): void {
  const r0 = req[0] as OpReqType;
  if (r0 === OpReq.null) return;
  if (r0 === OpReq.add) {
    throw fail(
      u,
      `kWriteInplace is expected for sparse ${u.op}: cannot accumulate (req=add) an update`,
      'write the update into the weight (out=weight)',
      attrs,
    );
  }
  const w = inputs[0] as In;
  const grad = inputs[1] as In;
  if (!isSparseBlob(grad) || grad.stype !== 'row_sparse') {
    throw fail(
      u,
      `the row_sparse kernel of ${u.op} got a ${isSparseBlob(grad) ? grad.stype : 'default'} gradient`,
      'a kernel dispatch bug',
      attrs,
    );
  }
  const why = u.check?.(attrs);
  if (why !== undefined) throw fail(u, why, 'pass wd=0', attrs);
  const rows = w.shape[0] ?? 0;
  const rowLen = rows === 0 ? 0 : w.shape.slice(1).reduce((x, y) => x * y, 1);
  const states = u.states.map((i) => inputs[i] as In);
  // sgd_update runs in wasm (sgd-run.ts) where it can; its row check only finds a bad row, whose
  // MXNetError the JavaScript check then builds.
  const fast = u.op === 'sgd_update' ? sgdWasm(rt, w, grad) : undefined;
  // Validate everything before the first write.
  const idx = fast === undefined || fast.badRow(rows) >= 0 ? gradRows(u, rt, grad, rows) : undefined;
  checkAllRows(u, w, 'weight', rows);
  states.forEach((s, i) => {
    checkAllRows(u, s, u.inputs[u.states[i] as number] as string, rows);
  });
  const lazy = lazyOf(attrs, w, states);
  const outData = outputHoldingWeight(rt, w, outputs[0] as Out, r0);
  if (rows === 0 || rowLen === 0) return;
  if (idx === undefined) {
    (fast as SgdWasm).run(outData, rowLen, paramsOf(attrs), attrs.lazy_update === true);
    return;
  }
  const view = (b: Blob): Floats => rt.view(b) as Floats;
  const args: RowArgs = {
    rows,
    rowLen,
    idx,
    g: idx.length === 0 ? new Float64Array(0) : view(grad.data as Blob),
    w: view(outData),
    s: states.map((s) => view(dataBlob(s))),
    r: w.dtype === 'float32' ? Math.fround : (x: number) => x,
  };
  u.run(args, paramsOf(attrs), attrs, lazy);
}

/** Install the row_sparse kernels, keeping each op's dense kernel where it has one. */
export function installSparseOptimizer(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const u of UPDATES) {
    const dense: Kernel | undefined = registry.has(u.op)
      ? registry.kernel(registry.get(u.op), 'cpu-wasm')
      : undefined;
    registry.registerKernel(u.op, 'cpu-wasm', {
      ...dense,
      dtypes: dense?.dtypes ?? SPARSE_OPTIMIZER_DTYPES,
      computeEx(attrs, _ctx, inputs, req, outputs) {
        runUpdate(u, rt, attrs, inputs as readonly In[], req, outputs as readonly Out[]);
      },
      computeExStorage: (attrs, inSt, outSt) => u.serves(attrs, inSt, outSt),
    });
  }
}
