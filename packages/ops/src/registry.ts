/**
 * OpRegistry: the operators one program can use, and their kernels per backend.
 *
 * MXNet keeps one process-wide nnvm registry; here a registry is an object (a runtime owns one), so
 * two programs, or a test and the default runtime, never see each other's registrations. Lookup is
 * by name or alias. Kernels are registered per backend name; an elementwise (SimpleOp) op with no
 * registered kernel gets one from the backend's expression compiler on first lookup, cached on the
 * op, so adding a SimpleOp needs no backend change at all.
 */
import { MXNetError } from '@mx/base';
import { elementwiseGradient } from './elementwise-grad.js';
import type { GradientSpec } from './gradient.js';
import { Op, type OpDef } from './op-def.js';
import type { ParamSchema } from './params.js';
import type { Attrs, Kernel } from './types.js';

/** Builds a kernel for an elementwise op from its expression (a backend's SimpleOp compiler). */
export type ElementwiseCompiler = (op: Op) => Kernel;

/** Builds a kernel for a fused reduction (`OpDef.fusedReduce`) on one backend. */
export type FusedReduceCompiler = (op: Op) => Kernel;

/** Closest names by edit distance, for "did you mean" hints. */
function nearest(name: string, candidates: Iterable<string>, max = 3): string[] {
  const dist = (a: string, b: string): number => {
    const d = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = d[0] as number;
      d[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const tmp = d[j] as number;
        d[j] = Math.min(
          (d[j] as number) + 1,
          (d[j - 1] as number) + 1,
          prev + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
        prev = tmp;
      }
    }
    return d[b.length] as number;
  };
  const lower = name.toLowerCase();
  return [...candidates]
    .map((c) => [c, dist(lower, c.toLowerCase())] as const)
    .filter(([, d]) => d <= Math.max(2, name.length / 3))
    .sort((a, b) => a[1] - b[1])
    .slice(0, max)
    .map(([c]) => c);
}

export class OpRegistry {
  readonly #ops = new Map<string, Op>();
  readonly #byName = new Map<string, Op>();
  readonly #compilers = new Map<string, ElementwiseCompiler>();
  readonly #reduceCompilers = new Map<string, FusedReduceCompiler>();
  /** Kernels registered before their op was defined: op name → backend → kernel. */
  readonly #pending = new Map<string, Map<string, Kernel>>();
  readonly #gradients = new Map<Op, GradientSpec | undefined>();

  /** Register an operator; its name and aliases must be new. */
  define<S extends ParamSchema>(def: OpDef<S>): Op<S> {
    const op = new Op(def);
    for (const n of [op.name, ...op.aliases]) {
      if (this.#byName.has(n)) {
        throw new MXNetError(`operator name '${n}' is already registered`, {
          op: op.name,
          hint: 'pick another name or alias',
        });
      }
    }
    this.#ops.set(op.name, op as unknown as Op);
    for (const n of [op.name, ...op.aliases]) {
      this.#byName.set(n, op as unknown as Op);
      const waiting = this.#pending.get(n);
      if (waiting) {
        for (const [backend, kernel] of waiting) op.kernels.set(backend, kernel);
        this.#pending.delete(n);
      }
    }
    return op;
  }

