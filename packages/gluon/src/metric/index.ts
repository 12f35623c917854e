/**
 * `metric`: MXNet's evaluation metrics (2.0 `gluon.metric`, = 1.x `mx.metric`, with 1.x's
 * local/global statistics and NegativeLogLikelihood). The lead re-exports this module as the
 * `metric` namespace of @mx/gluon.
 */
export {
  checkLabelShapes,
  EvalMetric,
  type HostTensor,
  type MetricCommit,
  type MetricInput,
  type MetricOptions,
  type NameValue,
  readHost,
  SumMetric,
} from './base.js';
export {
  Accuracy,
  BinaryAccuracy,
  type ClassType,
  type ConfusionCounts,
  F1,
  type F1Options,
  Fbeta,
  fscoreOf,
  MCC,
  matthewsOf,
  TopKAccuracy,
} from './classification.js';
export {
  CustomMetric,
  type CustomMetricOptions,
  type CustomResult,
  type FEval,
  type HostFEval,
  Loss,
  np,
  Torch,
} from './custom.js';
export { CrossEntropy, type CrossEntropyOptions, NegativeLogLikelihood, Perplexity } from './probability.js';
export {
  type AnyMetric,
  CompositeEvalMetric,
  type CompositeOptions,
  create,
  createMetricRegistry,
  type MetricFactory,
  MetricRegistry,
  type MetricSpec,
} from './registry.js';
export {
  MAE,
  MeanCosineSimilarity,
  MeanPairwiseDistance,
  MSE,
  PCC,
  PearsonCorrelation,
  RMSE,
} from './regression.js';
