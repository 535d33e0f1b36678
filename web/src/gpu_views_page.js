// The page's side of the views drawn in the scene worker (gpu_views.js): the four canvases go to the worker
// (transferControlToOffscreen) and keep their ids; a transparent canvas on top of each takes views.js's three.js
// drawing (rig, vectors, marker; the whole mesh again where the worker does not draw it: a glTF file, a mesh
// over the adapter's limits). The camera and the view settings go with each scene request and, when only they
// changed, once per animation frame at most; the worker reports what it drew, so `busy` says whether the views
// show the latest of both.
import * as THREE from 'three';

const IDS = ['view-method', 'view-reference', 'view-normal-error', 'view-tangent-error'];

export class RemoteViews {
  // The overlay canvases, or null where the browser cannot hand a canvas to a worker.
  static overlays(doc) {
    const canvases = IDS.map((id) => doc.getElementById(id));
    if (!canvases.every((c) => c && typeof c.transferControlToOffscreen === 'function')) return null;
    return canvases.map((c) => {
      const o = doc.createElement('canvas');
      o.id = `${c.id}-overlay`;
      o.className = 'overlay';
      c.after(o);
      return o;
    });
  }

  // Hands the canvases to the worker; resolves to a RemoteViews, or null when the worker cannot draw them.
  static async start(worker, doc, listen) {
    const offscreen = IDS.map((id) => doc.getElementById(id).transferControlToOffscreen());
    const ok = await new Promise((resolve) => {
      listen((d) => { if (d.type === 'views-init') { resolve(d.ok); return true; } return false; });
      worker.postMessage({ type: 'views-init', canvases: offscreen }, offscreen);
    });
    return ok ? new RemoteViews(worker) : null;
  }

  constructor(worker) {
    this.worker = worker;
    this.id = 0; // the settings' ids, each request's and each camera move's
    this.sentPose = 0; // the latest scene request's id
    this.drawn = { pose: 0, settings: 0 };
    this.posesDrawn = 0;
    this.last = '';
    this.pickEvent = null; // a click waiting for the moment's arrays
  }

  // The worker's settings for what the page shows: on (false: the page draws, e.g. a whole glTF character), the camera,
  // the size, material and methods, and whether the page needs this moment's per-vertex arrays.
  settings(views, o) {
    const cam = views.camera;
    cam.updateMatrixWorld();
    const vp = new THREE.Matrix4().multiplyMatrices(cam.projectionMatrix, cam.matrixWorldInverse);
    if (o.model) vp.multiply(new THREE.Matrix4().fromArray(o.model)); // a glTF primitive's positions to the scene
    const size = views.renderers[0].getDrawingBufferSize(new THREE.Vector2());
    return { on: o.on, viewProj: Float32Array.from(vp.elements), model: o.model ? Array.from(o.model) : null,
      width: Math.max(1, size.x), height: Math.max(1, size.y),
      material: o.material, method: o.method, right: o.right, arrays: !!(o.arrays || this.pickEvent) };
  }

  // With a scene request: its settings, numbered.
  forRequest(views, o, requestId) {
    const s = this.settings(views, o);
    this.last = JSON.stringify({ ...s, viewProj: Array.from(s.viewProj) });
    this.sentPose = requestId;
    return { ...s, id: ++this.id };
  }

  // Once per animation frame: the settings again if they changed since the last sent (a camera move).
  sync(views, o) {
    const s = this.settings(views, o);
    const key = JSON.stringify({ ...s, viewProj: Array.from(s.viewProj) });
    if (key === this.last) return;
    this.last = key;
    this.worker.postMessage({ type: 'views', views: { ...s, id: ++this.id } });
  }

  // A message from the worker: true when it was the views' (a draw's report).
  receive(d) {
    if (d.type !== 'drawn') return false;
    if (d.pose > this.drawn.pose) this.posesDrawn += 1; // for the benchmark: poses shown, not camera moves
    this.drawn = { pose: Math.max(this.drawn.pose, d.pose), settings: Math.max(this.drawn.settings, d.settings) };
    return true;
  }

  get busy() { return this.drawn.pose < this.sentPose || this.drawn.settings < this.id; }
}
