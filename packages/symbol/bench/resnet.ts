/**
 * ResNet symbols built the way MXNet's example/image-classification/symbols/resnet.py builds them
 * (pre-activation "Identity Mappings" units): the same ops, parameters and node names, so the
 * memory benchmark plans the graph MXNet's `train_imagenet.py --network resnet --num-layers 50`
 * would bind. Only the float32 path is built (resnet.py's `identity` node `id` on the data).
 */
import type { Symbol as MxSymbol, SymbolApi } from '@mx/symbol';

const BN = { fix_gamma: false, eps: 2e-5, momentum: 0.9 } as const;

/** resnet.py's `residual_unit` with `bottle_neck=True` (memonger off). */
function residualUnit(
  sym: SymbolApi,
  data: MxSymbol,
  numFilter: number,
  stride: [number, number],
  dimMatch: boolean,
  name: string,
): MxSymbol {
  const quarter = Math.trunc(numFilter * 0.25);
  const bn1 = sym.BatchNorm(data, { ...BN, name: `${name}_bn1` });
  const act1 = sym.Activation(bn1, { act_type: 'relu', name: `${name}_relu1` });
  const conv1 = sym.Convolution(act1, {
    num_filter: quarter,
    kernel: [1, 1],
    stride: [1, 1],
    pad: [0, 0],
    no_bias: true,
    workspace: 256,
    name: `${name}_conv1`,
  });
  const bn2 = sym.BatchNorm(conv1, { ...BN, name: `${name}_bn2` });
  const act2 = sym.Activation(bn2, { act_type: 'relu', name: `${name}_relu2` });
  const conv2 = sym.Convolution(act2, {
    num_filter: quarter,
    kernel: [3, 3],
    stride,
    pad: [1, 1],
    no_bias: true,
    workspace: 256,
    name: `${name}_conv2`,
  });
  const bn3 = sym.BatchNorm(conv2, { ...BN, name: `${name}_bn3` });
  const act3 = sym.Activation(bn3, { act_type: 'relu', name: `${name}_relu3` });
  const conv3 = sym.Convolution(act3, {
    num_filter: numFilter,
    kernel: [1, 1],
    stride: [1, 1],
    pad: [0, 0],
    no_bias: true,
    workspace: 256,
    name: `${name}_conv3`,
  });
  const shortcut = dimMatch
    ? data
    : sym.Convolution(act1, {
        num_filter: numFilter,
        kernel: [1, 1],
        stride,
        no_bias: true,
        workspace: 256,
        name: `${name}_sc`,
      });
  return conv3.add(shortcut); // `conv3 + shortcut`: _Plus
}

/**
 * resnet.py's `resnet(units, num_stages, filter_list, num_classes, image_shape)` for an ImageNet
 * input (height > 32), bottleneck units, float32: ResNet-50 is units [3, 4, 6, 3] with
 * filter_list [64, 256, 512, 1024, 2048] and 1000 classes.
 */
export function resnetSymbol(
  sym: SymbolApi,
  units: readonly number[] = [3, 4, 6, 3],
  filterList: readonly number[] = [64, 256, 512, 1024, 2048],
  numClasses = 1000,
): MxSymbol {
  let data = sym.var('data');
  data = sym.identity(data, { name: 'id' });
  data = sym.BatchNorm(data, { fix_gamma: true, eps: 2e-5, momentum: 0.9, name: 'bn_data' });
  let body = sym.Convolution(data, {
    num_filter: filterList[0] as number,
    kernel: [7, 7],
    stride: [2, 2],
    pad: [3, 3],
    no_bias: true,
    workspace: 256,
    name: 'conv0',
  });
  body = sym.BatchNorm(body, { ...BN, name: 'bn0' });
  body = sym.Activation(body, { act_type: 'relu', name: 'relu0' });
  body = sym.Pooling(body, { kernel: [3, 3], stride: [2, 2], pad: [1, 1], pool_type: 'max' });
  units.forEach((n, i) => {
    const s = i === 0 ? 1 : 2;
    const f = filterList[i + 1] as number;
    body = residualUnit(sym, body, f, [s, s], false, `stage${i + 1}_unit1`);
    for (let j = 0; j < n - 1; j++)
      body = residualUnit(sym, body, f, [1, 1], true, `stage${i + 1}_unit${j + 2}`);
  });
  const bn1 = sym.BatchNorm(body, { ...BN, name: 'bn1' });
  const relu1 = sym.Activation(bn1, { act_type: 'relu', name: 'relu1' });
  const pool1 = sym.Pooling(relu1, { global_pool: true, kernel: [7, 7], pool_type: 'avg', name: 'pool1' });
  const flat = sym.Flatten(pool1);
  const fc1 = sym.FullyConnected(flat, { num_hidden: numClasses, name: 'fc1' });
  return sym.SoftmaxOutput(fc1, { name: 'softmax' });
}
