/**
 * Operator definitions: MXNet's nnvm attributes (`FListInputNames`, `FInferShape`, `FInferType`,
 * `FInplaceOption`, `FMutateInputs`, `FResourceRequest`, ...) as one typed object per op.
 *
 * `defineOp` takes the declaration and returns an `Op` with the defaults MXNet applies filled in
 * (one input named `data`, one output named `output`, all visible, same dtype everywhere, dense
 * storage), so the NDArray layer, the symbol layer and backends read one normalized shape. Shape
 * and type inference use MXNet's bidirectional convention: arrays of slots, `undefined` when
 * unknown, filled in place, returning whether everything is known; contradictions throw.
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ElementwiseDef, FusedReduceDef } from './expr.js';
import type { GradientSpec } from './gradient.js';
import { type ParamSchema, type ParamsOf, parseParams } from './params.js';
import type { Attrs, Kernel } from './types.js';

/** Storage types (MXNet `NDArrayStorageType`). */
export type StorageType = 'default' | 'row_sparse' | 'csr';

/** Resources an op can request (MXNet `ResourceRequest::Type`). */
export type ResourceRequestKind = 'random' | 'tempSpace' | 'parallelRandom';

/** A count that may depend on the parsed params (MXNet `set_num_inputs(fn)`). */
export type CountFn<A> = number | ((attrs: A) => number);
export type NamesFn<A> = readonly string[] | ((attrs: A) => readonly string[]);

/** Shape slots: `undefined` = unknown; entries may contain -1 for unknown dims. */
export type ShapeSlots = (Shape | undefined)[];
export type TypeSlots = (DTypeName | undefined)[];

/** What an op definition declares (everything but `name` and `inferShape` is optional). */
export interface OpDef<S extends ParamSchema = ParamSchema> {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly doc?: string;
  readonly params?: S;
  /** Number of inputs; default 1. A function of the params for variadic ops (Concat's `num_args`). */
  readonly numInputs?: CountFn<ParamsOf<S>>;
  /** Number of outputs including hidden ones; default 1. */
  readonly numOutputs?: CountFn<ParamsOf<S>>;
  /** Outputs the user sees; default all. */
  readonly numVisibleOutputs?: CountFn<ParamsOf<S>>;
  /** Default `['data']` (or `arg0..` for several inputs, MXNet `FListInputNames` default). */
  readonly listInputNames?: NamesFn<ParamsOf<S>>;
  /** Default `['output']` for one output, `output0..` for several. */
  readonly listOutputNames?: NamesFn<ParamsOf<S>>;
  /** Name of the param holding the input count (MXNet `key_var_num_args`). */
  readonly keyVarNumArgs?: string;
  /** Fill unknown slots from known ones; return true when every slot is known. Throw MXNetError on a mismatch. */
  readonly inferShape: (attrs: ParamsOf<S>, inShapes: ShapeSlots, outShapes: ShapeSlots) => boolean;
  /** Default: every input and output has the same dtype. */
  readonly inferType?: (attrs: ParamsOf<S>, inTypes: TypeSlots, outTypes: TypeSlots) => boolean;
  /** Default: every input and output dense. */
  readonly inferStorageType?: (
    attrs: ParamsOf<S>,
    inTypes: StorageType[],
    outTypes: StorageType[],
  ) => boolean;
  /**
   * True when, under these params, all-dense inputs may give a sparse output (`cast_storage` to a
   * sparse stype, Embedding's backward with `sparse_grad`). Imperative calls with only dense arrays
   * skip storage inference unless this says so, so adding `inferStorageType` to a common op costs
   * dense calls nothing. Default: false.
   */
  readonly sparseFromDense?: (attrs: ParamsOf<S>) => boolean;
  /** Pairs [input, output] that may share memory (MXNet `FInplaceOption`). */
  readonly inplaceOption?: (attrs: ParamsOf<S>) => readonly (readonly [number, number])[];
  /** For each inplace pair: the output equals the input, so sharing is safe with other readers. */
  readonly inplaceIdentity?: (attrs: ParamsOf<S>) => readonly boolean[];
  /** Inputs the op writes in place (optimizer states, BatchNorm moving stats). */
  readonly mutateInputs?: (attrs: ParamsOf<S>) => readonly number[];
  /** Inputs whose values the op does not read (`zeros_like`), so they can be freed early. */
  readonly ignoreInputs?: (attrs: ParamsOf<S>) => readonly number[];
  readonly resourceRequest?: (attrs: ParamsOf<S>) => readonly ResourceRequestKind[];
  /** The op is a SimpleOp: backends compile this expression instead of registering a kernel. */
  readonly elementwise?: ElementwiseDef;
  /** The op is a fused reduction with an elementwise prologue (graph fusion builds these). */
  readonly fusedReduce?: FusedReduceDef;
  /**
   * The gradient (MXNet `FGradient`), built from other ops; `'zero'` for ops whose gradient is zero
   * everywhere. Elementwise ops with gradient expressions get one derived (`registry.gradient`).
   * Omitted otherwise: the op is not differentiable.
   */
  readonly gradient?: GradientSpec<ParamsOf<S>>;
  /** MXNet `TIsBackward`. */
  readonly isBackward?: boolean;
  /**
   * MXNet's `FSetInputVarAttrOnCompose`: the `__init__` attribute (an initializer in MXNet's JSON
   * form, e.g. `["zero", {}]`) the symbol layer gives an input variable, by input index, when the
   * variable has none — BatchNorm's moving statistics, LeakyReLU's gamma. Old symbol files get the
   * same on load.
   */
  readonly inputVarInit?: Readonly<Record<number, string>>;
  /**
   * MXNet's FExecType kCrossDeviceCopy: the op moves data between devices and is run by the array
   * layer through the backends' transfer functions instead of a kernel (`_copyto`).
   */
  readonly crossDeviceCopy?: boolean;
  /**
   * A kernel composed from other ops' kernels on the same backend (`add_n` is a chain of
   * `elemwise_add` calls): built by the registry on first lookup for any backend where every op it
   * asks for has a kernel, so such an op needs no backend change. Return undefined when a needed
   * kernel is missing.
   */
  readonly compositeKernel?: (kernelOf: (opName: string) => Kernel | undefined) => Kernel | undefined;
  /**
   * The output shape depends on the input values (`_npi_boolean_mask`, `_npi_nonzero`): true, or a
   * function of the params (`_npi_histogram` with `bins='auto'`). `inferShape` fills what it can
   * (-1 for data-dependent dims) and returns false; kernels are `computeDynamic` and allocate their
   * outputs (`DynamicOutput`). Invoke waits for the inputs and runs the kernel synchronously;
   * deferred compute computes the inputs and records the concrete shape; a CachedOp holding such a
   * node runs op by op. docs/design/np.md, "Dynamic shapes".
   */
  readonly dynamicShape?: boolean | ((attrs: ParamsOf<S>) => boolean);
}

