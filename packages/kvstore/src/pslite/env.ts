/**
 * The DMLC_* / PS_* settings of a ps-lite node, read from an environment map (process.env in Node,
 * any record elsewhere) into a checked config. ps-lite `atoi`s whatever it finds; we refuse values
 * that cannot be meant (a role that is not one of the three, a port that is not 1..65535, a count
 * that is not a non-negative integer) with an MXNetError naming the variable.
 *
 * Deliberate difference: ps-lite's heartbeats are off unless PS_HEARTBEAT_INTERVAL is set, so a
 * dead worker hangs a dist_sync job forever. Here they default to 1 s interval / 10 s timeout; set
 * PS_HEARTBEAT_INTERVAL=0 (or PS_HEARTBEAT_TIMEOUT=0) to turn them off. When C++ nodes join, give
 * every process the same values (a C++ node without PS_HEARTBEAT_INTERVAL never beats, and our
 * scheduler would report it dead).
 *
 * Also ours: a barrier including a dead node fails at once, unless PS_RECOVERY_TIMEOUT gives a
 * restarted node time to take the dead one's place (ps-lite's recovery) — ps-lite just waits.
 */
import { MXNetError } from '@mx/base';
import type { Role } from './api.js';

/** The settings of one ps-lite node. */
export interface PsConfig {
  readonly role: Role;
  /** DMLC_PS_ROOT_URI / DMLC_PS_ROOT_PORT: where the scheduler listens. */
  readonly rootUri: string;
  readonly rootPort: number;
  readonly numServer: number;
  readonly numWorker: number;
  /** DMLC_NODE_HOST: the address this node binds and announces (else DMLC_INTERFACE's IPv4). */
  readonly nodeHost: string | undefined;
  readonly interface: string | undefined;
  /** PORT: the port this node binds (scheduler: DMLC_PS_ROOT_PORT); undefined = a free one. */
  readonly port: number | undefined;
  /** PS_VERBOSE: 0 quiet, 1 lifecycle, 2 every message. */
  readonly verbose: number;
  /** PS_RESEND (!= 0) and PS_RESEND_TIMEOUT (ms, default 1000). */
  readonly resend: boolean;
  readonly resendTimeoutMs: number;
  /** PS_HEARTBEAT_INTERVAL / PS_HEARTBEAT_TIMEOUT in seconds (ours default 1 / 10; 0 = off). */
  readonly heartbeatIntervalSec: number;
  readonly heartbeatTimeoutSec: number;
  /** PS_CONNECT_TIMEOUT (ours, seconds, default 60): how long to wait for the scheduler's node list. */
  readonly connectTimeoutSec: number;
  /**
   * PS_RECOVERY_TIMEOUT (ours, seconds, default 0): how long a barrier that includes a dead node
   * waits for a node to take its place (ps-lite's recovery) before failing. 0: it fails at once.
   */
  readonly recoveryTimeoutSec: number;
  /** PS_DROP_MSG: percent of received messages dropped on purpose (ps-lite's debug knob). */
  readonly dropRate: number;
  /** DMLC_PS_VAN_TYPE: only `zmq` (the default) here. */
  readonly vanType: string;
}

/** Defaults of the settings that are not ps-lite's. */
export const DEFAULT_HEARTBEAT_INTERVAL_SEC = 1;
export const DEFAULT_HEARTBEAT_TIMEOUT_SEC = 10;
export const DEFAULT_CONNECT_TIMEOUT_SEC = 60;

type Env = Readonly<Record<string, string | undefined>>;

function bad(name: string, value: string, want: string): MXNetError {
  return new MXNetError(`${name}=${JSON.stringify(value)} is not ${want}`, {
    op: 'pslite.config',
    params: { [name]: value },
    hint: `set ${name} to ${want}`,
  });
}

function required(env: Env, name: string, want: string): string {
  const v = env[name];
  if (v === undefined || v === '') {
    throw new MXNetError(`${name} is not set`, {
      op: 'pslite.config',
      hint: `set ${name} to ${want} (tools/launch.py / mx-launch set it for every process)`,
    });
  }
  return v;
}

