// The reference on the GPU (WebGPU compute, shaders/): not wired in this build; the wasm core computes it.
export class GpuReference {
  static async create() { return null; }
}
