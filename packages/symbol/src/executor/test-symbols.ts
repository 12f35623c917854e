/**
 * Test helpers: symbols built straight from graph nodes (`Builder`: the executor depends only on
 * `{ outputs }`), and the test networks built with `sym.*` as a user writes them — LeNet and the
 * MLP of the golden generator (tools/golden/graph/executor.py), with MXNet's argument names.
 */
import { entry, GraphNode, type NodeEntry } from '@mx/graph';
import type { OpRegistry } from '@mx/ops';
import { SymbolApi } from '../symbol/index.js';
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

/** LeNet with SoftmaxOutput (arguments: data, conv1_*, conv2_*, fc1_*, fc2_*, softmax_label), built with sym.*. */
export function lenet(b: Builder): SymbolLike {
  const sym = new SymbolApi(b.registry);
  let x = sym.var('data');
  x = sym.Convolution(x, { kernel: [5, 5], num_filter: 20, name: 'conv1' });
  x = sym.Activation(x, { act_type: 'tanh', name: 'tanh1' });
  x = sym.Pooling(x, { kernel: [2, 2], stride: [2, 2], pool_type: 'max', name: 'pool1' });
  x = sym.Convolution(x, { kernel: [5, 5], num_filter: 50, name: 'conv2' });
  x = sym.Activation(x, { act_type: 'tanh', name: 'tanh2' });
  x = sym.Pooling(x, { kernel: [2, 2], stride: [2, 2], pool_type: 'max', name: 'pool2' });
  x = sym.Flatten(x, { name: 'flatten' });
  x = sym.FullyConnected(x, { num_hidden: 500, name: 'fc1' });
  x = sym.Activation(x, { act_type: 'tanh', name: 'tanh3' });
  x = sym.FullyConnected(x, { num_hidden: 10, name: 'fc2' });
  return sym.SoftmaxOutput(x, { name: 'softmax' });
}

/** MLP 784-128-64-10 (relu) with Gluon's SoftmaxCrossEntropyLoss: -pick(log_softmax(x), label), built with sym.*. */
export function mlp(b: Builder): SymbolLike {
  const sym = new SymbolApi(b.registry);
  let x = sym.var('data');
  x = sym.FullyConnected(x, { num_hidden: 128, name: 'fc1' });
  x = sym.Activation(x, { act_type: 'relu', name: 'relu1' });
  x = sym.FullyConnected(x, { num_hidden: 64, name: 'fc2' });
  x = sym.Activation(x, { act_type: 'relu', name: 'relu2' });
  x = sym.FullyConnected(x, { num_hidden: 10, name: 'fc3' });
  x = sym.log_softmax(x, { axis: -1, name: 'log_softmax' });
  x = sym.pick(x, sym.var('label'), { axis: -1, name: 'pick' });
  return sym.negative(x, { name: 'loss' });
}
