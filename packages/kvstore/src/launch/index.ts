/**
 * `mx-launch` (MXNet's tools/launch.py with dmlc-core's local and ssh trackers): start a ps-lite
 * job's scheduler, servers and workers with the DMLC_* environment, forward their output with role
 * prefixes, stop them all when one fails. Node only (child processes); the package index re-exports
 * this folder's public API, and bin/mx-launch.js runs `launchMain`.
 */
export {
  DEFAULT_GRACE_MS,
  type EnvPair,
  type LaunchArgs,
  type LauncherKind,
  launchUsage,
  parseEnvPair,
  parseLaunchArgs,
} from './args.js';
export {
  type BuildEnvOptions,
  buildEnv,
  findFreePort,
  guessHostIp,
  type LaunchRole,
  pickEnv,
} from './env.js';
export {
  type JobResult,
  type LaunchedProcess,
  type LaunchHandle,
  type LaunchOutput,
  type ProcessExit,
  type ProcessSpec,
  processLabel,
  type RunJobOptions,
  runJob,
} from './job.js';
export {
  type JobOptions,
  launchLocal,
  launchSsh,
  localProgram,
  planLocal,
  planSsh,
  type SshJobOptions,
  type SshPlanEntry,
} from './launchers.js';
export { type LaunchMainIO, launchMain } from './main.js';
export {
  type BuiltCommand,
  parseHostfile,
  rsyncCommand,
  SSH_FORWARDED_VARS,
  type SshCommandOptions,
  type SshHost,
  shellQuote,
  sshCommand,
} from './ssh.js';
