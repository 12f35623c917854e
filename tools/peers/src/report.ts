/** A bench-kit report whose peer is TensorFlow.js on its wasm backend, loaded once per run. */
import { Report } from '@mx/bench-kit';
import { loadTfjs, type Tfjs } from './tfjs.js';

export class TfjsWasmReport extends Report<Tfjs> {
  constructor() {
    super(() => loadTfjs('wasm'), 'tfjs-wasm');
  }
}