  /** The op with this name or alias, or undefined. */
  find(name: string): Op | undefined {
    return this.#byName.get(name);
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The op with this name or alias; an MXNetError with close names otherwise. */
  get(name: string): Op {
    const op = this.#byName.get(name);
    if (op) return op;
    const close = nearest(name, this.#byName.keys());
    throw new MXNetError(`operator ${name} is not registered`, {
      op: name,
      hint:
        close.length > 0
          ? `did you mean ${close.join(', ')}?`
          : 'see registry.list() for the registered operators',
    });
  }

  /** Every registered op (not aliases), sorted by name. */
  list(): Op[] {
    return [...this.#ops.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Every name and alias. */
  names(): string[] {
    return [...this.#byName.keys()].sort();
  }

  /**
   * Register `backend`'s kernel for an op (replacing an earlier one). An op not defined yet gets the
   * kernel when it is defined, so backends and operator packages can be installed in any order (and
   * a backend can carry kernels for ops a registry does not define); `pendingKernels()` lists them.
   */
  registerKernel<A extends Attrs = Attrs>(opName: string, backend: string, kernel: Kernel<A>): void {
    const op = this.#byName.get(opName);
    if (op) {
      op.kernels.set(backend, kernel as unknown as Kernel);
      return;
    }
    let m = this.#pending.get(opName);
    if (!m) {
      m = new Map();
      this.#pending.set(opName, m);
    }
    m.set(backend, kernel as unknown as Kernel);
  }

  /** Kernels waiting for an op definition: `[opName, backend]` pairs. */
  pendingKernels(): [string, string][] {
    return [...this.#pending].flatMap(([op, m]) => [...m.keys()].map((b) => [op, b] as [string, string]));
  }

  /** Register `backend`'s compiler of fused reductions (graph fusion's reduce prologues). */
  registerFusedReduceCompiler(backend: string, compiler: FusedReduceCompiler): void {
    this.#reduceCompilers.set(backend, compiler);
  }

  /** Whether `backend` compiles fused reductions (graph passes build them only then). */
  compilesFusedReduce(backend: string): boolean {
    return this.#reduceCompilers.has(backend);
  }

  /** Register `backend`'s SimpleOp expression compiler. */
  registerElementwiseCompiler(backend: string, compiler: ElementwiseCompiler): void {
    this.#compilers.set(backend, compiler);
  }

  /** The kernel of `op` on `backend`, compiling an elementwise op on first use; undefined if none. */
  kernel(op: Op, backend: string): Kernel | undefined {
    const k = op.kernels.get(backend);
    if (k !== undefined) return k;
    if (op.def.compositeKernel !== undefined) {
      const built = op.def.compositeKernel((name) => this.kernel(this.get(name), backend));
      if (built !== undefined) op.kernels.set(backend, built);
      return built;
    }
    if (op.def.fusedReduce !== undefined) {
      const built = this.#reduceCompilers.get(backend)?.(op);
      if (built !== undefined) op.kernels.set(backend, built);
      return built;
    }
    if (op.elementwise === undefined) return k;
    const compiler = this.#compilers.get(backend);
    if (compiler === undefined) return undefined;
    const compiled = compiler(op);
    op.kernels.set(backend, compiled);
    return compiled;
  }

  /**
   * The gradient of `op` (MXNet `FGradient`): its declared one, or for an elementwise op the one
   * derived from its expressions (defining the `_backward_*` ops on first use); undefined when the
   * op is not differentiable.
   */
  gradient(op: Op): GradientSpec | undefined {
    const cached = this.#gradients.get(op);
    if (cached !== undefined || this.#gradients.has(op)) return cached;
    let spec = op.def.gradient as GradientSpec | undefined;
    if (spec === undefined && op.elementwise?.gradient !== undefined) {
      const nIn = op.elementwise.gradient.length;
      spec = elementwiseGradient(op, nIn, (plan) => {
        if (!this.#byName.has(plan.name)) this.define(plan.def);
      });
    }
    this.#gradients.set(op, spec);
    return spec;
  }

  /** Backends that have a kernel (or an expression compiler) for `op`. */
  backendsFor(op: Op): string[] {
    const out = new Set(op.kernels.keys());
    if (op.elementwise) for (const b of this.#compilers.keys()) out.add(b);
    if (op.def.fusedReduce) for (const b of this.#reduceCompilers.keys()) out.add(b);
    if (op.def.compositeKernel) for (const b of this.#compilers.keys()) if (this.kernel(op, b)) out.add(b);
    return [...out].sort();
  }
}
