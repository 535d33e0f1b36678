// Runs a wasm32-wasi program under node's WASI (preview1): node wasi-run.mjs PROGRAM.wasm [ARGS...].
// The program sees its arguments and the current folder (as /); its exit status is node's.
// CMake's emulator for the wasm build (cmake/wasm32-wasi.cmake), so CTest runs .wasm programs like native ones.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import process from 'node:process';

const [program, ...args] = process.argv.slice(2);
if (!program) {
  process.stderr.write('usage: node wasi-run.mjs PROGRAM.wasm [ARGS...]\n');
  process.exit(2);
}
const wasi = new WASI({ version: 'preview1', args: [program, ...args], env: {}, preopens: { '/': process.cwd() },
                        returnOnExit: true });
const module = await WebAssembly.compile(await readFile(program));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
