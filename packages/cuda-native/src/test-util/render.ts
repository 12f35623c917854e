/**
 * Test harness: run conformance cases through cuda-native's kernels on a RenderRuntime (no GPU), to
 * collect the CUDA C each op generates and catch launch/signature mistakes. Inputs and outputs are
 * fake device blobs with the cases' shapes and dtypes (hidden outputs come from the op's own shape
 * and type inference); ops that request random resources get a fixed generator. Results are never
 * read: what is checked is the generated code (compile.ts) and `rt.problems`.
 */
import { type DTypeName, gpu, type Shape } from '@mx/base';
import { type ConformanceCase, loadCases } from '@mx/conformance';
import {
  createOpRegistry,
  type Kernel,
  type OpContext,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type TBlob,
} from '@mx/ops';
import { CUDA } from '../kernel.js';
import { installFamilies } from '../kernels/index.js';
import { RenderRuntime } from '../render-runtime.js';

/** Where a case's launches and GEMMs start in the runtime's records. */
export interface CaseMarks {
  readonly rt: RenderRuntime;
  readonly launches: number;
  readonly gemms: number;
}

export interface RenderResult {
  readonly rt: RenderRuntime;
  /** Cases run per op. */
  readonly ran: Map<string, number>;
  /** Kernels that threw for a valid case: `op/case: message`. */
  readonly errors: string[];
  /** Ops seen in the cases with no cuda kernel. */
  readonly missing: Set<string>;
  /** Cases the kernel's `checkDTypes` refuses before any launch (the runtime reports them). */
  readonly refused: readonly string[];
  readonly registry: OpRegistry;
}

function fakeGenerator(): { nextUint32(): number } {
  let s = 12345;
  return { nextUint32: () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) };
}

/**
 * Render every valid case of `families` (default: all golden families) whose op passes `filter`,
 * with the kernels `install` registers (default: every family).
 */
export function renderCases(
  families?: string | readonly string[],
  filter?: (op: string) => boolean,
  install: (registry: OpRegistry, host: { rt: RenderRuntime }) => void = installFamilies,
  onCase?: (
    c: ConformanceCase,
    inputs: readonly TBlob<number>[],
    outputs: readonly TBlob<number>[],
    from: CaseMarks,
  ) => void,
): RenderResult {
  const rt = new RenderRuntime();
  const registry = createOpRegistry();
  install(registry, { rt });
  const ran = new Map<string, number>();
  const errors: string[] = [];
  const missing = new Set<string>();
  const refusedCases: string[] = [];
  let addr = 0x100000000;
  const blob = (shape: Shape, dtype: DTypeName): TBlob<number> => {
    const size = shape.reduce((a, b) => a * b, 1);
    const b = { ptr: size === 0 ? null : addr, byteOffset: 0, shape, dtype, size };
    addr += Math.ceil((size * 8 + 256) / 256) * 256;
    return b;
  };
  for (const c of loadCases(families as string | string[] | undefined)) {
    if (c.error !== undefined || c.skip !== undefined || c.outputs === undefined) continue;
    if (c.backends !== undefined && !c.backends.includes(CUDA)) continue;
    if (!registry.has(c.op)) continue;
    const op = registry.get(c.op);
    if (filter !== undefined && !filter(op.name)) continue;
    const kernel = registry.kernel(op, CUDA);
    if (kernel?.compute === undefined) {
      missing.add(op.name);
      continue;
    }
    try {
      const attrs = op.parseParams(c.params as Record<string, unknown>);
      const nOut = op.numOutputs(attrs);
      const inShapes = c.inputs.map((a) => a.shape as Shape | undefined);
      const outShapes: (Shape | undefined)[] = Array.from({ length: nOut }, (_, i) => c.outputs?.[i]?.shape);
      op.inferShape(attrs, inShapes, outShapes);
      const inTypes = c.inputs.map((a) => a.dtype as DTypeName | undefined);
      const outTypes: (DTypeName | undefined)[] = Array.from(
        { length: nOut },
        (_, i) => c.outputs?.[i]?.dtype,
      );
      op.inferType(attrs, inTypes, outTypes);
      // The runtime asks the kernel before pushing (a composite refuses a dtype change it cannot
      // run); such a case gets that MXNetError on a device, not a launch.
      const refused = kernel.checkDTypes?.(attrs, inTypes as DTypeName[], outTypes as DTypeName[]);
      if (refused !== undefined) {
        refusedCases.push(`${op.name}/${c.name}: ${refused}`);
        continue;
      }
      const inputs = c.inputs.map((a) => blob(a.shape, a.dtype));
      const outputs = outShapes.map((s, i) => blob(s ?? [], outTypes[i] ?? 'float32'));
      const gen = fakeGenerator();
      const requested = op
        .resourceRequest(attrs)
        .map(() => ({ generator: gen, stream: () => gen, numStreams: 1 }));
      const marks = { rt, launches: rt.launches.length, gemms: rt.gemms.length };
      const failure = computeOnce(
        kernel,
        attrs,
        { isTrain: c.isTrain ?? false, requested },
        inputs,
        outputs,
        OpReq.write,
      );
      if (failure !== undefined) throw failure;
      onCase?.(c, inputs, outputs, marks);
      ran.set(op.name, (ran.get(op.name) ?? 0) + 1);
    } catch (e) {
      errors.push(`${op.name}/${c.name}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return { rt, ran, errors, missing, registry, refused: refusedCases };
}

/**
 * One call of `kernel` as the engine makes it on gpu(0) (every output with `req`); returns the
 * failure the kernel reported through `onComplete` (undefined when it finished cleanly).
 */
export function computeOnce(
  kernel: Kernel,
  attrs: Parameters<NonNullable<Kernel['compute']>>[0],
  call: { readonly isTrain: boolean; readonly requested: OpContext['requested'] },
  inputs: readonly TBlob[],
  outputs: readonly TBlob[],
  req: OpReqType,
): unknown {
  let failure: unknown;
  const ctx: OpContext = {
    isTrain: call.isTrain,
    needGrad: false,
    ctx: gpu(0),
    requested: call.requested,
    onComplete: (e?: unknown) => {
      if (e !== undefined) failure = e;
    },
  };
  if (kernel.compute === undefined) throw new Error('the kernel has no synchronous compute');
  kernel.compute(
    attrs,
    ctx,
    inputs,
    outputs.map(() => req),
    outputs,
  );
  return failure;
}
