// Vite for the page: serves web/ in development (`make viewer`) and writes a static build to dist/
// (`make viewer-dist`). The wasm core is not in the source tree: SKINFRAME_WASM (default ../build-web/
// skinframe.wasm) is served at /skinframe.wasm and copied into the build, and its SIMD128 twin (SKINFRAME_WASM_SIMD,
// default skinframe-simd.wasm beside it) at /skinframe-simd.wasm; the WGSL comes from ../shaders.
import { defineConfig } from 'vite';
import { readFileSync, existsSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shaderListings } from './build/shader_code.js';

const here = dirname(fileURLToPath(import.meta.url));
const wasmPath = process.env.SKINFRAME_WASM || resolve(here, '../build-web/skinframe.wasm');
const wasmFiles = {
  'skinframe.wasm': wasmPath,
  'skinframe-simd.wasm': process.env.SKINFRAME_WASM_SIMD || resolve(dirname(wasmPath), 'skinframe-simd.wasm'),
};

function skinframeWasm() {
  const read = (path) => {
    if (!existsSync(path)) throw new Error(`${path} missing: build it first (make viewer)`);
    return readFileSync(path);
  };
  const serve = (server, headers) => {
    for (const [name, path] of Object.entries(wasmFiles))
      server.middlewares.use(`/${name}`, (req, res) => {
        res.setHeader('Content-Type', 'application/wasm');
        for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
        res.end(read(path));
      });
  };
  return {
    name: 'skinframe-wasm',
    configureServer(server) { serve(server, { 'Cache-Control': 'no-store' }); },
    configurePreviewServer(server) { serve(server, {}); },
    generateBundle() {
      for (const [name, path] of Object.entries(wasmFiles)) this.emitFile({ type: 'asset', fileName: name, source: read(path) });
    },
  };
}

// Draco's decoder files (three/examples/jsm/libs/draco/gltf) served at ./draco/ and copied into the build, so
// that DRACOLoader (src/gltf.js) decodes KHR_draco_mesh_compression without the network.
const dracoDir = resolve(here, 'node_modules/three/examples/jsm/libs/draco/gltf');
const dracoFiles = ['draco_decoder.js', 'draco_decoder.wasm', 'draco_wasm_wrapper.js'];
const dracoType = (name) => (name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript');

function dracoDecoder() {
  const serve = (server) => {
    server.middlewares.use('/draco', (req, res, next) => {
      const name = (req.url || '').split('?')[0].replace(/^\//, '');
      if (!dracoFiles.includes(name)) return next();
      res.setHeader('Content-Type', dracoType(name));
      res.end(readFileSync(resolve(dracoDir, name)));
    });
  };
  return {
    name: 'skinframe-draco-decoder',
    configureServer: serve,
    configurePreviewServer: serve,
    generateBundle() {
      for (const name of dracoFiles)
        this.emitFile({ type: 'asset', fileName: `draco/${name}`, source: readFileSync(resolve(dracoDir, name)) });
    },
  };
}

// The article's shader listings, read from ../shaders when the page is built (virtual:shader-code).
function shaderCode() {
  const id = 'virtual:shader-code', resolved = '\0' + id;
  return {
    name: 'skinframe-shader-code',
    resolveId: (name) => (name === id ? resolved : null),
    load(name) {
      if (name !== resolved) return null;
      const dir = resolve(here, '../shaders');
      for (const f of ['', 'generated']) this.addWatchFile(resolve(dir, f));
      return `export default ${JSON.stringify(shaderListings(dir))};`;
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  plugins: [skinframeWasm(), dracoDecoder(), shaderCode()],
  server: { host: '127.0.0.1', strictPort: false, fs: { allow: [resolve(here, '..')] } },
  build: {
    outDir: process.env.SKINFRAME_DIST || resolve(here, 'dist'), emptyOutDir: true, chunkSizeWarningLimit: 2000,
    // index.html: the article; lab.html: every control on one scene or character
    rollupOptions: { input: { index: resolve(here, 'index.html'), lab: resolve(here, 'lab.html') } },
  },
});
