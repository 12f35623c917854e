/**
 * `Symbol.inferShape` / `inferType` and their partial forms (MXNet `MXSymbolInferShapeEx`,
 * `MXSymbolInferType`): known inputs by name (any variable, aux states included) or by position
 * (the arguments, in `listArguments()` order), run @mx/graph's pass over the symbol's graph, and
 * read the results back in `listArguments()` / `listOutputs()` / `listAuxiliaryStates()` order.
 *
 * As in MXNet, the full form gives `undefined` for all three lists when anything in the graph is
 * still unknown (and warns which arguments to provide); the partial form returns what is known,
 * `undefined` for an unknown shape or dtype and -1 for an unknown dimension (MXNet's np-shape
 * convention, where None is an unknown shape: `[]` would be a scalar's shape).
 */
import { type DTypeName, dtype, MXNetError, type Shape, shapeToString } from '@mx/base';
import { IndexedGraph, type InferResult, inferShape, inferType, type NodeEntry } from '@mx/graph';

/** Known shapes: by variable name, or positional over the arguments (null/undefined = unknown). */
export type ShapeInputs = Readonly<Record<string, Shape>> | readonly (Shape | null | undefined)[];
/** Known dtypes: by variable name, or positional over the arguments. */
export type TypeInputs = Readonly<Record<string, DTypeName>> | readonly (DTypeName | null | undefined)[];

/** What inference returns, in listArguments / listOutputs / listAuxiliaryStates order. */
export interface InferShapeResult {
  readonly argShapes: Shape[] | undefined;
  readonly outShapes: Shape[] | undefined;
  readonly auxShapes: Shape[] | undefined;
}

/** Partial shape inference: an unknown shape is undefined, an unknown dimension -1. */
export interface InferShapePartialResult {
  readonly argShapes: (Shape | undefined)[];
  readonly outShapes: (Shape | undefined)[];
  readonly auxShapes: (Shape | undefined)[];
}

export interface InferTypeResult {
  readonly argTypes: DTypeName[] | undefined;
  readonly outTypes: DTypeName[] | undefined;
  readonly auxTypes: DTypeName[] | undefined;
}

export interface InferTypePartialResult {
  readonly argTypes: (DTypeName | undefined)[];
  readonly outTypes: (DTypeName | undefined)[];
  readonly auxTypes: (DTypeName | undefined)[];
}

interface Split<T> {
  readonly args: (T | undefined)[];
  readonly outs: (T | undefined)[];
  readonly aux: (T | undefined)[];
  readonly complete: boolean;
}

function describeInputs(inputs: unknown, fmt: (v: never) => string): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(inputs)) {
    inputs.forEach((v, i) => {
      out[`#${i}`] = v == null ? 'None' : fmt(v as never);
    });
  } else for (const [k, v] of Object.entries(inputs as object)) out[k] = fmt(v as never);
  return out;
}

