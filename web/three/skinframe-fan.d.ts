// Types of skinframe-fan.js: jacobian-fan normals and tangents in three.js's vertex shader from the embedded
// attributes of docs/embedded.md.
import type { BufferGeometry, DataTexture, Material, Mesh } from 'three';
import type { GLTFLoaderPlugin, GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';

/** The fan data of one geometry as the shader reads it. */
export interface SkinframeFanData {
  /** One RGBA float texel per vector: per vertex the fan normal, per slot group its joints and six coefficient
   * vectors (decoded and scaled), per morph target D u and D v. */
  texture: DataTexture;
  /** Texels per vertex: 1 + 7 groups + 2 targets. */
  stride: number;
  /** Slot groups of 4 weight slots (`_SKINFRAME_FAN_JOINTS_g`). */
  groups: number;
  /** Morph targets with gradients (`geometry.morphAttributes._skinframe_fan_du` / `_dv`). */
  targets: number;
}

/** Packs the geometry's `_SKINFRAME_FAN_*` attributes (float or normalized int16 with their scales). Throws when
 * the geometry has no `_SKINFRAME_FAN_NORMAL`. */
export function packSkinframeFan(geometry: BufferGeometry): SkinframeFanData;

/** Patches a MeshStandardMaterial or MeshPhysicalMaterial (onBeforeCompile: the skinning and morph normal
 * chunks) so that the mesh's normals and tangents are jacobian-fan's. Keeps an onBeforeCompile set before. */
export function applySkinframeFan(material: Material, mesh: Mesh): SkinframeFanData;

/** GLTFLoader plugin: puts each primitive's `_SKINFRAME_FAN_DU` / `_DV` morph-target accessors in
 * `geometry.morphAttributes._skinframe_fan_du` / `_dv` (GLTFLoader skips application-specific target
 * attributes). Register with `loader.register((parser) => new SkinframeFanPlugin(parser))`. */
export class SkinframeFanPlugin implements GLTFLoaderPlugin {
  constructor(parser: GLTFParser);
  readonly name: string;
  afterRoot(result: { scenes: import('three').Group[] }): Promise<void>;
}
