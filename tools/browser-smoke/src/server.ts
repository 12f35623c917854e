/**
 * A static server on 127.0.0.1 (random port) for the smoke bundle, with two pages:
 * - /isolated/ sends `Cross-Origin-Opener-Policy: same-origin` and
 *   `Cross-Origin-Embedder-Policy: require-corp`, so the page is cross-origin isolated and
 *   SharedArrayBuffer (a shared WebAssembly.Memory, worker threads) is available;
 * - /plain/ sends neither, so cpu-wasm must fall back to a plain memory.
 * Both serve the same script; nothing else is reachable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SmokeBundle } from './bundle.js';

const HTML =
  '<!doctype html><html><head><meta charset="utf-8"><title>@mx browser smoke</title></head>' +
  '<body><script type="module" src="smoke.js"></script></body></html>';

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface SmokeServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (pages at /isolated/ and /plain/). */
  readonly origin: string;
  close(): Promise<void>;
}

export async function startSmokeServer(bundle: SmokeBundle): Promise<SmokeServer> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const m = /^\/(isolated|plain)\/(smoke\.js|smoke\.js\.map)?$/.exec((req.url ?? '').split('?')[0] ?? '');
    if (m === null || req.method !== 'GET') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const headers: Record<string, string> = {
      'Cache-Control': 'no-store',
      ...(m[1] === 'isolated' ? ISOLATION_HEADERS : {}),
    };
    if (m[2] === 'smoke.js') {
      headers['Content-Type'] = 'text/javascript; charset=utf-8';
      res.writeHead(200, headers).end(`${bundle.js}\n//# sourceMappingURL=smoke.js.map\n`);
    } else if (m[2] === 'smoke.js.map') {
      headers['Content-Type'] = 'application/json';
      res.writeHead(200, headers).end(bundle.map);
    } else {
      headers['Content-Type'] = 'text/html; charset=utf-8';
      res.writeHead(200, headers).end(HTML);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
