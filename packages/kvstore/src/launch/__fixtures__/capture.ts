// Test helpers for the launch tests: an output sink that keeps the lines written to it and can wait
// for one, and a check that a process id is gone.

/** A writable sink keeping complete lines. */
export class Capture {
  readonly lines: string[] = [];
  private partial = '';
  private readonly waiters: { test: (l: string) => boolean; resolve: () => void }[] = [];

  write(s: string): boolean {
    const parts = (this.partial + s).split('\n');
    this.partial = parts.pop()!;
    for (const line of parts) {
      this.lines.push(line);
      for (const w of this.waiters.filter((w) => w.test(line))) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    return true;
  }

  /** Resolves when a line matching `test` has been written (also one written before), or rejects after `ms`. */
  waitFor(test: (line: string) => boolean, ms = 10_000): Promise<void> {
    if (this.lines.some(test)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching line in ${ms} ms:\n${this.lines.join('\n')}`)), ms);
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Lines written with prefix `[label] `, without the prefix. */
  of(label: string): string[] {
    const p = `[${label}] `;
    return this.lines.filter((l) => l.startsWith(p)).map((l) => l.slice(p.length));
  }
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
