// Shared by the node tests: where the wasm module and the native command are, and small vector helpers.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSkinframe } from '../src/skinframe.js';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const wasmPath = process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm');
export const cliPath = process.env.SKINFRAME_CLI || resolve(root, 'build/skinframe');

export async function loadCore() {
  return loadSkinframe(readFileSync(wasmPath));
}
export const haveCli = () => existsSync(cliPath);

// Angle in degrees between a[i*stride..] and b[j*stride..] (xyz), 180 when either is zero, as sf_angle_deg.
export function angleDeg(a, ai, b, bi) {
  const ax = a[ai], ay = a[ai + 1], az = a[ai + 2], bx = b[bi], by = b[bi + 1], bz = b[bi + 2];
  const la = Math.hypot(ax, ay, az), lb = Math.hypot(bx, by, bz);
  if (la === 0 || lb === 0) return la === lb ? 0 : 180;
  const c = Math.min(1, Math.max(-1, (ax * bx + ay * by + az * bz) / (la * lb)));
  // acos loses precision near 0: use atan2 of |cross| and dot instead.
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  return (Math.atan2(Math.hypot(cx, cy, cz), la * lb * c) * 180) / Math.PI;
}

// A .glb with every node of `glb` copied once more (children, skins' joints and skeleton pointing at the copies,
// a second skin for the copy's mesh node) and both roots in the scene: two skins over different joints.
export function twoSkins(glb) {
  const n = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + n).toString());
  const rest = glb.subarray(20 + n);
  const N = json.nodes.length, S = (json.skins || []).length;
  json.nodes = [...json.nodes, ...json.nodes.map((node) => ({ ...node, name: `${node.name || ''} copy`,
    ...(node.children ? { children: node.children.map((c) => c + N) } : {}), ...(node.skin !== undefined ? { skin: node.skin + S } : {}) }))];
  json.skins = [...json.skins, ...json.skins.map((k) => ({ ...k, joints: k.joints.map((j) => j + N),
    ...(k.skeleton !== undefined ? { skeleton: k.skeleton + N } : {}) }))];
  const scene = json.scenes[json.scene || 0];
  scene.nodes = [...scene.nodes, ...scene.nodes.map((r) => r + N)];
  const text = Buffer.from(JSON.stringify(json));
  const padded = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546c67, 0); head.writeUInt32LE(2, 4); head.writeUInt32LE(20 + padded.length + rest.length, 8);
  head.writeUInt32LE(padded.length, 12); head.writeUInt32LE(0x4e4f534a, 16);
  return Buffer.concat([head, padded, rest]);
}
