/**
 * Context: the device an array lives on and an operator runs on (MXNet's `mx.Context`).
 *
 * Device type ids are MXNet's (cpu=1, gpu=2, cpu_pinned=3, cpu_shared=5) because they are written
 * into saved NDArray files. Contexts are interned: `cpu(0) === cpu(0)`, so they can be compared with
 * `===` and used as Map keys; `key` is a small integer for hot-path maps. Interning is a cache of
 * immutable values, not a registry: nothing about it can be configured or changed.
 */
import { MXNetError } from './error.js';

/** Device types, with MXNet's names. */
export type DeviceType = 'cpu' | 'gpu' | 'cpu_pinned' | 'cpu_shared';

/** MXNet's `Context::DeviceType` numbers. */
export const DEVICE_TYPE_IDS: Readonly<Record<DeviceType, number>> = Object.freeze({
  cpu: 1,
  gpu: 2,
  cpu_pinned: 3,
  cpu_shared: 5,
});

const TYPE_BY_ID: ReadonlyMap<number, DeviceType> = new Map(
  (Object.entries(DEVICE_TYPE_IDS) as [DeviceType, number][]).map(([name, id]) => [id, name]),
);

/** Largest device id a Context accepts (ids are packed into {@link Context.key}). */
export const MAX_DEVICE_ID = 0xffff;

const interned = new Map<number, Context>();

/** A device: type plus id. Obtain instances with {@link cpu}, {@link gpu}, {@link Context.of}. */
export class Context {
  /** MXNet's numeric device type (cpu=1, gpu=2, cpu_pinned=3, cpu_shared=5). */
  readonly deviceTypeId: number;
  /** Unique small integer for this context (`deviceTypeId * 65536 + deviceId`). */
  readonly key: number;

  private constructor(
    readonly deviceType: DeviceType,
    readonly deviceId: number,
  ) {
    this.deviceTypeId = DEVICE_TYPE_IDS[deviceType];
    this.key = this.deviceTypeId * (MAX_DEVICE_ID + 1) + deviceId;
    Object.freeze(this);
  }

  /** The interned context for a device type (name or MXNet id) and device id. */
  static of(deviceType: DeviceType | number, deviceId = 0): Context {
    const type = typeof deviceType === 'number' ? TYPE_BY_ID.get(deviceType) : deviceType;
    if (type === undefined || !(type in DEVICE_TYPE_IDS)) {
      throw new MXNetError(`unknown device type ${String(deviceType)}`, {
        op: 'Context',
        hint: `use one of ${Object.entries(DEVICE_TYPE_IDS)
          .map(([n, i]) => `${n} (${i})`)
          .join(', ')}`,
      });
    }
    if (!Number.isInteger(deviceId) || deviceId < 0 || deviceId > MAX_DEVICE_ID) {
      throw new MXNetError(`device id must be an integer in [0, ${MAX_DEVICE_ID}], got ${deviceId}`, {
        op: 'Context',
        device: `${type}(${deviceId})`,
      });
    }
    const key = DEVICE_TYPE_IDS[type] * (MAX_DEVICE_ID + 1) + deviceId;
    let ctx = interned.get(key);
    if (ctx === undefined) {
      ctx = new Context(type, deviceId);
      interned.set(key, ctx);
    }
    return ctx;
  }

  /** Parse MXNet's string form, e.g. `cpu(0)`, `gpu(1)`, `cpu_pinned(0)`. */
  static fromString(text: string): Context {
    const m = /^\s*(cpu|gpu|cpu_pinned|cpu_shared)\s*\(\s*(\d+)\s*\)\s*$/.exec(text);
    if (!m) {
      throw new MXNetError(`cannot parse context "${text}"`, {
        op: 'Context.fromString',
        hint: 'write it as cpu(0), gpu(1), cpu_pinned(0) or cpu_shared(0)',
      });
    }
    return Context.of(m[1] as DeviceType, Number(m[2]));
  }

  /** True for contexts whose memory the host can read directly (cpu, cpu_pinned, cpu_shared). */
  get isHost(): boolean {
    return this.deviceType !== 'gpu';
  }

  equals(other: Context): boolean {
    return this === other;
  }

  /** MXNet's spelling: `cpu(0)`, `gpu(1)`. */
  toString(): string {
    return `${this.deviceType}(${this.deviceId})`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/** The CPU context (MXNet `mx.cpu(id)`). */
export function cpu(deviceId = 0): Context {
  return Context.of('cpu', deviceId);
}

/** A GPU context (MXNet `mx.gpu(id)`); which backend serves it is decided by the backend registry. */
export function gpu(deviceId = 0): Context {
  return Context.of('gpu', deviceId);
}

/** Page-locked host memory for fast device copies (MXNet `mx.cpu_pinned(id)`). */
export function cpuPinned(deviceId = 0): Context {
  return Context.of('cpu_pinned', deviceId);
}

/** Host memory shareable between workers/processes (MXNet `mx.cpu_shared(id)`). */
export function cpuShared(deviceId = 0): Context {
  return Context.of('cpu_shared', deviceId);
}
