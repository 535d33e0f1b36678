// The page's WebGPU code under node: npm's `webgpu` package (Dawn, the WebGPU implementation inside Chromium)
// installed as the browser's navigator.gpu and its globals, and the page's `?raw` imports made loadable
// (raw_hooks.mjs). Dawn takes whatever adapter it finds: a GPU's Vulkan driver, or SwiftShader where
// VK_ICD_FILENAMES names it; SF_DAWN_FLAGS='backend=vulkan ...' passes Dawn's toggles, SF_WEBGPU_MODULE the
// package's index.js where it is not installed in web/.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'node:module';

// Exits 2 naming the package when it is missing; `tool` names the caller in that message.
export async function installDawn(tool) {
  let dawn;
  try {
    dawn = await import(process.env.SF_WEBGPU_MODULE ? pathToFileURL(resolve(process.env.SF_WEBGPU_MODULE)).href : 'webgpu');
  } catch {
    console.error(`${tool}: npm's \`webgpu\` package (Dawn for node) is not installed: run \`npm install --no-save webgpu@0.6.2\` in web/`);
    process.exit(2);
  }
  Object.assign(globalThis, dawn.globals);
  const flags = (process.env.SF_DAWN_FLAGS || '').split(/\s+/).filter(Boolean);
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: dawn.create(flags) }, configurable: true });
  register('./raw_hooks.mjs', import.meta.url);
}
