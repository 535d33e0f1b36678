// The page's static build (`vite build` of the current sources into DIST, unless $SKINFRAME_DIST names a
// finished one) served from a local http server on a free port, for the browser tests and benchmarks.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, resolve } from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

// { server, url, dist }: url ends in '/'; close server when done.
export async function servePage(root, defaultDist) {
  const dist = process.env.SKINFRAME_DIST || defaultDist;
  if (!process.env.SKINFRAME_DIST) {
    const { build } = await import('vite');
    process.env.SKINFRAME_DIST = dist;
    await build({ configFile: resolve(root, 'web/vite.config.js'), logLevel: 'warn' });
  }
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist}/index.html missing: make viewer-dist`);
  const server = createServer((req, res) => {
    const path = join(dist, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = path.endsWith('/') ? join(path, 'index.html') : path;
    if (!file.startsWith(dist) || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${server.address().port}/`, dist };
}
