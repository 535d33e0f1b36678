// The four synchronized views: selected method, reference, normal error, tangent error; one camera, one
// orbit control over the four canvases. Attribute arrays are made once per mesh and refilled per frame.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { VIEW_LIGHT, VIEW_MODE, VIEW_SHADING } from './generated/layout.js';

// mode (VIEW_MODE, as the WebGPU views number it): normal colours, lambert, normal-mapped lambert (a procedural
// bump map in the tangent frame, so tangent errors show), error heatmap (0 degrees HEAT_LOW (green), half of
// HEAT_FULL_DEG HEAT_MID (yellow), that and more HEAT_HIGH (red); a negative angle, not measured, NOT_MEASURED).
const modeConstants = Object.entries(VIEW_MODE).map(([name, value]) => `const int MODE_${name} = ${value};`).join('\n');
// A generated number or xyz as a GLSL constant.
function glslConstant(name, value) {
  const f = (x) => x.toFixed(6);
  return Array.isArray(value) ? `const vec3 ${name} = vec3(${value.map(f).join(', ')});`
    : `const float ${name} = ${f(value)};`;
}
// the direction towards the light, the colours and the shading terms, as the WebGPU views' (SF_VIEW_*)
const shadingConstants = [glslConstant('LIGHT', VIEW_LIGHT),
  ...Object.entries(VIEW_SHADING).map(([name, value]) => glslConstant(name, value))].join('\n');
const vertexShader = /* glsl */ `
  attribute vec4 tangent;
  attribute float err;
  varying vec3 vN; varying vec4 vT; varying vec2 vUv; varying float vErr;
  void main() {
    // the core's frames are in the mesh's space; the model matrix takes them to the scene (rotation and scale)
    vN = mat3(modelMatrix) * normal; vT = vec4(mat3(modelMatrix) * tangent.xyz, tangent.w); vUv = uv; vErr = err;
    gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  }`;
const fragmentShader = /* glsl */ `
  ${modeConstants}
  ${shadingConstants}
  uniform int mode;
  varying vec3 vN; varying vec4 vT; varying vec2 vUv; varying float vErr;
  vec3 heat(float d) {
    float t = clamp(d / HEAT_FULL_DEG, 0.0, 1.0);
    return t < 0.5 ? mix(HEAT_LOW, HEAT_MID, t * 2.0) : mix(HEAT_MID, HEAT_HIGH, t * 2.0 - 1.0);
  }
  void main() {
    vec3 n = length(vN) > 0.0 ? normalize(vN) : vec3(0.0);
    if (!gl_FrontFacing) n = -n;
    vec3 l = normalize(LIGHT);
    if (mode == MODE_ERROR_HEAT) {
      vec3 c = vErr < 0.0 ? NOT_MEASURED : heat(vErr);
      gl_FragColor = vec4(c * (HEAT_AMBIENT + HEAT_DIFFUSE * abs(dot(n, l))), 1.0);
      return;
    }
    if (mode == MODE_NORMAL_MAPPED && length(vT.xyz) > 0.0) {
      vec3 t = normalize(vT.xyz - n * dot(n, vT.xyz));
      vec3 b = cross(n, t) * (vT.w < 0.0 ? -1.0 : 1.0) * (gl_FrontFacing ? 1.0 : -1.0);
      // height BUMP_HEIGHT sin(2 pi BUMP_CYCLES u) sin(2 pi BUMP_CYCLES v); the normal map's +Y runs along -v (glTF)
      float k = 6.2831853 * BUMP_CYCLES;
      float du = BUMP_HEIGHT * k * cos(k * vUv.x) * sin(k * vUv.y), dv = BUMP_HEIGHT * k * sin(k * vUv.x) * cos(k * vUv.y);
      vec3 m = normalize(vec3(-du * BUMP_SLOPE, dv * BUMP_SLOPE, 1.0));
      n = normalize(t * m.x + b * m.y + n * m.z);
    }
    vec3 c = mode == MODE_NORMAL_COLOURS ? n * 0.5 + 0.5 : SURFACE * (SURFACE_AMBIENT + SURFACE_DIFFUSE * max(dot(n, l), 0.0));
    gl_FragColor = vec4(c, 1.0);
  }`;

const NAMES = ['method', 'reference', 'normal-error', 'tangent-error'];

