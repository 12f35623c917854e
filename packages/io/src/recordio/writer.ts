/**
 * The record writer behind MXRecordIO 'w': frames each payload exactly as dmlc's
 * `RecordIOWriter::WriteRecord` does (see format.ts) into one reusable buffer that is handed to the
 * sink when full, so writing many small records costs few system calls. `tell()` counts bytes
 * written, buffered ones included, as MXNet's `MXRecordIOWriterTell` does.
 */
import { checkPayloadLength, framedSize, frameInto, magicCuts } from './format.js';
import type { ByteSink } from './source.js';
import { DEFAULT_BUFFER_SIZE } from './window.js';

/** Appends bytes to a sink through a fixed buffer. */
export class BufferedSink {
  readonly sink: ByteSink;
  #buf: Uint8Array;
  #used = 0;
  #flushed = 0;

  constructor(sink: ByteSink, bufferSize = DEFAULT_BUFFER_SIZE) {
    this.sink = sink;
    this.#buf = new Uint8Array(Math.max(64, bufferSize));
  }

  /** Bytes written so far (flushed or not). */
  tell(): number {
    return this.#flushed + this.#used;
  }

  /** `n` bytes of room in the buffer (flushing first when needed), or null when `n` never fits. */
  reserve(n: number): { buffer: Uint8Array; offset: number } | null {
    if (n > this.#buf.length) return null;
    if (this.#used + n > this.#buf.length) this.flush();
    return { buffer: this.#buf, offset: this.#used };
  }

  /** Marks `n` reserved bytes as written. */
  advance(n: number): void {
    this.#used += n;
  }

  /** Writes `bytes` (copied, or passed straight to the sink when larger than the buffer). */
  write(bytes: Uint8Array): void {
    const room = this.reserve(bytes.length);
    if (room) {
      room.buffer.set(bytes, room.offset);
      this.advance(bytes.length);
    } else {
      this.flush();
      this.sink.write(bytes);
      this.#flushed += bytes.length;
    }
  }

  flush(): void {
    if (this.#used === 0) return;
    this.sink.write(this.#buf.subarray(0, this.#used));
    this.#flushed += this.#used;
    this.#used = 0;
  }

  close(): void {
    try {
      this.flush();
    } finally {
      this.sink.close();
    }
  }
}

/** Frames payloads into a buffered sink. */
export class RecordWriterCore {
  readonly out: BufferedSink;
  /** How many magic numbers were cut out of payloads (dmlc's `except_counter`). */
  exceptCounter = 0;

  constructor(sink: ByteSink, bufferSize?: number) {
    this.out = new BufferedSink(sink, bufferSize);
  }

  write(payload: Uint8Array, op: string): void {
    checkPayloadLength(payload.length, op);
    const cuts = magicCuts(payload);
    const size = framedSize(payload.length, cuts);
    const room = this.out.reserve(size);
    if (room) {
      frameInto(payload, cuts, room.buffer, room.offset);
      this.out.advance(size);
    } else {
      const framed = new Uint8Array(size);
      frameInto(payload, cuts, framed, 0);
      this.out.write(framed);
    }
    this.exceptCounter += cuts.length;
  }
}
