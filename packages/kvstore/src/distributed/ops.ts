/**
 * The network steps of the distributed store as engine operations (MXNet pushes
 * `KVStoreDistDefaultPush` / `KVStoreDistDefaultStoragePull` engine functions that call ZPush /
 * ZPull and complete in the transport's callback). Two internal ops, defined in the runtime's
 * registry on first use, with asynchronous I/O-bound kernels. Like MXNet's SArrays over the
 * NDArray's pointer, they send from and receive into the array's own memory where the backend
 * exposes it (`Backend.hostView`: cpu-wasm's shared memory), so a 100 MB push is handed to ZeroMQ
 * without a copy and a pull lands in place; other backends go through one host copy.
 *
 * - `_kvstore_dist_send(payload) → token`: sends the payload's bytes for a key and completes when
 *   every server involved answered (in sync mode: once all workers pushed and the update ran);
 * - `_kvstore_dist_recv(token) → out`: pulls the key's bytes into `out`; with `push` set,
 *   `_kvstore_dist_recv(token, payload) → out` pushes the payload and gets the updated value in
 *   one round trip (MXNet's ZPushPull).
 *
 * The token (one float32 per key, never read for its value) orders a pull after the pushes before
 * it, and every push and pull after the key's init (a send op with `init`), through the engine's
 * dependencies, as MXNet orders them through the key's `comm_buf_`
 * variable. The ops name a channel (a store) by id; the channels of a runtime live in a table held
 * by the kernels registered for it, so nothing is module state and several stores can share one
 * runtime.
 */
import { DType, type DTypeName, MXNetError, type Shape, type StorageArray, shapeSize } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { type Attrs, type Backend, type Kernel, P, type TBlob } from '@mx/ops';

export const SEND_OP = '_kvstore_dist_send';
export const RECV_OP = '_kvstore_dist_recv';

/** Dtypes the store moves (MXNet's dist store takes any mshadow type). */
const WIRE_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'float16',
  'uint8',
  'int32',
  'int8',
  'int64',
];

/** What a store does when its ops run: the transport calls. */
export interface DistChannel {
  /**
   * Initialise `key` with `bytes` (rank 0 pushes them; every worker then joins the workers'
   * barrier); resolves when done. Runs as an engine op, so it never waits for other engine work.
   */
  init(key: number, bytes: Uint8Array): Promise<void>;
  /** Push `bytes` for `key` (compressed: the packed gradient); resolves when answered. */
  send(key: number, compressed: boolean, bytes: Uint8Array): Promise<void>;
  /** Pull `byteLength` bytes of `key`, into `into` when given (then the result is `into`). */
  recv(key: number, byteLength: number, into?: Uint8Array): Promise<Uint8Array>;
  /** Push `bytes` and get `byteLength` bytes of the updated value back (ZPushPull), as `recv`. */
  pushPull(key: number, bytes: Uint8Array, byteLength: number, into?: Uint8Array): Promise<Uint8Array>;
}

interface SendAttrs extends Attrs {
  readonly channel: string;
  readonly key: number;
  readonly compressed: boolean;
  readonly init: boolean;
}
interface RecvAttrs extends Attrs {
  readonly channel: string;
  readonly key: number;
  readonly shape: Shape;
  readonly dtype: DTypeName | null;
  readonly push: boolean;
}

type Channels = Map<string, DistChannel>;
type HubKernel = Kernel & { readonly channels?: Channels };

/**
 * The bytes of a blob without a copy where the backend exposes its memory (cpu-wasm): ps-lite
 * sends from and receives into the array's own memory, as MXNet's ZPush/ZPull do with SArrays over
 * the NDArray's pointer. Safe because the op holds the array's variable until the servers answered
 * (a push is answered after its bytes arrived), and the view is not kept past the op.
 */
