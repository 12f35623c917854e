/**
 * The compiled form of a bound graph (MXNet GraphExecutor's `OpExecutor`s and cached bulk
 * segments): one `Step` per op node — kernel, parsed attrs, blobs, req, op contexts, all fixed at
 * bind time — grouped into segments that are pushed to the engine as single ops (MXNet's bulk
 * execution, `MXNET_EXEC_BULK_EXEC_*`). A segment reads the vars of what it takes from outside
 * and writes the vars of everything it produces, so running a graph step costs one push per
 * segment and a loop over prebuilt arrays — no parsing, inference, allocation or var dedup.
 * Steps and segments are never changed once built: a rebind makes new ones, so an engine op
 * already pushed runs with the blobs and vars it was pushed with.
 *
 * Synchronous kernels of a segment run back to back in one `pushSync`; asynchronous kernels
 * (webgpu) run in one `pushAsync` whose steps start each after the previous one called
 * `onComplete`, and which completes with the last (or the first failure). A failure names the node.
 */
import { type Context, MXNetError } from '@mx/base';
import {
  type AsyncFn,
  type CompleteCallback,
  type Engine,
  FnProperty,
  type RunContext,
  type Var,
} from '@mx/engine';
import type { Attrs, FCompute, OpContext, OpReqType, TBlob } from '@mx/ops';

/** One op node, ready to run. */
export interface Step {
  /** Node id in the graph. */
  readonly nid: number;
  /** Node name and op, for errors and profiles. */
  readonly node: string;
  readonly op: string;
  readonly compute: FCompute;
  readonly attrs: Attrs;
  readonly inputs: readonly TBlob[];
  readonly req: readonly OpReqType[];
  readonly outputs: readonly TBlob[];
  /** Op contexts in training and in inference mode (async steps get theirs from the segment). */
  readonly train: OpContext;
  readonly predict: OpContext;
  readonly async: boolean;
  readonly requested: readonly unknown[];
  readonly needGrad: boolean;
  /** Entry ids read (inputs) and written (outputs). */
  readonly inEntries: readonly number[];
  readonly outEntries: readonly number[];
  /** Entry ids of the inputs the op writes (FMutateInputs: aux states). */
  readonly mutatedEntries: readonly number[];
  /** Vars of the requested resources (written by the step). */
  readonly resourceVars: readonly Var[];
  /** Vars read besides the inputs' (accumulated or partially written outputs). */
  readonly extraReads: readonly Var[];
  /** Vars written besides the outputs' (mutated inputs, resources). */
  readonly extraWrites: readonly Var[];
}

/** A bulk of steps pushed as one engine op. */
export interface Segment {
  readonly steps: readonly Step[];
  push(engine: Engine, isTrain: boolean): void;
}

function stepError(step: Step, e: unknown): MXNetError {
  if (e instanceof MXNetError && e.reason.startsWith(`node ${step.node}`)) return e;
  const reason = e instanceof MXNetError ? e.reason : e instanceof Error ? e.message : String(e);
  return new MXNetError(`node ${step.node} (${step.op}): ${reason}`, {
    op: step.op,
    shapes: step.inputs.map((b) => b.shape),
    dtypes: step.inputs.map((b) => b.dtype),
    hint: e instanceof MXNetError ? e.hint : undefined,
    cause: e,
  });
}

/** The vars of a segment: what it reads from outside, and everything it writes (each once). */
function segmentVars(steps: readonly Step[], vars: readonly Var[]): [Var[], Var[]] {
  const produced = new Set<number>();
  const reads = new Set<Var>();
  const writes = new Set<Var>();
  for (const s of steps) {
    for (const eid of s.inEntries) if (!produced.has(eid)) reads.add(vars[eid] as Var);
    for (const v of s.extraReads) reads.add(v);
    for (const eid of s.outEntries) {
      produced.add(eid);
      writes.add(vars[eid] as Var);
    }
    for (const v of s.extraWrites) writes.add(v);
  }
  return [[...reads], [...writes]];
}

function segmentName(steps: readonly Step[]): string {
  const first = steps[0] as Step;
  if (steps.length === 1) return `${first.op}:${first.node}`;
  return `Bulk[${first.node}..${(steps[steps.length - 1] as Step).node}](${steps.length})`;
}

/** Synchronous kernels, run back to back in one pushSync. */
class SyncSegment implements Segment {
  readonly steps: readonly Step[];
  readonly #ctx: Context;
  readonly #reads: Var[];
  readonly #writes: Var[];
  readonly #options: { readonly name: string; readonly prop: FnProperty };
  readonly #train: () => void;
  readonly #predict: () => void;

