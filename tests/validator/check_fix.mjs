// Validates each fixed asset with the Khronos glTF validator against its input: the output must have no
// errors and no warning code the input did not have. Usage: node check_fix.mjs IN OUT [IN OUT ...]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

async function report(file) {
  const dir = path.dirname(file);
  return validator.validateBytes(new Uint8Array(await readFile(file)), {
    uri: path.basename(file),
    externalResourceFunction: (uri) => readFile(path.join(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
}

const codes = (r, severity) => new Set(r.issues.messages.filter((m) => m.severity === severity).map((m) => m.code));
let failed = 0;
const args = process.argv.slice(2);
for (let i = 0; i + 1 < args.length; i += 2) {
  const before = await report(args[i]);
  const after = await report(args[i + 1]);
  const inputWarnings = codes(before, 1);
  const newWarnings = [...codes(after, 1)].filter((c) => !inputWarnings.has(c));
  const ok = after.issues.numErrors === 0 && newWarnings.length === 0;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${args[i + 1]}: ${after.issues.numErrors} errors (input ${before.issues.numErrors}), ` +
              `${after.issues.numWarnings} warnings (input ${before.issues.numWarnings})` +
              (newWarnings.length ? `, new: ${newWarnings.join(' ')}` : ''));
  if (!ok) {
    for (const m of after.issues.messages.filter((m) => m.severity === 0 || newWarnings.includes(m.code)).slice(0, 5))
      console.log(`     ${m.code} ${m.pointer ?? ''}: ${m.message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
