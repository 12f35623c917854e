/**
 * `simpleBind` and `bind` (MXNet `Symbol.simple_bind` / `Symbol.bind`): the two ways to get an
 * Executor. `simpleBind` infers every shape and dtype from a few given ones and allocates the
 * arguments, gradients and aux states (zeros); `bind` takes the caller's arrays and checks them —
 * count, names, device, and shapes/dtypes against what the rest of the graph implies — before
 * anything is allocated, so a refused bind leaves nothing behind.
 *
 * Options follow MXNet's keyword arguments in camelCase: `gradReq` is one request for all
 * arguments, one per argument (array, in `listArguments` order) or by name (missing names: 'null');
 * `stypes` is MXNet's `stype_dict` (as `dtypes` is `type_dict`).
 *
 * Sparse arrays: `bind` takes CSRNDArray/RowSparseNDArray arguments and gradients as they are (a
 * gradient array's storage type is where the gradient goes; MXNet's bind does the same);
 * `simpleBind` allocates each argument in its storage type (`stypes`, else the variable's
 * `__storage_type__`, else dense) and each gradient in the storage type inferred for it.
 */
import { type Context, type DTypeName, dtypeFromFlag, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { GraphNode } from '@mx/graph';
import { NDArray, type Runtime } from '@mx/ndarray';
import type { StorageType } from '@mx/ops';
import { live } from './arrays.js';
import { createExecutor, type Executor } from './executor.js';
import { type GradReq, type SymbolLayout, type SymbolLike, symbolLayout } from './graph.js';
import { type EntryTypes, inferForward, type KnownVars, unknownVars } from './infer.js';
import { emptyOf } from './mixed.js';

/** Gradient requests: one for all arguments, one per argument, or by argument name. */
export type GradReqSpec = GradReq | readonly GradReq[] | Readonly<Record<string, GradReq>>;

/** Arrays in `listArguments()` (or `listAuxiliaryStates()`) order, or by name. */
export type ArraysSpec = readonly NDArray[] | Readonly<Record<string, NDArray>>;

export interface SimpleBindOptions {
  /** Device; default the runtime's default context. */
  readonly ctx?: Context;
  /** Default 'write' for every argument. */
  readonly gradReq?: GradReqSpec;
  /** Shapes of inputs by name (enough to infer every argument and aux state). */
  readonly shapes: Readonly<Record<string, Shape>>;
  /** Dtypes by name; arguments without one (and without a `__dtype__` attribute) are float32. */
  readonly dtypes?: Readonly<Record<string, DTypeName>>;
  /**
   * Storage types by name (MXNet `stype_dict`): arguments (and aux states) not named take their
   * `__storage_type__` attribute (`sym.var(name, { stype })`), else 'default'.
   */
  readonly stypes?: Readonly<Record<string, StorageType>>;
  /** Op nodes per engine op in training runs; default MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN (15). */
  readonly bulkSize?: number;
  /** Fuse chains of elementwise ops into single kernels; default MXNET_USE_FUSION (on). */
  readonly fusion?: boolean;
}

export interface BindOptions {
  /** Device; default the device of the first argument. */
  readonly ctx?: Context;
  /** Argument arrays. */
  readonly args: ArraysSpec;
  /** Gradient arrays; null/missing entries (or no argsGrad at all) mean no gradient (gradReq 'null'). */
  readonly argsGrad?: readonly (NDArray | null | undefined)[] | Readonly<Record<string, NDArray>>;
  /** Default 'write' for every argument with a gradient array. */
  readonly gradReq?: GradReqSpec;
  /** Aux state arrays (required when the symbol has aux states). */
  readonly auxStates?: ArraysSpec;
  /** Op nodes per engine op in training runs; default MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN (15). */
  readonly bulkSize?: number;
  /** Fuse chains of elementwise ops into single kernels; default MXNET_USE_FUSION (on). */
  readonly fusion?: boolean;
}

const REQS: readonly GradReq[] = ['write', 'add', 'null'];

function checkReq(r: unknown, where: string): GradReq {
  if (!REQS.includes(r as GradReq)) {
    throw new MXNetError(`gradReq${where} must be 'write', 'add' or 'null', got ${JSON.stringify(r)}`, {
      op: 'bind',
    });
  }
  return r as GradReq;
}

function normalizeReqs(layout: SymbolLayout, spec: GradReqSpec | undefined): GradReq[] {
  const names = layout.argNames;
  if (spec === undefined || typeof spec === 'string') {
    const r = checkReq(spec ?? 'write', '');
    return names.map(() => r);
  }
  if (Array.isArray(spec)) {
    if (spec.length !== names.length) {
      throw new MXNetError(`gradReq has ${spec.length} entries for ${names.length} arguments`, {
        op: 'bind',
        hint: `one per argument: ${names.join(', ')}`,
      });
    }
    return spec.map((r, i) => checkReq(r, ` of ${names[i]}`));
  }
  const byName = spec as Readonly<Record<string, GradReq>>;
  for (const k of Object.keys(byName)) {
    if (!names.includes(k)) {
      throw new MXNetError(`gradReq names ${k}, which is not an argument`, {
        op: 'bind',
        hint: `arguments: ${names.join(', ')}`,
      });
    }
  }
  return names.map((n) => (Object.hasOwn(byName, n) ? checkReq(byName[n], ` of ${n}`) : 'null'));
}

/** Arrays by position or name; every name must be there. */
function arraysOf(
  spec: ArraysSpec | undefined,
  names: readonly string[],
  what: string,
  key: string,
): NDArray[] {
  if (spec === undefined) {
    if (names.length === 0) return [];
    throw new MXNetError(`${key} is missing: the symbol has ${what}s ${names.join(', ')}`, {
      op: 'bind',
      hint: `pass ${key} (${names.length} arrays)`,
    });
  }
  const out = Array.isArray(spec)
    ? (() => {
        if (spec.length !== names.length) {
          throw new MXNetError(
            `Length of ${key} (${spec.length}) does not match the number of ${what}s (${names.length})`,
            {
              op: 'bind',
              hint: `${what}s: ${names.join(', ')}`,
            },
          );
        }
        return spec as NDArray[];
      })()
    : names.map((n) => {
        const a = Object.hasOwn(spec, n) ? (spec as Readonly<Record<string, NDArray>>)[n] : undefined;
        if (a === undefined) {
          throw new MXNetError(`key \`${n}\` is missing in \`${key}\``, {
            op: 'bind',
            hint: `${key} needs every ${what}: ${names.join(', ')}`,
          });
        }
        return a;
      });
  out.forEach((a, i) => {
    if (!(a instanceof NDArray)) {
      throw new MXNetError(
        `${what} ${names[i]}: expected an NDArray, got ${a === null ? 'null' : typeof a}`,
        { op: 'bind' },
      );
    }
    live(a, `${what} ${names[i]}`, 'bind');
  });
  return out;
}

function checkDevice(a: NDArray, what: string, ctx: Context): void {
  if (a.ctx !== ctx) {
    throw new MXNetError(`${what} is on ${a.ctx}; the executor runs on ${ctx}`, {
      op: 'bind',
      device: ctx.toString(),
      hint: `copy it first: x.copyTo(${ctx})`,
    });
  }
}

/**
 * What `simpleBind` infers before it allocates: the gradient requests and every variable's shape and
 * dtype (MXNetError when some cannot be inferred from the given shapes).
 */
export function simpleBindTypes(
  layout: SymbolLayout,
  options: Pick<SimpleBindOptions, 'stypes' | 'gradReq' | 'shapes' | 'dtypes'>,
): {
  readonly reqs: GradReq[];
  readonly types: EntryTypes;
  readonly known: KnownVars;
  readonly stypes: ReadonlyMap<number, StorageType>;
} {
  const reqs = normalizeReqs(layout, options.gradReq);
  const idx = layout.forward;
  const nodeOf = (name: string, what: string) => {
    const i = layout.argNames.indexOf(name);
    const j = layout.auxNames.indexOf(name);
    if (i < 0 && j < 0) {
      throw new MXNetError(`${what} given for ${name}, which is not an argument or aux state of the symbol`, {
        op: 'simpleBind',
        hint: `arguments: ${layout.argNames.join(', ')}${layout.auxNames.length > 0 ? `; aux states: ${layout.auxNames.join(', ')}` : ''}`,
      });
    }
    return idx.nodeId((i >= 0 ? layout.argNodes[i] : layout.auxNodes[j]) as GraphNode);
  };
  const known = { shapes: new Map<number, Shape>(), dtypes: new Map<number, DTypeName>() };
  for (const [name, shape] of Object.entries(options.shapes))
    known.shapes.set(nodeOf(name, 'a shape'), shape);
  for (const [name, dt] of Object.entries(options.dtypes ?? {}))
    known.dtypes.set(nodeOf(name, 'a dtype'), dt);
  const stypes = new Map<number, StorageType>();
  for (const [name, st] of Object.entries(options.stypes ?? {})) {
    const nid = nodeOf(name, 'a storage type');
    if (!STYPES.includes(st)) {
      throw new MXNetError(
        `storage type of ${name} must be 'default', 'row_sparse' or 'csr', got ${String(st)}`,
        {
          op: 'simpleBind',
        },
      );
    }
    stypes.set(nid, st);
  }
  for (const n of [...layout.argNodes, ...layout.auxNodes]) {
    const nid = idx.nodeId(n);
    if (!stypes.has(nid)) stypes.set(nid, attrStype(n));
  }
  for (const n of layout.argNodes) {
    const nid = idx.nodeId(n);
    if (!known.dtypes.has(nid) && n.attrs.__dtype__ === undefined) known.dtypes.set(nid, 'float32');
    else if (!known.dtypes.has(nid)) known.dtypes.set(nid, dtypeFromFlag(Number(n.attrs.__dtype__)).name);
  }
  const t = inferForward(layout, known);
  const unknown = unknownVars(layout, t);
  if (unknown.length > 0) {
    const given = Object.entries(options.shapes)
      .map(([k, v]) => `${k}: ${shapeToString(v)}`)
      .join(', ');
    throw new MXNetError(
      `simpleBind: cannot infer ${unknown.join(', ')} from the given shapes (${given || 'none'})`,
      {
        op: 'simpleBind',
        hint: 'give the shapes of the inputs these follow from (usually the data and label shapes)',
      },
    );
  }
  for (const [nid, st] of stypes) {
    const s = t.shapes[idx.entryId(nid)] as Shape;
    if (st === 'csr' && s.length !== 2) {
      throw new MXNetError(
        `${idx.nodes[nid]?.node.name}: a csr array is 2-D, the inferred shape is ${shapeToString(s)}`,
        { op: 'simpleBind', shapes: [s], hint: "give it stype 'row_sparse' or 'default', or a 2-D shape" },
      );
    }
  }
  return { reqs, types: t, known, stypes };
}

const STYPES: readonly StorageType[] = ['default', 'row_sparse', 'csr'];

/** A variable's `__storage_type__` (MXNet's flag 0/1/2, -1 undefined; names accepted), else 'default'. */
function attrStype(n: GraphNode): StorageType {
  const a = n.attrs.__storage_type__?.trim();
  if (a === undefined || a === '-1') return 'default';
  const t = /^\d+$/.test(a) ? STYPES[Number(a)] : STYPES.find((x) => x === a);
  if (t === undefined) {
    throw new MXNetError(`variable ${n.name} has an invalid __storage_type__ attribute "${a}"`, {
      op: 'simpleBind',
      hint: 'use 0 (default), 1 (row_sparse), 2 (csr) or -1 (undefined)',
    });
  }
  return t;
}

/**
 * Bind a symbol with arrays it allocates itself (MXNet `simple_bind`): every argument, gradient
 * (for gradReq ≠ null) and aux state is a new zero array of the inferred shape and dtype.
 */
export function simpleBind(rt: Runtime, symbol: SymbolLike, options: SimpleBindOptions): Executor {
  const layout = symbolLayout(symbol);
  const ctx = options.ctx ?? rt.defaultContext;
  const { reqs, types: t, stypes } = simpleBindTypes(layout, options);
  const idx = layout.forward;
  const owned: NDArray[] = [];
  try {
    const alloc = (n: GraphNode) => {
      const nid = idx.nodeId(n);
      const eid = idx.entryId(nid);
      const shape = t.shapes[eid] as Shape;
      const dtype = t.dtypes[eid] as DTypeName;
      const stype = stypes.get(nid) ?? 'default';
      const a = rt.keep(
        stype === 'default'
          ? rt.nd.zeros(shape, { dtype, ctx })
          : emptyOf(rt, shape, dtype, stype, ctx, 'simpleBind'),
      );
      owned.push(a);
      return a;
    };
    const args = layout.argNodes.map(alloc);
    const aux = layout.auxNodes.map(alloc);
    // Gradients are allocated by the executor, in the storage type inferred for each.
    return createExecutor({
      rt,
      ctx,
      layout,
      reqs,
      args,
      grads: args.map(() => undefined),
      aux,
      owned,
      allocGrads: true,
      bulkSize: options.bulkSize,
      fusion: options.fusion,
    });
  } catch (e) {
    for (const a of owned) a.dispose();
    throw e;
  }
}

/**
 * Bind a symbol to the caller's arrays (MXNet `bind`). The executor reads and writes them in place
 * and never disposes them. Shapes and dtypes must be those the graph implies: a wrong array is an
 * MXNetError naming the argument with the expected and the given shape or dtype.
 */
export function bind(rt: Runtime, symbol: SymbolLike, options: BindOptions): Executor {
  const layout = symbolLayout(symbol);
  const args = arraysOf(options.args, layout.argNames, 'argument', 'args');
  const ctx = options.ctx ?? args[0]?.ctx ?? rt.defaultContext;
  args.forEach((a, i) => {
    checkDevice(a, `argument ${layout.argNames[i]}`, ctx);
  });
  const aux = arraysOf(options.auxStates, layout.auxNames, 'aux state', 'auxStates');
  aux.forEach((a, i) => {
    checkDevice(a, `aux state ${layout.auxNames[i]}`, ctx);
  });
  const gspec = options.argsGrad;
  if (Array.isArray(gspec) && gspec.length !== layout.argNames.length) {
    throw new MXNetError(
      `Length of argsGrad (${gspec.length}) does not match the number of arguments (${layout.argNames.length})`,
      {
        op: 'bind',
        hint: 'pass one gradient array (or null) per argument, or a record by name',
      },
    );
  }
  const grads = layout.argNames.map((name, i) => {
    const g =
      gspec === undefined
        ? undefined
        : Array.isArray(gspec)
          ? gspec[i]
          : Object.hasOwn(gspec, name)
            ? (gspec as Record<string, NDArray>)[name]
            : undefined;
    if (g == null) return undefined;
    if (!(g instanceof NDArray))
      throw new MXNetError(`gradient of ${name}: expected an NDArray`, { op: 'bind' });
    live(g, `gradient of ${name}`, 'bind');
    const a = args[i] as NDArray;
    if (
      g.dtype !== a.dtype ||
      g.shape.length !== a.shape.length ||
      g.shape.some((d, k) => d !== a.shape[k])
    ) {
      throw new MXNetError(
        `gradient of argument ${name}: expected ${a.dtype} ${shapeToString(a.shape)} (the argument's), given ${g.dtype} ${shapeToString(g.shape)}`,
        { op: 'bind', shapes: [a.shape, g.shape], dtypes: [a.dtype, g.dtype] },
      );
    }
    checkDevice(g, `gradient of ${name}`, ctx);
    return g;
  });
  if (gspec !== undefined && !Array.isArray(gspec)) {
    for (const k of Object.keys(gspec)) {
      if (!layout.argNames.includes(k)) {
        throw new MXNetError(`argsGrad names ${k}, which is not an argument`, {
          op: 'bind',
          hint: `arguments: ${layout.argNames.join(', ')}`,
        });
      }
    }
  }
  const reqs = normalizeReqs(layout, options.gradReq);
  return createExecutor({
    rt,
    ctx,
    layout,
    reqs,
    args,
    grads,
    aux,
    owned: [],
    bulkSize: options.bulkSize,
    fusion: options.fusion,
  });
}
