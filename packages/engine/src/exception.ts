/**
 * ExceptionRef: the shared failure box MXNet passes around as `shared_ptr<exception_ptr>`, plus the
 * error a wait rejects with when several failures are pending.
 *
 * A failing op stores one box on every var it writes; ops that start later share the *same box*
 * with their inputs. MXNet empties the box when a wait delivers it (`*ptr = nullptr`), which is why
 * an error surfaces exactly once through waits. Here delivery only clears `pending`: the error stays
 * in the box (a sticky failure), so the engine still knows that the vars carrying it hold no valid
 * data — ops reading them are skipped and `failureOf` reports it — until an op overwrites them.
 */
import { isMXNetError, MXNetError } from '@mx/base';

export class ExceptionRef {
  /** The error the failing op threw or reported. */
  readonly error: unknown;
  /** Name of the op that failed (for messages listing several failures). */
  readonly op: string;
  #pending = true;

  constructor(error: unknown, op: string) {
    this.error =
      error === undefined || error === null
        ? new MXNetError(`the op failed with ${String(error)} instead of an error`, {
            op,
            hint: 'throw (or pass to onComplete) an Error object',
          })
        : error;
    this.op = op;
  }

  /** True while no wait has delivered the error (MXNet: the box is still set). */
  get pending(): boolean {
    return this.#pending;
  }

  /** Deliver: mark the error delivered for every var and op sharing the box, and return it. */
  deliver(): unknown {
    this.#pending = false;
    return this.error;
  }
}

/**
 * What `waitForAll` rejects with when it delivers several distinct failures at once: an MXNetError
 * (op `waitall`) whose message lists each failure and whose `errors` holds them in the order they
 * happened (like `AggregateError`); `cause` is the first.
 */
export class MXNetAggregateError extends MXNetError {
  /** The delivered errors, first failure first. */
  readonly errors: readonly unknown[];

  constructor(failures: readonly ExceptionRef[]) {
    const lines = failures.map((f) => `- ${describeFailure(f)}`);
    super(`${failures.length} operations failed:\n${lines.join('\n')}`, {
      op: 'waitall',
      hint: 'each error is in .errors (first also in .cause); read the failed arrays to see which each one affects',
      cause: failures[0]?.error,
    });
    this.errors = failures.map((f) => f.error);
  }
}

/** `op: message` of one failure, indented to sit in a list. */
function describeFailure(f: ExceptionRef): string {
  const e = f.error;
  const message = e instanceof Error ? e.message : String(e);
  const text = isMXNetError(e) && (e as MXNetError).op !== undefined ? message : `${f.op}: ${message}`;
  return text.replace(/\n/g, '\n  ');
}

/**
 * Deliver every pending box in `boxes` and return what a wait rejects with: undefined when none was
 * pending, the error itself when exactly one distinct error was, else an MXNetAggregateError.
 */
export function deliverAll(boxes: Iterable<ExceptionRef>): { failed: boolean; error: unknown } {
  const seen = new Set<unknown>();
  const list: ExceptionRef[] = [];
  for (const b of boxes) {
    if (!b.pending) continue;
    b.deliver();
    if (seen.has(b.error)) continue;
    seen.add(b.error);
    list.push(b);
  }
  if (list.length === 0) return { failed: false, error: undefined };
  if (list.length === 1) return { failed: true, error: (list[0] as ExceptionRef).error };
  return { failed: true, error: new MXNetAggregateError(list) };
}
