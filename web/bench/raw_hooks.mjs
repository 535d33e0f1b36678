// Module hooks that let node import the page's sources as vite builds them: `import text from './file.wgsl?raw'`
// is the file's text. Registered by the benchmarks that run the page's WebGPU code under node.
import { readFile } from 'node:fs/promises';

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('?raw')) return nextLoad(url, context);
  const text = await readFile(new URL(url.slice(0, -'?raw'.length)), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
}
