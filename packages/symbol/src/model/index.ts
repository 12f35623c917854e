/**
 * Model files (MXNet `mx.model`): checkpoints — the symbol JSON and `arg:`/`aux:` parameters.
 */
export {
  type Checkpoint,
  type LoadCheckpointOptions,
  loadCheckpoint,
  paramsFile,
  type SaveCheckpointOptions,
  saveCheckpoint,
  symbolFile,
} from './checkpoint.js';