function int(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
  want: string,
): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\s*[+-]?\d+\s*$/.test(value)) throw bad(name, value, want);
  const n = Number(value);
  if (!(n >= min && n <= max)) throw bad(name, value, want);
  return n;
}

function num(name: string, value: string | undefined, fallback: number, want: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw bad(name, value, want);
  return n;
}

const ROLES: Record<string, Role> = { server: 0, worker: 1, scheduler: 2 };

/** Reads and checks a node's settings; `overrides` win over `env`. */
export function readPsConfig(env: Env, overrides: Partial<PsConfig> = {}): PsConfig {
  const roleName = required(env, 'DMLC_ROLE', 'worker, server or scheduler');
  const role = ROLES[roleName];
  if (role === undefined) throw bad('DMLC_ROLE', roleName, 'worker, server or scheduler');
  const rootUri = required(env, 'DMLC_PS_ROOT_URI', "the scheduler's IP address");
  if (/[\s/]/.test(rootUri)) throw bad('DMLC_PS_ROOT_URI', rootUri, 'a host name or IP address');
  const rootPort = int(
    'DMLC_PS_ROOT_PORT',
    required(env, 'DMLC_PS_ROOT_PORT', "the scheduler's port"),
    1,
    65535,
    'a port number 1..65535',
  ) as number;
  const numServer = int(
    'DMLC_NUM_SERVER',
    required(env, 'DMLC_NUM_SERVER', 'the number of servers'),
    0,
    10000,
    'a number of servers 0..10000',
  ) as number;
  const numWorker = int(
    'DMLC_NUM_WORKER',
    required(env, 'DMLC_NUM_WORKER', 'the number of workers'),
    1,
    10000,
    'a number of workers 1..10000',
  ) as number;
  const vanType = env.DMLC_PS_VAN_TYPE || 'zmq';
  if (vanType !== 'zmq') throw bad('DMLC_PS_VAN_TYPE', vanType, "'zmq' (the only van of this transport)");
  const port = int('PORT', env.PORT, 1, 65535, 'a port number 1..65535');
  const config: PsConfig = {
    role,
    rootUri,
    rootPort,
    numServer,
    numWorker,
    nodeHost: env.DMLC_NODE_HOST || undefined,
    interface: env.DMLC_INTERFACE || undefined,
    port,
    verbose: int('PS_VERBOSE', env.PS_VERBOSE, 0, 100, '0, 1 or 2') ?? 0,
    resend: (int('PS_RESEND', env.PS_RESEND, 0, 2 ** 31, '0 or 1') ?? 0) !== 0,
    resendTimeoutMs:
      int('PS_RESEND_TIMEOUT', env.PS_RESEND_TIMEOUT, 1, 2 ** 31, 'a timeout in milliseconds') ?? 1000,
    heartbeatIntervalSec: num(
      'PS_HEARTBEAT_INTERVAL',
      env.PS_HEARTBEAT_INTERVAL,
      DEFAULT_HEARTBEAT_INTERVAL_SEC,
      'seconds >= 0',
    ),
    heartbeatTimeoutSec: num(
      'PS_HEARTBEAT_TIMEOUT',
      env.PS_HEARTBEAT_TIMEOUT,
      DEFAULT_HEARTBEAT_TIMEOUT_SEC,
      'seconds >= 0',
    ),
    connectTimeoutSec: num(
      'PS_CONNECT_TIMEOUT',
      env.PS_CONNECT_TIMEOUT,
      DEFAULT_CONNECT_TIMEOUT_SEC,
      'seconds >= 0',
    ),
    recoveryTimeoutSec: num('PS_RECOVERY_TIMEOUT', env.PS_RECOVERY_TIMEOUT, 0, 'seconds >= 0'),
    dropRate: int('PS_DROP_MSG', env.PS_DROP_MSG, 0, 100, 'a percentage 0..100') ?? 0,
    vanType,
    ...overrides,
  };
  return config;
}
