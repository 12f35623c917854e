/**
 * A simulated device for the overlap benchmark: a worker thread that executes queued "kernels" in
 * order, each busy-waiting `ms` of device time, and reports each completion back. It stands in for
 * a GPU queue or a compute worker: the engine must keep it fed while JavaScript runs ahead.
 */
import { Worker } from 'node:worker_threads';

const SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, ms }) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
  parentPort.postMessage(id);
});
`;

export class SimulatedDevice {
  readonly #worker = new Worker(SOURCE, { eval: true });
  readonly #waiting = new Map<number, () => void>();
  #next = 0;

  constructor() {
    this.#worker.on('message', (id: number) => {
      const done = this.#waiting.get(id);
      this.#waiting.delete(id);
      done?.();
    });
  }

  /** Queue a kernel of `ms` device time; `done` runs on the main thread when it finishes. */
  launch(ms: number, done: () => void): void {
    const id = this.#next++;
    this.#waiting.set(id, done);
    this.#worker.postMessage({ id, ms });
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}