export class Views {
  // overlay: the canvases lie over views drawn elsewhere (the scene worker's WebGPU views, gpu_views.js): they
  // clear to transparent and draw the mesh only when setGpuDrawn(false) says the worker does not.
  constructor(canvases, container, overlay = false) {
    this.canvases = canvases;
    this.container = container;
    this.camera = new THREE.PerspectiveCamera(40, 4 / 3, 0.01, 1000);
    this.camera.position.set(0, 3, 6);
    this.controls = new OrbitControls(this.camera, container);
    this.controls.addEventListener('change', () => { this.dirty = true; });
    this.renderers = canvases.map((canvas) => {
      const r = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true, alpha: overlay });
      r.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
      r.setClearColor(0x0d0e11, overlay ? 0 : 1);
      return r;
    });
    this.scenes = NAMES.map(() => new THREE.Scene());
    // the mesh, its normal and tangent lines and the marker, in the core's (mesh) space under one model matrix
    this.groups = this.scenes.map((scene) => {
      const g = new THREE.Group();
      g.matrixAutoUpdate = false;
      scene.add(g);
      return g;
    });
    this.materials = NAMES.map((_, i) => new THREE.ShaderMaterial({
      vertexShader, fragmentShader, side: THREE.DoubleSide,
      uniforms: { mode: { value: i >= 2 ? VIEW_MODE.ERROR_HEAT : VIEW_MODE.LAMBERT } },
    }));
    this.meshes = [];
    this.vectorLines = [];
    this.rig = null;
    this.marker = null;
    this.markerVertex = -1;
    this.showNormals = false; this.showTangents = false; this.showRig = false;
    this.dirty = true;
    this.vertexCount = 0;
    this.overlay = overlay;
    this.gpuDrawn = false; // the worker draws the mesh under the overlay
    this.remote = null; // with an overlay: the worker's drawing (busy until it shows the latest state)
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  resize() {
    const c = this.canvases[0];
    const w = c.clientWidth || 400, h = c.clientHeight || 300;
    for (const r of this.renderers) r.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.dirty = true;
  }

  // A new mesh: attributes sized once (positions shared by the four views).
  setMesh(vertexCount, indices, uvs) {
    for (let i = 0; i < this.meshes.length; ++i) {
      this.groups[i].remove(this.meshes[i]);
      this.meshes[i].geometry.dispose();
    }
    for (const l of this.vectorLines) { l.parent?.remove(l); l.geometry.dispose(); }
    this.vertexCount = vertexCount;
    const n = vertexCount;
    this.position = new THREE.BufferAttribute(new Float32Array(3 * n), 3).setUsage(THREE.DynamicDrawUsage);
    const uv = new THREE.BufferAttribute(uvs ? Float32Array.from(uvs) : new Float32Array(2 * n), 2);
    const index = new THREE.BufferAttribute(Uint32Array.from(indices), 1);
    this.meshes = NAMES.map((_, i) => {
      const g = new THREE.BufferGeometry();
      g.setIndex(index);
      g.setAttribute('position', this.position);
      g.setAttribute('uv', uv);
      g.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(3 * n), 3).setUsage(THREE.DynamicDrawUsage));
      g.setAttribute('tangent', new THREE.BufferAttribute(new Float32Array(4 * n), 4).setUsage(THREE.DynamicDrawUsage));
      g.setAttribute('err', new THREE.BufferAttribute(new Float32Array(n), 1).setUsage(THREE.DynamicDrawUsage));
      const mesh = new THREE.Mesh(g, this.materials[i]);
      mesh.frustumCulled = false;
      mesh.visible = !this.gpuDrawn;
      this.groups[i].add(mesh);
      return mesh;
    });
    // gold normals and blue tangents in the two top views: two points per vertex each
    this.vectorLines = [];
    for (let i = 0; i < 2; ++i) {
      for (const [color, key] of [[0xe8b64c, 'normals'], [0x4c8ce8, 'tangents']]) {
        const g = new THREE.BufferGeometry();
        g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * n), 3).setUsage(THREE.DynamicDrawUsage));
        const line = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ color }));
        line.frustumCulled = false;
        line.userData = { view: i, key };
        this.groups[i].add(line);
        this.vectorLines.push(line);
      }
    }
    this.setMarker(-1);
    this.dirty = true;
  }

  // Per frame: positions, the method's and the reference's frames, the method's angles (tangentDeg null: not
  // measured, drawn grey; tangents null: none drawn).
  // owned: the arrays are the caller's to give away (a worker's fresh copies), taken as they are, not copied.
  update(positions, method, ref, normalDeg, tangentDeg, length, owned = false) {
    const put = (attr, src) => {
      if (owned && src.length === attr.array.length) attr.array = src; else attr.array.set(src);
      attr.needsUpdate = true;
    };
    put(this.position, positions);
    const sources = [method, ref, ref, ref];
    for (let i = 0; i < 4; ++i) {
      const g = this.meshes[i].geometry;
      put(g.attributes.normal, sources[i].normals);
      if (sources[i].tangents) put(g.attributes.tangent, sources[i].tangents);
    }
    const e2 = this.meshes[2].geometry.attributes.err, e3 = this.meshes[3].geometry.attributes.err;
    if (normalDeg) put(e2, normalDeg);
    if (tangentDeg) put(e3, tangentDeg); else { e3.array = new Float32Array(e3.array.length).fill(-1); e3.needsUpdate = true; } // never into an adopted array
    for (const line of this.vectorLines) {
      const show = line.userData.key === 'normals' ? this.showNormals : this.showTangents;
      line.visible = show;
      if (!show) continue;
      const src = line.userData.view === 0 ? method : ref;
      const dir = line.userData.key === 'normals' ? src.normals : src.tangents;
      const stride = line.userData.key === 'normals' ? 3 : 4;
      const out = line.geometry.attributes.position.array;
      for (let v = 0; v < this.vertexCount; ++v) {
        const p = 3 * v, d = stride * v, o = 6 * v;
        out[o] = positions[p]; out[o + 1] = positions[p + 1]; out[o + 2] = positions[p + 2];
        out[o + 3] = positions[p] + length * (dir ? dir[d] : 0);
        out[o + 4] = positions[p + 1] + length * (dir ? dir[d + 1] : 0);
        out[o + 5] = positions[p + 2] + length * (dir ? dir[d + 2] : 0);
      }
      line.geometry.attributes.position.needsUpdate = true;
    }
    if (this.markerVertex >= 0) this.setMarker(this.markerVertex);
    this.dirty = true;
  }

  // The model matrix (16 numbers, column-major) from the core's positions to the scene; null = identity.
  setModelMatrix(m) {
    for (const g of this.groups) {
      if (m) g.matrix.fromArray(m); else g.matrix.identity();
      g.matrixWorldNeedsUpdate = true;
    }
    this.dirty = true;
  }

  // Whether the worker draws the mesh under the overlay (its canvas then clears to transparent) or these views do.
  setGpuDrawn(on) {
    if (!this.overlay || on === this.gpuDrawn) return;
    this.gpuDrawn = on;
    for (const r of this.renderers) r.setClearColor(0x0d0e11, on ? 0 : 1);
    for (const m of this.meshes) m.visible = !on;
    this.dirty = true;
  }

  setMaterial(mode) { this.materials[0].uniforms.mode.value = mode; this.materials[1].uniforms.mode.value = mode; this.dirty = true; }

  // Rig segments: Float32Array of 6 floats per bone (head, tail), or null.
  setRig(segments) {
    if (!this.rig) {
      const g = new THREE.BufferGeometry();
      this.rig = this.scenes.map(() => null);
      this.rigGeometry = g;
      this.rigMaterial = new THREE.LineBasicMaterial({ color: 0xff5fd2, depthTest: false, transparent: true });
    }
    const n = segments ? segments.length : 0;
    if (!this.rigGeometry.attributes.position || this.rigGeometry.attributes.position.array.length !== n) {
      this.rigGeometry.dispose();
      this.rigGeometry = new THREE.BufferGeometry();
      this.rigGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(n, 6)), 3));
      this.scenes.forEach((s, i) => {
        if (this.rig[i]) s.remove(this.rig[i]);
        this.rig[i] = new THREE.LineSegments(this.rigGeometry, this.rigMaterial);
        this.rig[i].renderOrder = 10;
        this.rig[i].frustumCulled = false;
        s.add(this.rig[i]);
      });
    }
    if (segments) this.rigGeometry.attributes.position.array.set(segments);
    this.rigGeometry.setDrawRange(0, n / 3);
    this.rigGeometry.attributes.position.needsUpdate = true;
    for (const r of this.rig) r.visible = this.showRig && n > 0;
    this.dirty = true;
  }

  setMarker(vertex) {
    this.markerVertex = vertex;
    if (!this.marker) {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3), 3));
      const m = new THREE.PointsMaterial({ color: 0xffffff, size: 9, sizeAttenuation: false, depthTest: false });
      this.marker = this.groups.map((s) => { const p = new THREE.Points(g, m); p.renderOrder = 11; s.add(p); return p; });
      this.markerGeometry = g;
    }
    const visible = vertex >= 0 && vertex < this.vertexCount;
    if (visible) {
      const a = this.markerGeometry.attributes.position;
      a.array.set(this.position.array.subarray(3 * vertex, 3 * vertex + 3));
      a.needsUpdate = true;
    }
    for (const p of this.marker) p.visible = visible;
    this.dirty = true;
  }

  // The posed mesh's bounding sphere (positions in the mesh's space, taken through the model matrix) filled into
  // the views, seen from the current orbit direction.
  framePositions(positions) {
    const box = new THREE.Box3(), p = new THREE.Vector3();
    for (let i = 0; i + 2 < positions.length; i += 3) box.expandByPoint(p.set(positions[i], positions[i + 1], positions[i + 2]));
    if (box.isEmpty()) return;
    box.applyMatrix4(this.groups[0].matrix);
    const s = box.getBoundingSphere(new THREE.Sphere());
    const dir = this.camera.position.clone().sub(this.controls.target);
    this.frame([s.center.x, s.center.y, s.center.z], s.radius, dir.lengthSq() > 0 ? dir.normalize() : null);
  }

  frame(center, radius, direction = null) {
    const r = Math.max(radius, 1e-3);
    this.controls.target.set(center[0], center[1], center[2]);
    const dir = direction || new THREE.Vector3(0.55, 0.6, 1).normalize();
    // the sphere fits the narrower of the two fields of view
    const half = Math.min(this.camera.fov / 2, Math.atan(Math.tan((this.camera.fov * Math.PI) / 360) * this.camera.aspect) * 180 / Math.PI);
    const d = (r / Math.sin((half * Math.PI) / 180)) * 1.05;
    this.camera.position.set(center[0] + dir.x * d, center[1] + dir.y * d, center[2] + dir.z * d);
    this.camera.near = r / 100; this.camera.far = r * 100;
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.dirty = true;
  }

  // The vertex under a pointer event on one of the canvases (nearest corner of the hit triangle), or -1.
  pick(event) {
    // by position: the orbit control captures the pointer, so the event's target is the container
    const k = this.canvases.findIndex((c) => {
      const r = c.getBoundingClientRect();
      return event.clientX >= r.left && event.clientX < r.right && event.clientY >= r.top && event.clientY < r.bottom;
    });
    if (k < 0 || !this.meshes.length) return -1;
    const rect = this.canvases[k].getBoundingClientRect();
    const ndc = new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1,
      -((event.clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const mesh = this.meshes[k];
    mesh.geometry.computeBoundingSphere();
    mesh.geometry.computeBoundingBox();
    const hit = ray.intersectObject(mesh, false)[0];
    if (!hit) return -1;
    const p = this.position.array;
    const local = mesh.worldToLocal(hit.point.clone());
    let best = -1, bestD = Infinity;
    for (const v of [hit.face.a, hit.face.b, hit.face.c]) {
      const d = local.distanceToSquared(new THREE.Vector3(p[3 * v], p[3 * v + 1], p[3 * v + 2]));
      if (d < bestD) { bestD = d; best = v; }
    }
    return best;
  }

  // Draws the views that changed. A view whose previous frame the GPU has not finished yet (its fence) waits for a
  // later animation frame, and a large mesh draws one view per frame: the main thread then never blocks on the
  // GPU's queue (uploading a 1 M-vertex frame behind an unfinished one stalls it for seconds on a software GPU).
  render() {
    if (!this.fences) { this.fences = [null, null, null, null]; this.stale = [false, false, false, false]; }
    if (this.dirty) this.stale.fill(true);
    this.dirty = false;
    let budget = VERTEX_BUDGET;
    for (let i = 0; i < 4; ++i) {
      const gl = this.renderers[i].getContext();
      if (this.fences[i]) {
        if (gl.getSyncParameter(this.fences[i], gl.SYNC_STATUS) !== gl.SIGNALED) continue;
        gl.deleteSync(this.fences[i]);
        this.fences[i] = null;
      }
      if (!this.stale[i] || (budget <= 0 && budget < VERTEX_BUDGET)) continue;
      this.renderers[i].render(this.scenes[i], this.camera);
      this.stale[i] = false;
      budget -= this.vertexCount || 0;
      if (gl.fenceSync) { this.fences[i] = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0); gl.flush(); }
    }
  }

  // Views left to draw or frames the GPU has not finished.
  get busy() { return (!!this.stale && (this.stale.some(Boolean) || this.fences.some(Boolean))) || !!this.remote?.busy; }
}

const VERTEX_BUDGET = 200000;
