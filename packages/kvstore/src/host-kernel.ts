/**
 * Kernels that do their work on the host, for any backend: read the input blobs (and the output,
 * for req 'add'), run a function over the host copies, write the results back. This is how the
 * store puts host-side work (gradient compression today; a transport's send and receive later)
 * into the engine as ordinary operators, ordered by the arrays' variables like every other op, so
 * nothing waits on the JavaScript side.
 *
 * Backends that can read synchronously (cpu-wasm) get a synchronous kernel unless the work itself
 * is asynchronous; others (WebGPU) get an async kernel that completes after the reads and writes.
 */
import { MXNetError, type StorageArray } from '@mx/base';
import { type Attrs, type Backend, type Kernel, OpReq, type OpReqType, type TBlob } from '@mx/ops';

/** What the host function returns: [blob index (inputs first, then outputs), values to write]. */
export type HostWrites = readonly (readonly [number, StorageArray])[];

/** The host function of a kernel: input copies, the write requests, the current output for 'add'. */
export type HostBody<A extends Attrs> = (
  attrs: A,
  inputs: readonly StorageArray[],
  req: readonly OpReqType[],
  current: StorageArray | undefined,
) => HostWrites | Promise<HostWrites>;

export interface HostKernelOptions {
  /** The body returns a promise (I/O): always register an async kernel. */
  readonly async?: boolean;
  /** The promise waits on the network: the kernel holds no engine worker slot (Kernel.ioBound). */
  readonly ioBound?: boolean;
  /** Dtypes the kernel accepts; default float32. */
  readonly dtypes?: Kernel['dtypes'];
}

/** A kernel for `backend` that runs `body` on host copies of the blobs. */
export function hostKernel<A extends Attrs>(
  backend: Backend,
  body: HostBody<A>,
  options: HostKernelOptions = {},
): Kernel<A> {
  const dtypes = options.dtypes ?? ['float32'];
  const write = (writes: HostWrites, blobs: readonly TBlob[]) => {
    for (const [i, values] of writes) backend.write(blobs[i] as TBlob, values);
  };
  if (backend.capabilities.syncRead && options.async !== true) {
    return {
      dtypes,
      compute(attrs, _ctx, inputs, req, outputs) {
        const current = req[0] === OpReq.add ? backend.readSync(outputs[0] as TBlob) : undefined;
        const writes = body(
          attrs,
          inputs.map((b) => backend.readSync(b)),
          req,
          current,
        );
        if (writes instanceof Promise) {
          throw new MXNetError('a synchronous host kernel returned a promise', {
            op: 'hostKernel',
            hint: 'register it with { async: true }',
          });
        }
        write(writes, [...inputs, ...outputs]);
      },
    };
  }
  const read = (b: TBlob): Promise<StorageArray> =>
    backend.capabilities.syncRead ? Promise.resolve(backend.readSync(b)) : backend.read(b);
  return {
    dtypes,
    execType: 'async',
    ...(options.ioBound === true ? { ioBound: true } : {}),
    compute(attrs, ctx, inputs, req, outputs) {
      const done = ctx.onComplete ?? (() => undefined);
      const current = req[0] === OpReq.add ? read(outputs[0] as TBlob) : Promise.resolve(undefined);
      Promise.all([Promise.all(inputs.map(read)), current])
        .then(([ins, cur]) => body(attrs, ins, req, cur))
        .then((writes) => {
          write(writes, [...inputs, ...outputs]);
          done();
        })
        .catch((e: unknown) => done(e));
    },
  };
}
