// Writes a copy of a .glb whose materials all get a normal map (the first texture on TEXCOORD_0), so that
// `skinframe fix` has to generate TANGENT for it, with the vertex splits MikkTSpace needs on a textured
// character. Usage: node normal_mapped.mjs IN.glb OUT.glb
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
const glb = readFileSync(input);
if (glb.readUInt32LE(0) !== 0x46546c67) throw new Error(`${input}: not a .glb`);
const jsonLength = glb.readUInt32LE(12);
const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8'));
const rest = glb.subarray(20 + jsonLength); // the BIN chunk, header included
if (!json.textures?.length || !json.materials?.length) throw new Error(`${input}: no texture or material`);
for (const m of json.materials) m.normalTexture ??= { index: 0 };
let text = Buffer.from(JSON.stringify(json), 'utf8');
text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
const header = Buffer.alloc(20);
header.writeUInt32LE(0x46546c67, 0);
header.writeUInt32LE(2, 4);
header.writeUInt32LE(20 + text.length + rest.length, 8);
header.writeUInt32LE(text.length, 12);
header.writeUInt32LE(0x4e4f534a, 16);
writeFileSync(output, Buffer.concat([header, text, rest]));
