/**
 * A dataset built by a function exported from an ES module, so that DataLoader workers can build
 * the same dataset in their own thread (the escape hatch for datasets that are not arrays: files
 * read lazily, generated data…). The factory takes one structured-clonable argument and returns
 * (or resolves to) an object with `length` and `get(i)`; its samples should be host values
 * (numbers, host arrays, lists, strings) so that both threads see the same thing.
 */
import { MXNetError } from '@mx/base';
import { checkIndex, Dataset } from './dataset.js';
import { type ModuleRef, moduleUrl, type WorkerDatasetSpec } from './worker-spec.js';

interface Reader<T> {
  readonly length: number;
  get(index: number): T;
}

export class ModuleDataset<T = unknown> extends Dataset<T> {
  readonly #reader: Reader<T>;
  readonly #spec: WorkerDatasetSpec;

  private constructor(reader: Reader<T>, spec: WorkerDatasetSpec) {
    super();
    this.#reader = reader;
    this.#spec = spec;
  }

  /**
   * Import `module` (a URL or an absolute path), call its export `name` with `args` and wrap the
   * result. Workers repeat exactly this in their thread.
   */
  static async load<T = unknown>(
    module: string | ModuleRef,
    name: string,
    args?: unknown,
  ): Promise<ModuleDataset<T>> {
    const url = moduleUrl(module, 'ModuleDataset');
    const mod = (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
    const factory = mod[name];
    if (typeof factory !== 'function') {
      throw new MXNetError(`module ${url} has no exported function '${name}'`, {
        op: 'ModuleDataset',
        hint: `export a factory: export function ${name}(args) { return { length, get(i) { ... } }; }`,
      });
    }
    const reader = (await factory(args)) as Reader<T> | null;
    if (
      reader === null ||
      typeof reader !== 'object' ||
      typeof reader.get !== 'function' ||
      !Number.isInteger(reader.length)
    ) {
      throw new MXNetError(`${name}() in ${url} did not return an object with an integer length and get(i)`, {
        op: 'ModuleDataset',
      });
    }
    return new ModuleDataset<T>(reader, { kind: 'module', module: url, name, args });
  }

  get length(): number {
    return this.#reader.length;
  }

  get(index: number): T {
    checkIndex(index, this.length, 'ModuleDataset.get');
    return this.#reader.get(index);
  }

  override workerSpec(): WorkerDatasetSpec {
    return this.#spec;
  }
}
