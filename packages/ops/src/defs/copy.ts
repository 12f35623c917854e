/**
 * `_copyto` (MXNet `CopyFromTo`, FExecType kCrossDeviceCopy): copy an array to another array,
 * possibly on another device or backend. It has no kernel: the NDArray layer runs it through the
 * backends' transfer functions (`Backend.copy` within a backend, `read`/`write` across backends),
 * which is why the definition is flagged `crossDeviceCopy`.
 */
import type { OpRegistry } from '../registry.js';

export function registerCopy(registry: OpRegistry): void {
  registry.define({
    name: '_copyto',
    doc: 'Copy the input into the output array, which may live on another device.',
    crossDeviceCopy: true,
    // The identity: the head gradient as is (the array layer copies it where the input lives).
    gradient: { inputs: 'none', build: (g) => [g.ograd(0)] },
    inferShape: (_attrs, inShapes, outShapes) => {
      if (inShapes[0] === undefined) return false;
      outShapes[0] = inShapes[0];
      return true;
    },
  });
}
