/**
 * A static server on 127.0.0.1 (random port) for the smoke bundles. Each page is a folder,
 * `/<page>/`, serving one bundle (`<name>.js` and its map) and an HTML shell that loads it:
 * - an isolated page sends `Cross-Origin-Opener-Policy: same-origin` and
 *   `Cross-Origin-Embedder-Policy: require-corp`, so it is cross-origin isolated and
 *   SharedArrayBuffer (a shared WebAssembly.Memory, worker threads) is available;
 * - a plain page sends neither, so cpu-wasm must fall back to a plain memory.
 * The cpu-wasm test serves one bundle as /isolated/ and /plain/; the webgpu test serves /webgpu/.
 * Nothing else is reachable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SmokeBundle } from './bundle.js';

const html = (script: string): string =>
  '<!doctype html><html><head><meta charset="utf-8"><title>@mx browser smoke</title></head>' +
  `<body><script type="module" src="${script}"></script></body></html>`;

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface SmokePage {
  readonly bundle: SmokeBundle;
  /** Send the cross-origin isolation headers. */
  readonly isolated: boolean;
}

export interface SmokeServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (pages at /<page>/). */
  readonly origin: string;
  close(): Promise<void>;
}

/** Serve each page of `pages` (page folder name → bundle and headers). */
export async function startSmokeServer(pages: Readonly<Record<string, SmokePage>>): Promise<SmokeServer> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const m = /^\/([a-z0-9-]+)\/([a-z0-9-]+\.js(?:\.map)?)?$/.exec((req.url ?? '').split('?')[0] ?? '');
    const page = m?.[1] === undefined ? undefined : pages[m[1]];
    const file = m?.[2];
    const name = page?.bundle.name;
    if (
      m === null ||
      page === undefined ||
      req.method !== 'GET' ||
      (file !== undefined && file !== `${name}.js` && file !== `${name}.js.map`)
    ) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const headers: Record<string, string> = {
      'Cache-Control': 'no-store',
      ...(page.isolated ? ISOLATION_HEADERS : {}),
    };
    if (file === `${name}.js`) {
      headers['Content-Type'] = 'text/javascript; charset=utf-8';
      res.writeHead(200, headers).end(`${page.bundle.js}\n//# sourceMappingURL=${name}.js.map\n`);
    } else if (file === `${name}.js.map`) {
      headers['Content-Type'] = 'application/json';
      res.writeHead(200, headers).end(page.bundle.map);
    } else {
      headers['Content-Type'] = 'text/html; charset=utf-8';
      res.writeHead(200, headers).end(html(`${name}.js`));
    }
  });
  return listenLocal(server);
}

/** Starts `server` on a free port of 127.0.0.1; `close` also ends kept-alive connections. */
export async function listenLocal(server: Server): Promise<SmokeServer> {
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