function viewBytes(backend: Backend, blob: TBlob): Uint8Array | undefined {
  const v = backend.hostView?.(blob);
  return v === undefined ? undefined : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** A host copy of a blob's bytes (owned: nothing else references it). */
async function readBytes(backend: Backend, blob: TBlob): Promise<Uint8Array> {
  const a = backend.capabilities.syncRead ? backend.readSync(blob) : await backend.read(blob);
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

const bytesFor = async (backend: Backend, blob: TBlob) =>
  viewBytes(backend, blob) ?? readBytes(backend, blob);

/** An asynchronous, I/O-bound kernel running `body` (completes when its promise settles). */
function ioKernel<A extends Attrs>(
  body: (attrs: A, inputs: readonly TBlob[], outputs: readonly TBlob[]) => Promise<void>,
): Kernel<A> {
  return {
    dtypes: WIRE_DTYPES,
    execType: 'async',
    ioBound: true,
    compute(attrs, ctx, inputs, _req, outputs) {
      const done = ctx.onComplete ?? (() => undefined);
      body(attrs, inputs as readonly TBlob[], outputs as readonly TBlob[]).then(
        () => done(),
        (e: unknown) => done(e),
      );
    },
  };
}

function channelOf(channels: Channels, id: string, op: string): DistChannel {
  const c = channels.get(id);
  if (c === undefined) {
    throw new MXNetError(`the distributed store of channel ${id} was disposed`, { op });
  }
  return c;
}

function defineOps(rt: Runtime): void {
  const registry = rt.registry;
  if (!registry.has(SEND_OP)) {
    registry.define({
      name: SEND_OP,
      doc: "Push a key's bytes to the parameter servers (kvstore internal)",
      params: {
        channel: P.string({ doc: 'The store sending.' }),
        key: P.int({ doc: 'The int key.' }),
        compressed: P.bool({ default: false, doc: 'The payload is a packed compressed gradient.' }),
        init: P.bool({ default: false, doc: "The payload is the key's initial value (MXNet's Init)." }),
      },
      numInputs: 1,
      listInputNames: () => ['payload'],
      inferShape: (_a, _ins, outs) => {
        outs[0] = [1];
        return true;
      },
      inferType: (_a, _inT, outT) => {
        outT[0] = 'float32';
        return true;
      },
    });
  }
  if (!registry.has(RECV_OP)) {
    registry.define({
      name: RECV_OP,
      doc: "Pull a key's bytes from the parameter servers (kvstore internal)",
      params: {
        channel: P.string({ doc: 'The store pulling.' }),
        key: P.int({ doc: 'The int key.' }),
        shape: P.shape({ doc: 'Shape of the value.' }),
        dtype: P.dtype({ doc: 'Dtype of the value.' }),
        push: P.bool({ default: false, doc: 'Push a payload first (ZPushPull).' }),
      },
      numInputs: (attrs) => (attrs.push ? 2 : 1),
      listInputNames: (attrs) => (attrs.push ? ['token', 'payload'] : ['token']),
      inferShape: (attrs, ins, outs) => {
        ins[0] = [1];
        if (attrs.push) ins[1] = attrs.shape;
        outs[0] = attrs.shape;
        return true;
      },
      inferType: (attrs, inT, outT) => {
        inT[0] = 'float32';
        if (attrs.push) inT[1] = attrs.dtype ?? 'float32';
        outT[0] = attrs.dtype ?? 'float32';
        return true;
      },
    });
  }
}

function kernels(backend: Backend, channels: Channels): [HubKernel, HubKernel] {
  const send = ioKernel<SendAttrs>(async (attrs, [payload], [token]) => {
    const channel = channelOf(channels, attrs.channel, SEND_OP);
    const bytes = await bytesFor(backend, payload as TBlob);
    if (attrs.init) await channel.init(attrs.key, bytes);
    else await channel.send(attrs.key, attrs.compressed, bytes);
    backend.write(token as TBlob, Float32Array.of(1));
  });
  const recv = ioKernel<RecvAttrs>(async (attrs, inputs, [out]) => {
    const info = DType[attrs.dtype ?? 'float32'];
    const n = shapeSize(attrs.shape);
    const channel = channelOf(channels, attrs.channel, RECV_OP);
    const into = viewBytes(backend, out as TBlob);
    const bytes = attrs.push
      ? await channel.pushPull(attrs.key, await bytesFor(backend, inputs[1] as TBlob), n * info.bytes, into)
      : await channel.recv(attrs.key, n * info.bytes, into);
    // Without a view the answer is a new buffer of exactly the value's bytes (aligned).
    if (into === undefined)
      backend.write(out as TBlob, new info.storage(bytes.buffer, bytes.byteOffset, n) as StorageArray);
  });
  return [
    Object.assign(send, { channels }) as unknown as HubKernel,
    Object.assign(recv, { channels }) as unknown as HubKernel,
  ];
}

/** The send/recv ops of one store on one runtime. */
export class DistOps implements Disposable {
  readonly #rt: Runtime;
  readonly #id: string;
  readonly #channel: DistChannel;
  readonly #registered = new Set<Channels>();

  constructor(runtime: Runtime, channel: DistChannel) {
    this.#rt = runtime;
    this.#channel = channel;
    this.#id = globalThis.crypto.randomUUID();
    defineOps(runtime);
  }

  #ensure(a: NDArray): void {
    const registry = this.#rt.registry;
    const backend = this.#rt.backendFor(a.ctx, SEND_OP);
    let k = registry.kernel(registry.get(SEND_OP), backend.name) as HubKernel | undefined;
    if (k?.channels === undefined) {
      const [send, recv] = kernels(backend, new Map());
      registry.registerKernel(SEND_OP, backend.name, send);
      registry.registerKernel(RECV_OP, backend.name, recv);
      k = send;
    }
    const channels = k.channels as Channels;
    if (!this.#registered.has(channels)) {
      channels.set(this.#id, this.#channel);
      this.#registered.add(channels);
    }
  }

  /** Push `token = send(payload)` (payload and token on the same device). */
  send(key: number, payload: NDArray, token: NDArray, compressed: boolean): void {
    this.#ensure(payload);
    this.#rt.invoke(SEND_OP, [payload], { channel: this.#id, key, compressed }, { out: token });
  }

  /** Push `token = init(value)`: the key's init, before every later send and receive of it. */
  init(key: number, value: NDArray, token: NDArray): void {
    this.#ensure(value);
    this.#rt.invoke(SEND_OP, [value], { channel: this.#id, key, init: true }, { out: token });
  }

  /** Push `out = recv(token)`. */
  recv(key: number, token: NDArray, out: NDArray): void {
    this.#ensure(out);
    this.#rt.invoke(
      RECV_OP,
      [token],
      { channel: this.#id, key, shape: out.shape, dtype: out.dtype },
      { out },
    );
  }

  /** Push `out = pushPull(payload)` after the key's earlier sends (ordered by `token`). */
  pushPull(key: number, token: NDArray, payload: NDArray, out: NDArray): void {
    this.#ensure(out);
    this.#rt.invoke(
      RECV_OP,
      [token, payload],
      { channel: this.#id, key, shape: out.shape, dtype: out.dtype, push: true },
      { out },
    );
  }

  /** Forget this store's channel (ops pushed later fail with an MXNetError). */
  dispose(): void {
    for (const c of this.#registered) c.delete(this.#id);
    this.#registered.clear();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
