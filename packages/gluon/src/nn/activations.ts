/**
 * Gluon's activation layers beyond `Activation` (MXNet 2.0 python/mxnet/gluon/nn/activations.py):
 * LeakyReLU, PReLU, ELU, SELU and GELU over the `LeakyReLU` operator's act_types, and Swish / SiLU
 * as x · sigmoid(βx) from elementwise ops (MXNet composes them the same way). PReLU's slope is a
 * parameter named `alpha` with one value shared or one per channel (axis 1).
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { HybridBlock } from '../block/hybrid-block.js';
import { Parameter, type ParamInitializer } from '../block/parameter.js';
import { Constant as ConstantInit } from '../init/fixed-inits.js';
import { checkPositive } from './layer-util.js';

/** Leaky ReLU: x for x >= 0, alpha · x below (MXNet `nn.LeakyReLU`). */
export class LeakyReLU extends HybridBlock {
  readonly alpha: number;

  constructor(alpha: number) {
    super();
    if (!(alpha >= 0)) {
      throw new MXNetError(`LeakyReLU: slope coefficient for LeakyReLU must be no less than 0, got ${alpha}`);
    }
    this.alpha = alpha;
  }

  forward(x: NDArray): NDArray {
    return x.runtime.nd.LeakyReLU(x, { act_type: 'leaky', slope: this.alpha });
  }

  override toString(): string {
    return `${this.blockName}(${this.alpha})`;
  }
}

export interface PReLUOptions {
  /** Initializer of the slopes (default Constant(0.25)). */
  readonly alphaInitializer?: ParamInitializer | string;
  /** Number of slopes: 1 (shared) or the channel count, axis 1 of the input (default 1). */
  readonly inChannels?: number;
}

/** Parametric leaky ReLU with learned slopes `alpha` (MXNet `nn.PReLU`). */
export class PReLU extends HybridBlock {
  readonly alpha: Parameter;

  constructor(options: PReLUOptions = {}) {
    super();
    const c = options.inChannels ?? 1;
    checkPositive('PReLU', 'inChannels', c);
    this.alpha = new Parameter('alpha', {
      shape: [c],
      init: options.alphaInitializer ?? new ConstantInit(0.25),
    });
  }

  forward(x: NDArray): NDArray {
    const c = this.alpha.shape?.[0] ?? 1;
    if (c !== 1 && x.shape[1] !== c) {
      throw new MXNetError(
        `PReLU has ${c} slopes (one per channel) but got input of shape (${x.shape.join(', ')}), with ${x.shape[1] ?? 'no'} channels on axis 1`,
        {
          shapes: [x.shape],
          hint: 'build PReLU with inChannels equal to the channel count, or 1 for one shared slope',
        },
      );
    }
    return x.runtime.nd.LeakyReLU(x, this.alpha.data(), { act_type: 'prelu' });
  }
}

/** Exponential linear unit: x for x > 0, alpha · (exp(x) - 1) below (MXNet `nn.ELU`). */
export class ELU extends HybridBlock {
  readonly alpha: number;

  constructor(alpha = 1.0) {
    super();
    this.alpha = alpha;
  }

  forward(x: NDArray): NDArray {
    return x.runtime.nd.LeakyReLU(x, { act_type: 'elu', slope: this.alpha });
  }
}

/** Scaled exponential linear unit (MXNet `nn.SELU`). */
export class SELU extends HybridBlock {
  forward(x: NDArray): NDArray {
    return x.runtime.nd.LeakyReLU(x, { act_type: 'selu' });
  }
}

/** Gaussian error linear unit, exact ('erf') or with the tanh approximation (MXNet `nn.GELU`). */
export class GELU extends HybridBlock {
  readonly approximation: 'erf' | 'tanh';

  constructor(approximation: 'erf' | 'tanh' = 'erf') {
    super();
    if (approximation !== 'erf' && approximation !== 'tanh') {
      throw new MXNetError(
        `GELU: unsupported approximation! Supported values are 'erf' and 'tanh', but got '${String(approximation)}'`,
      );
    }
    this.approximation = approximation;
  }

  forward(x: NDArray): NDArray {
    return x.runtime.nd.LeakyReLU(x, { act_type: this.approximation === 'erf' ? 'gelu_erf' : 'gelu_tanh' });
  }
}

/** Swish: x · sigmoid(beta · x) (MXNet `nn.Swish`). */
export class Swish extends HybridBlock {
  readonly beta: number;

  constructor(beta = 1.0) {
    super();
    this.beta = beta;
  }

  forward(x: NDArray): NDArray {
    const nd = x.runtime.nd;
    return nd.elemwise_mul(x, nd.sigmoid(nd._mul_scalar(x, { scalar: this.beta })));
  }
}

/** Sigmoid linear unit: x · sigmoid(x) (MXNet `nn.SiLU`). */
export class SiLU extends HybridBlock {
  forward(x: NDArray): NDArray {
    const nd = x.runtime.nd;
    return nd.elemwise_mul(x, nd.sigmoid(x));
  }
}
