/**
 * createEngine: pick the engine kind like MXNet's `CreateEngine` — from the `kind` option, else
 * from MXNET_ENGINE_TYPE (NaiveEngine → naive; ThreadedEnginePerDevice, ThreadedEngine and their
 * `…Async` variants → threaded). There is no hidden global engine: the caller (normally the
 * `mxnet` umbrella package) creates one and passes it to whatever needs it.
 */
import { Env, MXNetError } from '@mx/base';
import type { Engine, EngineKind, EngineOptions } from './engine.js';
import { NaiveEngine } from './naive-engine.js';
import { ThreadedEngine } from './threaded-engine.js';

export interface CreateEngineOptions extends EngineOptions {
  /** Where MXNET_* settings come from. Default: `Env.fromProcess()`. */
  readonly env?: Env;
}

export function createEngine(options: CreateEngineOptions = {}): Engine {
  const env = options.env ?? Env.fromProcess();
  let kind: EngineKind;
  let typeName: string;
  if (options.kind !== undefined) {
    if (options.kind !== 'naive' && options.kind !== 'threaded') {
      throw new MXNetError(`unknown engine kind "${String(options.kind)}"`, {
        op: 'createEngine',
        hint: "use kind: 'threaded' or 'naive'",
      });
    }
    kind = options.kind;
    typeName = kind === 'naive' ? 'NaiveEngine' : 'ThreadedEnginePerDevice';
  } else {
    typeName = env.get('MXNET_ENGINE_TYPE');
    kind = typeName === 'NaiveEngine' ? 'naive' : 'threaded';
  }
  return kind === 'naive'
    ? new NaiveEngine({ ...options, env })
    : new ThreadedEngine({ ...options, env, typeName });
}
