/**
 * `SymbolBlock` (MXNet `gluon.SymbolBlock`): a block around a loaded graph, so a model exported by
 * MXNet 1.x or 2.0 (`-symbol.json` + `.params`) or by `HybridBlock.export` runs, trains and
 * re-exports like any block. Every graph input that is not a data input becomes a Parameter named
 * as in the graph (aux states are non-differentiable), and forward calls one CachedOp.
 */
import { type Context, MXNetError, parseShape } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { CachedOp, type Symbol as MxSymbol, SymbolApi } from '@mx/symbol';
import { HybridBlock } from './hybrid-block.js';
import { Parameter } from './parameter.js';

export interface ImportsOptions {
  /** Runtime to load into (@mx has no global runtime; @mx/mxnet passes its default). */
  readonly runtime: Runtime;
  readonly ctx?: Context;
  /** Leave parameters missing from the file uninitialized instead of failing. */
  readonly allowMissing?: boolean;
  readonly ignoreExtra?: boolean;
}

/** A block whose forward is a given symbol. */
export class SymbolBlock extends HybridBlock {
  readonly symbol: MxSymbol;
  readonly inputNames: readonly string[];
  readonly #order: readonly string[];
  readonly #paramsByName = new Map<string, Parameter>();
  #op: CachedOp | undefined;

  /**
   * Wraps `outputs` with `inputs` as its data inputs (names of variables in the graph). Its other
   * inputs become parameters, reachable through `collectParams()` by their graph names.
   */
  constructor(outputs: MxSymbol, inputs: readonly string[]) {
    super();
    const all = outputs.listInputs();
    for (const n of inputs) {
      if (!all.includes(n)) {
        throw new MXNetError(
          `SymbolBlock: input '${n}' is not an input of the graph, whose inputs are ${all.join(', ')}`,
        );
      }
    }
    this.symbol = outputs;
    this.inputNames = [...inputs];
    this.#order = all;
    const aux = new Set(outputs.listAuxiliaryStates());
    const attrs = outputs.attrDict();
    for (const n of all) {
      if (inputs.includes(n)) continue;
      const shape = attrs[n]?.__shape__;
      const p = new Parameter(n, {
        shape: shape === undefined ? undefined : parseShape(shape),
        differentiable: !aux.has(n),
        gradReq: aux.has(n) ? 'null' : 'write',
        allowDeferredInit: true,
      });
      this.#paramsByName.set(n, p);
    }
  }

  /** The graph's parameters by their names in the graph (what `.params` files key them by). */
  override get params(): Map<string, Parameter> {
    return new Map(this.#paramsByName);
  }

  /**
   * Loads an exported model (MXNet `SymbolBlock.imports(symbol_file, input_names, param_file)`):
   * the graph from `symbolFile`, and the parameters from `paramFile` (keys with or without
   * `arg:`/`aux:`), checked name by name.
   */
  static async imports(
    symbolFile: string,
    inputNames: string | readonly string[],
    paramFile: string | undefined,
    options: ImportsOptions,
  ): Promise<SymbolBlock> {
    const api = new SymbolApi(options.runtime);
    const sym = await api.load(symbolFile);
    const block = new SymbolBlock(sym, typeof inputNames === 'string' ? [inputNames] : inputNames);
    if (paramFile !== undefined) {
      await block.loadParameters(paramFile, {
        runtime: options.runtime,
        ctx: options.ctx,
        allowMissing: options.allowMissing,
        ignoreExtra: options.ignoreExtra,
        castDtype: true,
        dtypeSource: 'saved',
      });
    }
    return block;
  }

  /** Already a graph: hybridizing changes nothing (MXNet allows the call). */
  override hybridize(): this {
    return this;
  }

  /** The wrapped symbol and the parameters by graph name (what `export` writes). */
  override exportSymbol(): {
    symbol: MxSymbol;
    argParams: Record<string, NDArray>;
    auxParams: Record<string, NDArray>;
  } {
    const aux = new Set(this.symbol.listAuxiliaryStates());
    const argParams: Record<string, NDArray> = {};
    const auxParams: Record<string, NDArray> = {};
    for (const [n, p] of this.#paramsByName) (aux.has(n) ? auxParams : argParams)[n] = p.data();
    return { symbol: this.symbol, argParams, auxParams };
  }

  override inferShape(...args: NDArray[]): void {
    const shapes: Record<string, readonly number[]> = {};
    this.inputNames.forEach((n, i) => {
      const a = args[i];
      if (a !== undefined) shapes[n] = a.shape;
    });
    const { argShapes, auxShapes } = this.symbol.inferShape(shapes);
    const args0 = this.symbol.listArguments();
    const aux0 = this.symbol.listAuxiliaryStates();
    args0.forEach((n, i) => {
      const p = this.#paramsByName.get(n);
      const s = argShapes?.[i];
      if (p !== undefined && s !== undefined) p.shape = s;
    });
    aux0.forEach((n, i) => {
      const p = this.#paramsByName.get(n);
      const s = auxShapes?.[i];
      if (p !== undefined && s !== undefined) p.shape = s;
    });
  }

  forward(...xs: NDArray[]): NDArray | NDArray[] {
    if (xs.length !== this.inputNames.length) {
      throw new MXNetError(
        `SymbolBlock expects ${this.inputNames.length} inputs (${this.inputNames.join(', ')}), got ${xs.length}`,
      );
    }
    const rt = (xs[0] as NDArray).runtime;
    if (rt.dc.isDeferredCompute()) {
      throw new MXNetError('SymbolBlock inside a hybridized parent is not supported yet', {
        hint: 'hybridize the SymbolBlock itself, or run the parent without hybridize()',
      });
    }
    this.#op ??= new CachedOp(rt, this.symbol, { name: 'SymbolBlock' });
    const args = this.#order.map((n) => {
      const k = this.inputNames.indexOf(n);
      return k >= 0 ? (xs[k] as NDArray) : (this.#paramsByName.get(n) as Parameter).data();
    });
    const outs = this.#op.call(...args);
    return outs.length === 1 ? (outs[0] as NDArray) : outs;
  }
}