function countOf<A>(c: CountFn<A> | undefined, attrs: A, dflt: number): number {
  if (c === undefined) return dflt;
  return typeof c === 'number' ? c : c(attrs);
}

function defaultNames(prefix: string, single: string, n: number): string[] {
  return n === 1 ? [single] : Array.from({ length: n }, (_, i) => `${prefix}${i}`);
}

const EMPTY: readonly never[] = Object.freeze([]);

/** Every input and output has the same dtype (MXNet `ElemwiseType`); fills unknowns from any known slot. */
export function elemwiseType(opName: string, inTypes: TypeSlots, outTypes: TypeSlots): boolean {
  let t: DTypeName | undefined;
  const nIn = inTypes.length;
  for (let i = 0; i < nIn + outTypes.length; i++) {
    const x = i < nIn ? inTypes[i] : outTypes[i - nIn];
    if (x === undefined) continue;
    if (t === undefined) t = x;
    else if (x !== t) {
      throw new MXNetError(`type inconsistent: expected all inputs and outputs to be ${t}, got ${x}`, {
        op: opName,
        dtypes: inTypes.map((d) => d ?? 'unknown'),
        hint: `cast the inputs to one dtype first (astype / Cast)`,
      });
    }
  }
  if (t === undefined) return false;
  inTypes.fill(t);
  outTypes.fill(t);
  return true;
}

/** A registered operator: the declaration with MXNet's defaults applied, plus its kernels per backend. */
export class Op<S extends ParamSchema = ParamSchema> {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly doc: string;
  readonly params: S;
  readonly def: OpDef<S>;
  readonly elementwise: ElementwiseDef | undefined;
  /** True when the op has no parameters (the NDArray layer skips parsing). */
  readonly paramless: boolean;
  /** @internal Kernels by backend name (filled through the registry). */
  readonly kernels = new Map<string, Kernel>();
  readonly #emptyAttrs: ParamsOf<S> | undefined;

