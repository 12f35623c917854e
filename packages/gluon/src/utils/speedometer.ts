/**
 * A training-loop progress reporter in MXNet's `mx.callback.Speedometer` format ("Epoch[0] Batch
 * [0-50]\tSpeed: 812.31 samples/sec\taccuracy=0.912000"), logging every `frequent` batches — or,
 * given a progress bar (e.g. a cli-progress `SingleBar` in a terminal), updating that instead. The
 * bar is passed in rather than imported, so @mx/gluon stays free of Node-only modules in browsers.
 */

/** What a metric offers the reporter (EvalMetric's `getNameValue`, `resetLocal`). */
export interface ReportedMetric {
  getNameValue(): readonly (readonly [string, number])[];
  resetLocal?(): void;
  reset?(): void;
}

/** The part of a progress bar used (cli-progress's SingleBar has it). */
export interface ProgressBarLike {
  start(total: number, start: number, payload?: Record<string, unknown>): void;
  update(value: number, payload?: Record<string, unknown>): void;
  stop(): void;
}

export interface SpeedometerOptions {
  /** Report every this many batches (MXNet `frequent`, default 50). */
  readonly frequent?: number;
  /** Reset the metric's local values after each report (MXNet `auto_reset`, default true). */
  readonly autoReset?: boolean;
  /** Where lines go; default console.log. */
  readonly log?: (line: string) => void;
  /** A bar to update instead of logging lines; payload: `speed` (samples/s) and the metric values. */
  readonly bar?: ProgressBarLike;
  /** Batches per epoch, for the bar's total. */
  readonly batchesPerEpoch?: number;
}

/** MXNet's Speedometer for one training loop. */
export class Speedometer {
  readonly batchSize: number;
  readonly frequent: number;
  readonly autoReset: boolean;
  readonly #log: (line: string) => void;
  readonly #bar: ProgressBarLike | undefined;
  readonly #total: number;
  #tic = 0;
  #last = -1;
  #epoch = -1;

  constructor(batchSize: number, options: SpeedometerOptions = {}) {
    this.batchSize = batchSize;
    this.frequent = options.frequent ?? 50;
    this.autoReset = options.autoReset ?? true;
    this.#log = options.log ?? ((l) => console.log(l));
    this.#bar = options.bar;
    this.#total = options.batchesPerEpoch ?? 0;
  }

  /** Call after each batch with its epoch and index (0-based) and the training metric. */
  onBatch(epoch: number, nbatch: number, metric?: ReportedMetric): void {
    const now = performance.now();
    if (epoch !== this.#epoch || nbatch < this.#last) {
      this.#bar?.stop();
      this.#epoch = epoch;
      this.#tic = now;
      this.#last = nbatch;
      this.#bar?.start(this.#total, 0, { speed: '-', epoch });
      return;
    }
    this.#last = nbatch;
    if (nbatch % this.frequent !== 0) return;
    const speed = (this.frequent * this.batchSize) / ((now - this.#tic) / 1000);
    const pairs = metric?.getNameValue() ?? [];
    if (this.#bar !== undefined) {
      const payload: Record<string, unknown> = { speed: speed.toFixed(2), epoch };
      for (const [n, v] of pairs) payload[n] = v.toFixed(4);
      this.#bar.update(nbatch, payload);
    } else {
      const values = pairs.map(([n, v]) => `\t${n}=${v.toFixed(6)}`).join('');
      this.#log(
        `Epoch[${epoch}] Batch [${nbatch - this.frequent}-${nbatch}]\tSpeed: ${speed.toFixed(2)} samples/sec${values}`,
      );
    }
    if (this.autoReset && metric !== undefined) (metric.resetLocal ?? metric.reset)?.call(metric);
    this.#tic = performance.now();
  }

  /** Ends the current bar (if any). */
  stop(): void {
    this.#bar?.stop();
  }
}
