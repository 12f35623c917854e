/**
 * Kernels of the np shape ops built from other ops' kernels (`OpDef.compositeKernel`), so an
 * `_npi_*` op whose work a legacy op already does (`_npi_concatenate` is Concat, `_npi_vstack` is
 * Concat on inputs seen as 2-D, `_npi_split` is one `slice_axis` per output) runs on every backend
 * that has the legacy kernel, without a kernel of its own. Blobs are dense, so "seen as 2-D" is the
 * same blob with another shape. Steps run in order; on asynchronous backends (WebGPU) the op
 * completes when the last step has, as add_n's composite does.
 *
 * Also here: the nested-tuple param spec (`pad_width=((1, 2), (0, 3))`), which @mx/ops' `P`
 * does not have.
 */
import { MXNetError, type Shape } from '@mx/base';
import type { ParamSpec } from '../../../params.js';
import type { Attrs, Kernel, OpContext, OpReqType, TBlob } from '../../../types.js';

/** One call of another op's kernel. */
export interface Step {
  readonly kernel: string;
  readonly attrs: Attrs;
  readonly inputs: readonly TBlob[];
  readonly req: readonly OpReqType[];
  readonly outputs: readonly TBlob[];
}

/** Plans the steps of one call from the composite op's own attrs and blobs. */
export type Planner<A> = (
  attrs: A,
  inputs: readonly TBlob[],
  req: readonly OpReqType[],
  outputs: readonly TBlob[],
) => readonly Step[];

/** The same dense blob seen with another shape of the same size. */
export function reshaped(b: TBlob, shape: Shape): TBlob {
  return { ptr: b.ptr, byteOffset: b.byteOffset, dtype: b.dtype, size: b.size, shape };
}

/**
 * A `compositeKernel` running the steps `plan` gives, with the kernels of `uses` (every op the
 * plan may name). Undefined on a backend missing one of them, or mixing sync and async kernels.
 */
export function composite<A>(
  uses: readonly string[],
  plan: Planner<A>,
): (kernelOf: (op: string) => Kernel | undefined) => Kernel | undefined {
  return (kernelOf) => {
    const kernels = new Map<string, Kernel>();
    for (const name of uses) {
      const k = kernelOf(name);
      if (k?.compute === undefined) return undefined;
      kernels.set(name, k);
    }
    const first = kernels.get(uses[0] as string) as Kernel;
    const execType = first.execType ?? 'sync';
    if ([...kernels.values()].some((k) => (k.execType ?? 'sync') !== execType)) return undefined;
    return {
      execType,
      ...(first.dtypes !== undefined ? { dtypes: first.dtypes } : {}),
      compute(attrs, ctx, inputs, req, outputs) {
        const steps = plan(attrs as unknown as A, inputs, req, outputs);
        runSteps(kernels, steps, ctx, execType === 'async');
      },
    };
  };
}

function runSteps(
  kernels: Map<string, Kernel>,
  steps: readonly Step[],
  ctx: OpContext,
  isAsync: boolean,
): void {
  const call = (s: Step, c: OpContext) =>
    (kernels.get(s.kernel) as Kernel).compute?.(s.attrs, c, s.inputs, s.req, s.outputs);
  if (!isAsync) {
    for (const s of steps) call(s, ctx);
    return;
  }
  const done = ctx.onComplete as (error?: unknown) => void;
  if (steps.length === 0) {
    done();
    return;
  }
  let left = steps.length;
  let failed = false;
  const sub: OpContext = {
    ...ctx,
    onComplete: (error?: unknown) => {
      if (failed) return;
      if (error !== undefined) {
        failed = true;
        done(error);
      } else if (--left === 0) done();
    },
  };
  for (const s of steps) call(s, sub);
}

/** Split `((1, 2), (3,))` / `[[1, 2], [3]]` into nested number arrays; null when malformed. */
function parseNested(v: unknown): number[][] | null {
  let x = v;
  if (typeof x === 'string') {
    const json = x
      .trim()
      .replace(/\(/g, '[')
      .replace(/\)/g, ']')
      .replace(/,\s*\]/g, ']');
    try {
      x = JSON.parse(json);
    } catch {
      return null;
    }
  }
  if (typeof x === 'number') return [[x]];
  if (!Array.isArray(x)) return null;
  const rows = x.map((r) => (typeof r === 'number' ? [r] : r));
  if (!rows.every((r) => Array.isArray(r) && r.every((d) => Number.isInteger(d)))) return null;
  return rows as number[][];
}

/** MXNet `Tuple<Tuple<int>>` (the `pad_width` of `_npi_pad`): typed nested arrays or MXNet's text. */
export function nestedIntTuple(doc: string): ParamSpec<readonly (readonly number[])[]> {
  const typeName = 'tuple of <tuple of <int>>';
  return {
    typeName,
    tsType: 'readonly (readonly number[])[]',
    choices: undefined,
    required: true,
    default: undefined,
    doc,
    parse(value, key) {
      const rows = parseNested(value);
      if (rows === null) {
        const shown = typeof value === 'string' ? value : JSON.stringify(value);
        throw new MXNetError(`Invalid Parameter format for ${key} expect ${typeName} but value='${shown}'`);
      }
      return Object.freeze(rows.map((r) => Object.freeze([...r])));
    },
    format: (v) =>
      `(${v.map((r) => `(${r.join(', ')}${r.length === 1 ? ',' : ''})`).join(', ')}${v.length === 1 ? ',' : ''})`,
    info: () => `${typeName}, required`,
  };
}
