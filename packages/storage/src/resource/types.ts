/**
 * Shared vocabulary of the ResourceManager: request types (MXNet's `ResourceRequest::Type`
 * numbers), the structural scheduler interface, and seed arithmetic.
 *
 * The scheduler is structural so that @mx/storage does not depend on @mx/engine: anything with
 * `newVariable` and `pushSync` (the engine, or a recording stub in tests) can order reseeding and
 * temp-space release with the ops that use a resource, as MXNet does by pushing them as engine
 * writes on the resource's var.
 */
import type { Context } from '@mx/base';
import { MXNetError } from '@mx/base';

/** MXNet's `ResourceRequest::Type` numbers (kCuDNNDropoutDesc = 3 is not provided). */
export const ResourceRequestType = Object.freeze({
  kRandom: 0,
  kTempSpace: 1,
  kParallelRandom: 2,
} as const);

/** A numeric request type. */
export type ResourceRequestTypeId = (typeof ResourceRequestType)[keyof typeof ResourceRequestType];

/** Resource kinds by name: kRandom, kTempSpace, kParallelRandom. */
export type ResourceKind = 'random' | 'tempSpace' | 'parallelRandom';

const KIND_BY_ID: readonly ResourceKind[] = ['random', 'tempSpace', 'parallelRandom'];

/** The kind for a name or MXNet number; MXNetError for anything else. */
export function resourceKindOf(type: ResourceKind | number): ResourceKind {
  if (typeof type === 'number') {
    const kind = Number.isInteger(type) ? KIND_BY_ID[type] : undefined;
    if (kind !== undefined) return kind;
  } else if (KIND_BY_ID.includes(type)) {
    return type;
  }
  throw new MXNetError(`unknown resource request type ${JSON.stringify(type)}`, {
    op: 'ResourceManager.request',
    params: { type },
    hint:
      type === 3
        ? 'kCuDNNDropoutDesc (3) exists only in cuDNN builds of MXNet; @mx has no cuDNN resource'
        : "use 'random' (0), 'tempSpace' (1) or 'parallelRandom' (2)",
  });
}

/** What a scheduled function receives. */
export interface ResourceRunContext {
  readonly ctx: Context;
}

/**
 * The part of an engine the ResourceManager needs: variables, and synchronous pushes ordered by
 * them. `pushSync(fn, ctx, constVars, mutateVars)` must run `fn` after every earlier push that reads
 * or writes a var in `mutateVars`, and before every later one.
 */
export interface ResourceScheduler<V = unknown> {
  newVariable(name?: string): V;
  pushSync(
    fn: (runCtx: ResourceRunContext) => void,
    ctx: Context,
    constVars: readonly V[],
    mutateVars: readonly V[],
    options?: { readonly name?: string },
  ): void;
}

/** MXNet `kRandMagic`: the multiplier that spreads a global seed across devices. */
export const RAND_MAGIC = 127;
/** MXNet `kMaxNumGPUs`: the stride between the seeds of parallel-random copies. */
export const MAX_NUM_GPUS = 16;
const TWO_POW_32 = 4294967296;

/** `x mod 2^32` for a non-negative integer below 2^53 (every seed formula here stays below 2^40). */
export function wrapUint32(x: number): number {
  return x % TWO_POW_32;
}

/** Check a user seed: an integer in [0, 2^32). */
export function checkSeed(seed: unknown, op: string): number {
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed >= TWO_POW_32) {
    throw new MXNetError(`seed must be an integer in [0, 4294967295], got ${String(seed)}`, {
      op,
      params: { seed },
      hint: 'pass a whole number between 0 and 2^32 - 1 (reduce larger seeds mod 2^32 yourself)',
    });
  }
  return seed;
}
