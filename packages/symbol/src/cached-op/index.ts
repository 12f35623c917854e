/**
 * CachedOp (MXNet 2.0 `mx.nd.CachedOp`): a symbol called like an operator, its compiled graphs
 * cached per input signature, recorded by autograd as one node.
 */
export { CachedOp, type CachedOpOptions, type CachedOpStats } from './cached-op.js';
