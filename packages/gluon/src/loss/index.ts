/**
 * Gluon's losses (MXNet 2.0 `gluon.loss`), exported as the `loss` namespace of @mx/gluon. Every
 * loss is a HybridBlock: call `lossFn.forward(pred, label, sampleWeight?)` and get one value per
 * sample; record it under autograd and call `.backward()` to train.
 */
export {
  CTCLoss,
  type CTCLossOptions,
  KLDivLoss,
  type KLDivLossOptions,
  SigmoidBCELoss,
  type SigmoidBCELossOptions,
  SigmoidBinaryCrossEntropyLoss,
  SoftmaxCELoss,
  type SoftmaxCELossOptions,
  SoftmaxCrossEntropyLoss,
} from './classification.js';
export { CosineEmbeddingLoss, SDMLLoss, type SDMLLossOptions, TripletLoss } from './embedding.js';
export { Loss, type LossOptions } from './loss.js';
export {
  HingeLoss,
  HuberLoss,
  type HuberLossOptions,
  L1Loss,
  L2Loss,
  LogisticLoss,
  type LogisticLossOptions,
  type MarginLossOptions,
  PoissonNLLLoss,
  type PoissonNLLLossOptions,
  SquaredHingeLoss,
} from './regression.js';
