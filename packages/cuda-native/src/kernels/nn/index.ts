/**
 * The neural-network layers on cuda-native, in two sub-families so they can grow independently:
 * conv (convolution, pooling, normalisation) and layers (activations, softmax family, outputs,
 * dropout, sequences, embedding).
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../kernel.js';
import { installNnConv } from './conv/index.js';
import { LEFT_OUT as convLeftOut } from './conv/left-out.js';
import { installNnLayers } from './layers/index.js';
import { LEFT_OUT as layersLeftOut } from './layers/left-out.js';

export function installNn(registry: OpRegistry, host: CudaHost): void {
  installNnConv(registry, host);
  installNnLayers(registry, host);
}

export const LEFT_OUT: Readonly<Record<string, string>> = { ...convLeftOut, ...layersLeftOut };
