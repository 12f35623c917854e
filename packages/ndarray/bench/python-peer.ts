/**
 * A long-lived Python peer for the benchmarks that compare with NumPy/SciPy (sparse-dot.ts, np.ts):
 * the script loads the benchmark's arrays from a directory, prints one JSON line (`{"ready": …}` or
 * `{"skip": reason}`), then answers each `run <workload> <count>` line with
 * `{"times_ms": [...], "checksum": x}`. One process per benchmark, so batches of ours and the peer's
 * runs can alternate on a noisy machine.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface PeerReply {
  readonly times_ms: number[];
  readonly checksum: number;
}

/** The Python process: one JSON line per request. */
export class PythonPeer {
  readonly info: Record<string, unknown>;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #lines: AsyncIterator<string>;

  private constructor(
    child: ChildProcessWithoutNullStreams,
    lines: AsyncIterator<string>,
    info: Record<string, unknown>,
  ) {
    this.#child = child;
    this.#lines = lines;
    this.info = info;
  }

  /** Start `script` on `dir` (`MX_PYTHON`, default /usr/bin/python3); a string says why it cannot run. */
  static async start(script: string, dir: string): Promise<PythonPeer | string> {
    const python = process.env.MX_PYTHON ?? '/usr/bin/python3';
    if (!existsSync(python)) return `${python} not found`;
    const child = spawn(python, [script, dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b) => {
      stderr += String(b);
    });
    const failed = new Promise<string>((res) => {
      child.on('error', (e) => res(`cannot run ${python}: ${e.message}`));
      child.on('exit', (code) =>
        res(`${python} exited (${code}) before answering: ${stderr.trim().split('\n').pop()}`),
      );
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await Promise.race([lines.next().then((l) => (l.done ? undefined : l.value)), failed]);
    if (first === undefined || !first.startsWith('{')) {
      child.kill();
      return first ?? `${python} gave no answer: ${stderr.trim()}`;
    }
    const info = JSON.parse(first) as Record<string, unknown>;
    if (typeof info.skip === 'string') return info.skip;
    return new PythonPeer(child, lines, info);
  }

  async run(workload: string, count: number): Promise<PeerReply> {
    this.#child.stdin.write(`run ${workload} ${count}\n`);
    const line = await this.#lines.next();
    if (line.done) throw new Error('the Python process ended');
    const reply = JSON.parse(line.value) as PeerReply & { error?: string };
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply;
  }

  close(): void {
    this.#child.stdin.end();
  }
}