  constructor(steps: readonly Step[], ctx: Context, vars: readonly Var[]) {
    this.steps = steps;
    this.#ctx = ctx;
    [this.#reads, this.#writes] = segmentVars(steps, vars);
    // `async`: a host kernel runs on this thread whenever it runs, so the engine may run the
    // segment inline when its vars are idle (see invoke.ts).
    this.#options = Object.freeze({ name: segmentName(steps), prop: FnProperty.async });
    const list = steps;
    const n = list.length;
    const run = (train: boolean) => () => {
      let i = 0;
      try {
        for (; i < n; i++) {
          const s = list[i] as Step;
          s.compute(s.attrs, train ? s.train : s.predict, s.inputs, s.req, s.outputs);
        }
      } catch (e) {
        throw stepError(list[i] as Step, e);
      }
    };
    this.#train = run(true);
    this.#predict = run(false);
  }

  push(engine: Engine, isTrain: boolean): void {
    engine.pushSync(
      isTrain ? this.#train : this.#predict,
      this.#ctx,
      this.#reads,
      this.#writes,
      this.#options,
    );
  }
}

/**
 * Asynchronous kernels in one pushAsync: a step starts when the previous one completed. The
 * segment's state is reused run after run — two runs of one segment never overlap, because both
 * write the segment's vars and the engine orders them.
 */
class AsyncSegment implements Segment {
  readonly steps: readonly Step[];
  readonly #ctx: Context;
  readonly #reads: Var[];
  readonly #writes: Var[];
  readonly #options: { readonly name: string };
  readonly #trainCtx: OpContext[];
  readonly #predictCtx: OpContext[];
  readonly #fnTrain: AsyncFn;
  readonly #fnPredict: AsyncFn;
  #i = 0;
  #train = false;
  #done: CompleteCallback | null = null;
  #runCtx: RunContext | null = null;
  /** True while a step's compute is on the stack (a synchronous onComplete then returns to the loop). */
  #inCompute = false;
  #completedInline = false;

  constructor(steps: readonly Step[], ctx: Context, vars: readonly Var[]) {
    this.steps = steps;
    this.#ctx = ctx;
    [this.#reads, this.#writes] = segmentVars(steps, vars);
    this.#options = Object.freeze({ name: segmentName(steps) });
    const onComplete = (error?: unknown) => this.#complete(error);
    const setBlockingWait = (w: () => void) => this.#runCtx?.setBlockingWait(w);
    const make = (s: Step, isTrain: boolean): OpContext =>
      Object.freeze({
        isTrain,
        needGrad: isTrain && s.needGrad,
        ctx,
        requested: s.requested,
        onComplete,
        setBlockingWait,
      });
    this.#trainCtx = steps.map((s) => make(s, true));
    this.#predictCtx = steps.map((s) => make(s, false));
    this.#fnTrain = (rc, done) => this.#start(rc, done, true);
    this.#fnPredict = (rc, done) => this.#start(rc, done, false);
  }

  push(engine: Engine, isTrain: boolean): void {
    engine.pushAsync(
      isTrain ? this.#fnTrain : this.#fnPredict,
      this.#ctx,
      this.#reads,
      this.#writes,
      this.#options,
    );
  }

  #start(rc: RunContext, done: CompleteCallback, isTrain: boolean): void {
    this.#runCtx = rc;
    this.#done = done;
    this.#train = isTrain;
    this.#i = 0;
    this.#loop();
  }

  /** Run steps until one completes later (its onComplete resumes the loop) or all are done. */
  #loop(): void {
    const steps = this.steps;
    const ctxs = this.#train ? this.#trainCtx : this.#predictCtx;
    while (this.#i < steps.length) {
      const s = steps[this.#i] as Step;
      this.#inCompute = true;
      this.#completedInline = false;
      try {
        s.compute(s.attrs, ctxs[this.#i] as OpContext, s.inputs, s.req, s.outputs);
      } catch (e) {
        this.#inCompute = false;
        this.#finish(stepError(s, e));
        return;
      }
      this.#inCompute = false;
      if (!this.#completedInline) return; // resumes in #complete
      if (this.#done === null) return; // failed inline
      this.#i++;
    }
    this.#finish(undefined);
  }

  #complete(error: unknown): void {
    if (this.#done === null) return; // a late or repeated call after the segment finished
    if (error !== undefined) {
      this.#finish(stepError(this.steps[this.#i] as Step, error));
      return;
    }
    if (this.#inCompute) {
      this.#completedInline = true;
      return;
    }
    this.#i++;
    this.#loop();
  }

  #finish(error: unknown): void {
    const done = this.#done;
    this.#done = null;
    this.#runCtx = null;
    if (done !== null) done(error);
  }
}

/** One segment of `steps` (all synchronous or all asynchronous), reading and writing `vars`. */
export function makeSegment(steps: readonly Step[], ctx: Context, vars: readonly Var[]): Segment {
  return (steps[0] as Step).async ? new AsyncSegment(steps, ctx, vars) : new SyncSegment(steps, ctx, vars);
}

/**
 * Group `steps` (in graph order) into segments of at most `bulkSize` steps; a change between
 * synchronous and asynchronous kernels always starts a new segment.
 */
export function buildSegments(
  steps: readonly Step[],
  bulkSize: number,
  ctx: Context,
  vars: readonly Var[],
): Segment[] {
  const out: Segment[] = [];
  let cur: Step[] = [];
  const flush = () => {
    if (cur.length === 0) return;
    out.push(makeSegment(cur, ctx, vars));
    cur = [];
  };
  const size = Math.max(1, bulkSize);
  for (const s of steps) {
    if (cur.length > 0 && (cur.length >= size || (cur[0] as Step).async !== s.async)) flush();
    cur.push(s);
  }
  flush();
  return out;
}
