/**
 * MXNetError: the one error type every @mx package throws for bad input or failed operations.
 *
 * MXNet reports failures as `mx.base.MXNetError` with the operator, its parameters and the input
 * shapes in the message. We keep that contract, but carry the pieces as structured fields too, so
 * tools and tests can inspect them without parsing text. The message always ends with what the user
 * should change (`hint`) when the thrower knows it.
 */

/** Structured context attached to an {@link MXNetError}. Every field is optional. */
export interface MXNetErrorContext {
  /** Operator or API entry point that failed, e.g. `FullyConnected` or `Storage.alloc`. */
  readonly op?: string;
  /** Parameters of the failing call, as the user passed them. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Input shapes, in input order. */
  readonly shapes?: readonly (readonly number[])[];
  /** Input dtypes, in input order (NumPy names). */
  readonly dtypes?: readonly string[];
  /** Device the call ran on, e.g. `cpu(0)`. */
  readonly device?: string;
  /** What the user should change. */
  readonly hint?: string;
  /** Underlying error, if this one wraps another. */
  readonly cause?: unknown;
}

function formatShape(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function formatMessage(message: string, ctx: MXNetErrorContext): string {
  const lines = [ctx.op ? `${ctx.op}: ${message}` : message];
  if (ctx.params && Object.keys(ctx.params).length > 0) {
    const kv = Object.entries(ctx.params).map(([k, v]) => `${k}=${formatValue(v)}`);
    lines.push(`  params: ${kv.join(', ')}`);
  }
  if (ctx.shapes) lines.push(`  input shapes: [${ctx.shapes.map(formatShape).join(', ')}]`);
  if (ctx.dtypes) lines.push(`  input dtypes: [${ctx.dtypes.join(', ')}]`);
  if (ctx.device) lines.push(`  device: ${ctx.device}`);
  if (ctx.hint) lines.push(`  hint: ${ctx.hint}`);
  return lines.join('\n');
}

/** The error type of @mx, named like MXNet's Python `MXNetError`. */
export class MXNetError extends Error {
  override readonly name = 'MXNetError';
  readonly op: string | undefined;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly shapes: readonly (readonly number[])[] | undefined;
  readonly dtypes: readonly string[] | undefined;
  readonly device: string | undefined;
  readonly hint: string | undefined;
  /** The message without the context lines. */
  readonly reason: string;

  constructor(message: string, context: MXNetErrorContext = {}) {
    super(
      formatMessage(message, context),
      context.cause === undefined ? undefined : { cause: context.cause },
    );
    this.reason = message;
    this.op = context.op;
    this.params = context.params;
    this.shapes = context.shapes;
    this.dtypes = context.dtypes;
    this.device = context.device;
    this.hint = context.hint;
  }
}

/** True when `e` is an {@link MXNetError} (also across bundle copies, by name). */
export function isMXNetError(e: unknown): e is MXNetError {
  return e instanceof MXNetError || (e instanceof Error && e.name === 'MXNetError');
}
