/**
 * The option types of `sym.<Op>(...)` calls, shared by the generated declarations (sym-ops.ts):
 * the op's params (MXNet's names, the same types as `nd.<Op>`), inputs given by argument name, and
 * what every MXNet symbol function takes besides (`name`, `attr` and the hidden keys the C API
 * stores as `__lr_mult__`, `__ctx_group__`...). Hand-written; the generator only refers to them.
 */
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import type { Symbol } from './symbol.js';

/** What every `sym.<Op>` call accepts next to the op's params. */
export interface SymbolCallOptions {
  /** Node name; default `<op name lower-cased><n>` from the current NameManager (`fullyconnected0`). */
  readonly name?: string;
  /** More attributes of the node (strings), added to the current attribute scope's. */
  readonly attr?: Readonly<Record<string, string>>;
  /** Device group for model parallelism (`__ctx_group__`). */
  readonly ctx_group?: string;
  /** Learning-rate multiplier (`__lr_mult__`; copied onto the variables this call creates). */
  readonly lr_mult?: number | string;
  /** Weight-decay multiplier (`__wd_mult__`; copied onto the variables this call creates). */
  readonly wd_mult?: number | string;
  /** Recompute this node in backward instead of keeping its output (`__force_mirroring__`). */
  readonly force_mirroring?: boolean | string;
  /** Mirroring stage (`__mirror_stage__`). */
  readonly mirror_stage?: number | string;
  /** Profiler scope (`__profiler_scope__`). */
  readonly profiler_scope?: string;
}

/** Inputs given by argument name (`{ data, weight }`). */
export type SymbolInputs<K extends string> = { readonly [k in K]?: Symbol };

/** The options object of a `sym.<Op>` call: params `P`, inputs `K` by name, call options. */
export type SymOptions<P, K extends string = never> = P & SymbolInputs<K> & SymbolCallOptions;
