/**
 * Test helpers for the inference passes: build graphs the way MXNet's Python tests write symbols
 * (named variables, ops with MXNet string attrs) and read results back by node name, so a ported
 * test reads like the original. Not exported from the package.
 */
import type { Op, OpRegistry } from '@mx/ops';
import { IndexedGraph } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';
import type { InferInputs, InferResult } from './infer-engine.js';

type In = GraphNode | NodeEntry;

const toEntry = (x: In): NodeEntry => (x instanceof GraphNode ? entry(x) : x);

/** A small symbol builder over a registry. */
export class TestGraph {
  readonly reg: OpRegistry;

  constructor(reg: OpRegistry) {
    this.reg = reg;
  }

  /** `mx.sym.var(name, **hidden attrs)`. */
  v(name: string, attrs: Record<string, string> = {}): GraphNode {
    return GraphNode.variable(name, attrs);
  }

  /** An op node with MXNet string attrs. */
  op(
    opName: string,
    name: string,
    attrs: Record<string, string>,
    inputs: readonly In[],
    controlDeps: readonly GraphNode[] = [],
  ): GraphNode {
    const op: Op = this.reg.get(opName);
    return GraphNode.create(op, name, attrs, inputs.map(toEntry), controlDeps);
  }

  /** The indexed graph of these heads. */
  index(...heads: In[]): IndexedGraph {
    return new IndexedGraph(heads.map(toEntry));
  }
}

/** Node id of the node named `name` (throws when absent). */
export function idOf(idx: IndexedGraph, name: string): number {
  const i = idx.nodes.findIndex((n) => n.node.name === name);
  if (i < 0) throw new Error(`no node named ${name}`);
  return i;
}

/** `known.nodes` from variable names. */
export function byName<T>(idx: IndexedGraph, values: Record<string, T>): InferInputs<T> {
  return { nodes: new Map(Object.entries(values).map(([k, v]) => [idOf(idx, k), v])) };
}

/** The value of output `index` of the node named `name`. */
export function resultOf<T>(idx: IndexedGraph, res: InferResult<T>, name: string, index = 0): T | undefined {
  return res.values[idx.entryId(idOf(idx, name), index)];
}
