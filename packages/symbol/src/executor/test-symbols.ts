/**
 * Test helpers: symbols built straight from graph nodes (the executor depends only on
 * `{ outputs }`, so its tests do not wait for the Symbol API), and the test networks — LeNet and
 * the MLP of the golden generator (tools/golden/graph/executor.py), with MXNet's argument names.
 */
import { entry, GraphNode, type NodeEntry } from '@mx/graph';
import type { OpRegistry } from '@mx/ops';
import type { SymbolLike } from './graph.js';

export class Builder {
  constructor(readonly registry: OpRegistry) {}

  v(name: string, attrs: Record<string, string> = {}): NodeEntry {
    return entry(GraphNode.variable(name, attrs));
  }

  op(op: string, name: string, inputs: readonly NodeEntry[], attrs: Record<string, unknown> = {}): NodeEntry {
    const strs = Object.fromEntries(Object.entries(attrs).map(([k, x]) => [k, String(x)]));
    return entry(GraphNode.create(this.registry.get(op), name, strs, inputs));
  }

  /** A layer with MXNet's implicit parameter variables `<name>_weight`, `<name>_bias`. */
  layer(op: string, name: string, data: NodeEntry, attrs: Record<string, unknown>): NodeEntry {
    return this.op(op, name, [data, this.v(`${name}_weight`), this.v(`${name}_bias`)], attrs);
  }

  sym(...outputs: NodeEntry[]): SymbolLike {
    return { outputs };
  }
}

/** LeNet with SoftmaxOutput (arguments: data, conv1_*, conv2_*, fc1_*, fc2_*, softmax_label). */
export function lenet(b: Builder): SymbolLike {
  let x = b.v('data');
  x = b.layer('Convolution', 'conv1', x, { kernel: '(5, 5)', num_filter: 20 });
  x = b.op('Activation', 'tanh1', [x], { act_type: 'tanh' });
  x = b.op('Pooling', 'pool1', [x], { kernel: '(2, 2)', stride: '(2, 2)', pool_type: 'max' });
  x = b.layer('Convolution', 'conv2', x, { kernel: '(5, 5)', num_filter: 50 });
  x = b.op('Activation', 'tanh2', [x], { act_type: 'tanh' });
  x = b.op('Pooling', 'pool2', [x], { kernel: '(2, 2)', stride: '(2, 2)', pool_type: 'max' });
  x = b.op('Flatten', 'flatten', [x]);
  x = b.layer('FullyConnected', 'fc1', x, { num_hidden: 500 });
  x = b.op('Activation', 'tanh3', [x], { act_type: 'tanh' });
  x = b.layer('FullyConnected', 'fc2', x, { num_hidden: 10 });
  return b.sym(b.op('SoftmaxOutput', 'softmax', [x, b.v('softmax_label')]));
}

/** MLP 784-128-64-10 (relu) with Gluon's SoftmaxCrossEntropyLoss: -pick(log_softmax(x), label). */
export function mlp(b: Builder): SymbolLike {
  let x = b.v('data');
  x = b.layer('FullyConnected', 'fc1', x, { num_hidden: 128 });
  x = b.op('Activation', 'relu1', [x], { act_type: 'relu' });
  x = b.layer('FullyConnected', 'fc2', x, { num_hidden: 64 });
  x = b.op('Activation', 'relu2', [x], { act_type: 'relu' });
  x = b.layer('FullyConnected', 'fc3', x, { num_hidden: 10 });
  x = b.op('log_softmax', 'log_softmax', [x], { axis: -1 });
  x = b.op('pick', 'pick', [x, b.v('label')], { axis: -1 });
  return b.sym(b.op('negative', 'loss', [x]));
}