/** Map known values onto variable node ids: positional over arguments, by name over all inputs. */
function knownNodes<T>(
  idx: IndexedGraph,
  inputs: unknown,
  check: (v: unknown, what: string) => T,
  source: string,
): Map<number, T> {
  const known = new Map<number, T>();
  const args = idx.inputNodes.filter((n) => !idx.mutableInputNodes.has(n));
  if (Array.isArray(inputs)) {
    if (inputs.length > args.length) {
      throw new MXNetError(`${source}: ${inputs.length} positional values for ${args.length} arguments`, {
        op: source,
        hint: `the arguments are ${args.map((n) => idx.nodes[n]?.node.name).join(', ')}`,
      });
    }
    inputs.forEach((v, i) => {
      if (v !== null && v !== undefined) known.set(args[i] as number, check(v, `argument #${i}`));
    });
    return known;
  }
  const names = idx.inputNodes.map((n) => (idx.nodes[n] as { node: { name: string } }).node.name);
  for (const [key, v] of Object.entries(inputs as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    const value = check(v, key);
    let found = false;
    idx.inputNodes.forEach((nid, i) => {
      if (names[i] === key) {
        known.set(nid, value);
        found = true;
      }
    });
    if (!found) {
      throw new MXNetError(`${source}: keyword argument name ${key} not found`, {
        op: source,
        hint: `candidate arguments: ${names.map((n, i) => `[${i}]${n}`).join(', ')}`,
      });
    }
  }
  return known;
}

function checkShape(v: unknown, what: string): Shape {
  if (!Array.isArray(v) || !v.every((d) => Number.isInteger(d) && d >= -1)) {
    throw new MXNetError(
      `shapes must be arrays of integers (-1 for unknown); ${what} is ${JSON.stringify(v)}`,
      {
        op: 'infer_shape',
        hint: 'pass e.g. { data: [100, 784] }',
      },
    );
  }
  return Object.freeze([...v]);
}

function checkDType(v: unknown, what: string): DTypeName {
  if (typeof v !== 'string' && typeof v !== 'number') {
    throw new MXNetError(`dtypes are names such as 'float32'; ${what} is ${JSON.stringify(v)}`, {
      op: 'infer_type',
    });
  }
  return dtype(v).name;
}

function run<T>(
  outputs: readonly NodeEntry[],
  inputs: unknown,
  check: (v: unknown, what: string) => T,
  pass: (idx: IndexedGraph, known: { nodes: Map<number, T> }) => InferResult<T>,
  source: string,
  fmt: (v: T) => string,
): Split<T> {
  const idx = new IndexedGraph(outputs);
  const known = knownNodes(idx, inputs ?? {}, check, source);
  let result: InferResult<T>;
  try {
    result = pass(idx, { nodes: known });
  } catch (e) {
    if (e instanceof MXNetError) {
      throw new MXNetError(e.reason, {
        op: e.op ?? source,
        // MXNet prints the arguments of the failed call next to the error.
        params: { ...(e.params ?? {}), ...describeInputs(inputs ?? {}, fmt) },
        shapes: e.shapes,
        dtypes: e.dtypes,
        hint: e.hint,
        cause: e,
      });
    }
    throw e;
  }
  const at = (nid: number, index = 0) => result.values[idx.entryId(nid, index)];
  return {
    args: idx.inputNodes.filter((n) => !idx.mutableInputNodes.has(n)).map((n) => at(n)),
    outs: idx.outputs.map((o) => at(o.nodeId, o.index)),
    aux: idx.inputNodes.filter((n) => idx.mutableInputNodes.has(n)).map((n) => at(n)),
    complete: result.numUnknown === 0,
  };
}

const isFull = (s: Shape | undefined): s is Shape => s?.every((d) => d >= 0) === true;

/** Shape inference over `outputs`; `partial` returns what is known instead of all-undefined. */
export function inferShapes(
  outputs: readonly NodeEntry[],
  argNames: readonly string[],
  inputs: ShapeInputs | undefined,
  partial: boolean,
  warn: (message: string) => void,
): InferShapePartialResult | InferShapeResult {
  const r = run(outputs, inputs, checkShape, inferShape, 'infer_shape', shapeToString);
  if (partial) return { argShapes: r.args, outShapes: r.outs, auxShapes: r.aux };
  if (r.complete) {
    return { argShapes: r.args as Shape[], outShapes: r.outs as Shape[], auxShapes: r.aux as Shape[] };
  }
  const unknown = argNames
    .map((n, i) => [n, r.args[i]] as const)
    .filter(([, s]) => !isFull(s))
    .map(([n, s]) => `${n}: ${s === undefined ? 'None' : shapeToString(s)}`);
  if (unknown.length > 10) unknown.splice(10, unknown.length - 10, '...');
  warn(
    'Cannot decide shape for the following arguments (-1s in shape mean unknown dimensions). ' +
      `Consider providing them as input:\n\t${unknown.join('\n\t')}`,
  );
  return { argShapes: undefined, outShapes: undefined, auxShapes: undefined };
}

/** Type inference over `outputs`; `partial` returns what is known instead of all-undefined. */
export function inferTypes(
  outputs: readonly NodeEntry[],
  argNames: readonly string[],
  inputs: TypeInputs | undefined,
  partial: boolean,
  warn: (message: string) => void,
): InferTypePartialResult | InferTypeResult {
  const r = run(outputs, inputs, checkDType, inferType, 'infer_type', String);
  if (partial) return { argTypes: r.args, outTypes: r.outs, auxTypes: r.aux };
  if (r.complete) {
    return {
      argTypes: r.args as DTypeName[],
      outTypes: r.outs as DTypeName[],
      auxTypes: r.aux as DTypeName[],
    };
  }
  const unknown = argNames.filter((_, i) => r.args[i] === undefined).map((n) => `${n}: None`);
  if (unknown.length > 10) unknown.splice(10, unknown.length - 10, '...');
  warn(
    `Cannot decide type for the following arguments. Consider providing them as input:\n\t${unknown.join('\n\t')}`,
  );
  return { argTypes: undefined, outTypes: undefined, auxTypes: undefined };
}