  constructor(def: OpDef<S>) {
    this.def = def;
    this.name = def.name;
    this.aliases = Object.freeze([...(def.aliases ?? [])]);
    this.doc = def.doc ?? '';
    this.params = (def.params ?? {}) as S;
    this.elementwise = def.elementwise;
    this.paramless = Object.keys(this.params).length === 0;
    this.#emptyAttrs = this.paramless ? (Object.freeze({}) as ParamsOf<S>) : undefined;
  }

  /** Parse typed values or MXNet strings into the op's params (MXNet `ParamParser`). */
  parseParams(input?: Readonly<Record<string, unknown>>): ParamsOf<S> {
    if (this.#emptyAttrs !== undefined && (input === undefined || Object.keys(input).length === 0))
      return this.#emptyAttrs;
    return parseParams(this.params, input, this.name);
  }

  numInputs(attrs: ParamsOf<S>): number {
    return countOf(this.def.numInputs, attrs, 1);
  }

  numOutputs(attrs: ParamsOf<S>): number {
    return countOf(this.def.numOutputs, attrs, 1);
  }

  numVisibleOutputs(attrs: ParamsOf<S>): number {
    return countOf(this.def.numVisibleOutputs, attrs, this.numOutputs(attrs));
  }

  listInputNames(attrs: ParamsOf<S>): readonly string[] {
    const n = this.def.listInputNames;
    if (n === undefined) return defaultNames('arg', 'data', this.numInputs(attrs));
    return typeof n === 'function' ? n(attrs) : n;
  }

  listOutputNames(attrs: ParamsOf<S>): readonly string[] {
    const n = this.def.listOutputNames;
    if (n === undefined) return defaultNames('output', 'output', this.numOutputs(attrs));
    return typeof n === 'function' ? n(attrs) : n;
  }

  inferShape(attrs: ParamsOf<S>, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean {
    return this.def.inferShape(attrs, inShapes, outShapes);
  }

  inferType(attrs: ParamsOf<S>, inTypes: TypeSlots, outTypes: TypeSlots): boolean {
    if (this.def.inferType) return this.def.inferType(attrs, inTypes, outTypes);
    return elemwiseType(this.name, inTypes, outTypes);
  }

  inferStorageType(attrs: ParamsOf<S>, inTypes: StorageType[], outTypes: StorageType[]): boolean {
    if (this.def.inferStorageType) return this.def.inferStorageType(attrs, inTypes, outTypes);
    outTypes.fill('default');
    return true;
  }

  /** See `OpDef.sparseFromDense`. */
  sparseFromDense(attrs: ParamsOf<S>): boolean {
    return this.def.sparseFromDense?.(attrs) ?? false;
  }

  inplaceOption(attrs: ParamsOf<S>): readonly (readonly [number, number])[] {
    return this.def.inplaceOption?.(attrs) ?? EMPTY;
  }

  inplaceIdentity(attrs: ParamsOf<S>): readonly boolean[] {
    return this.def.inplaceIdentity?.(attrs) ?? EMPTY;
  }

  mutateInputs(attrs: ParamsOf<S>): readonly number[] {
    return this.def.mutateInputs?.(attrs) ?? EMPTY;
  }

  ignoreInputs(attrs: ParamsOf<S>): readonly number[] {
    return this.def.ignoreInputs?.(attrs) ?? EMPTY;
  }

  resourceRequest(attrs: ParamsOf<S>): readonly ResourceRequestKind[] {
    return this.def.resourceRequest?.(attrs) ?? EMPTY;
  }

  /** Whether the output shape depends on the input values under these params (`OpDef.dynamicShape`). */
  isDynamicShape(attrs: ParamsOf<S>): boolean {
    const d = this.def.dynamicShape;
    return d === undefined ? false : typeof d === 'boolean' ? d : d(attrs);
  }

  /** MXNet's message suffix for inference failures: `op(shapes)`. */
  describeCall(attrs: Attrs, inShapes: ShapeSlots): string {
    const shapes = inShapes.map((s) => (s ? shapeToString(s) : 'unknown')).join(', ');
    const params = Object.entries(attrs)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ');
    return `${this.name}(${shapes}${params ? `; ${params}` : ''})`;
  }
}

/** Declare an operator (typed). Register it with `OpRegistry.define` or pass the def there directly. */
export function defineOp<S extends ParamSchema = ParamSchema>(def: OpDef<S>): OpDef<S> {
  return def;
}
