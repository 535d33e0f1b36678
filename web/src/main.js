// The page: controls, the wasm evaluation per change or animation frame, the four views, the readout, the
// vertex inspector, the chart, glTF files and the debug overlay. window.sfPage exposes the state to tests.
import * as THREE from 'three';
import { loadSkinframe, wasmFileName, wasmSimdSupported, METHODS, ALL_METHODS, RECOMPUTE, summaryOf, OPTION_DEFAULTS,
  WEIGHTING_OF_SCENE, WEIGHTINGS, WELDS, TANGENT_MODES, REFERENCES, MORPH_DIRECTIONS } from './skinframe.js';
import { Views } from './views.js';
import { drawChart } from './chart.js';
import { loadGltfFiles, meshCandidates, meshArrays, writePose, rigSegments, sceneRigSegments, startClip, poseScene } from './gltf.js';
import { assetBytes, EVAL_OPTIONS } from './asset_eval.js';
import { RemoteCharacter } from './character_remote.js';
import { GpuReference } from './gpu.js';
import { COLORS } from './chart.js';
import { parseLabUrl, labSearch } from './lab_state.js';
import { RemoteViews } from './gpu_views_page.js';
import { messageBytes } from './message_size.js';
import { VIEW_MODE } from './generated/layout.js';

// the materials' values are the views' modes (generated/layout.js), as the address and the shaders number them
for (const o of document.getElementById('material').options) o.value = String(VIEW_MODE[o.dataset.mode]);
// the reference's menus: each option names its value as the command does (generated/layout.js numbers them)
const OPTION_MENUS = { weighting: WEIGHTINGS, weld: WELDS, tangents: TANGENT_MODES, reference: REFERENCES };
for (const [id, names] of Object.entries(OPTION_MENUS)) {
  for (const o of document.getElementById(id).options) {
    const value = o.dataset.name === 'scene' ? WEIGHTING_OF_SCENE : names.indexOf(o.dataset.name);
    if (value < WEIGHTING_OF_SCENE) throw new Error(`menu ${id}: no option ${o.dataset.name}`);
    o.value = String(value);
  }
}
const MORPH_DELTAS = MORPH_DIRECTIONS.indexOf('deltas'), MORPH_NONE = MORPH_DIRECTIONS.indexOf('none');

const $ = (id) => document.getElementById(id);
const page = { ready: false, errors: [], timing: { wasm: 0, gpu: 0, draw: 0 }, gpu: { backend: 'none' },
  wasm: { simd: false, file: 'skinframe.wasm' } };
window.sfPage = page;

const state = {
  source: 'scene', scene: 'sheet', preset: '', values: {}, morph: {}, method: 1, right: -1,
  options: { ...OPTION_DEFAULTS },
};
const url = parseLabUrl(location.search);
const embedded = url.embed === '1';
let sf, catalog, view = null, views, gpu = null, worker = null, characterWorker = null;
let gltf = null; // { gltf, object, mixer, clip, action, playing, duration, rig }
let remoteViews = null; // the scene worker draws the views with WebGPU (gpu_views_page.js)

function message(text, isError = false) {
  const el = $('message');
  el.textContent = text || '';
  el.className = isError ? 'error' : '';
  if (isError) page.errors.push(text);
}

function sceneInfo(name = state.scene) { return catalog.scenes.find((s) => s.name === name); }

// ---------------------------------------------------------------- controls

// 'blend-width' -> 'Blend width'; units as the reader writes them
const UNITS = { deg: '°', units: ' units', quads: ' quads', x: '×', weight: '' };
function human(name) { const t = name.replace(/-/g, ' '); return t[0].toUpperCase() + t.slice(1); }

function slider(container, name, min, max, value, step, unit, onInput) {
  const row = document.createElement('label');
  row.className = 'slider';
  const suffix = UNITS[unit] ?? ` ${unit}`;
  row.innerHTML = `<span title="${name} (${unit})">${human(name)}</span><input type="range"><output></output>`;
  const input = row.querySelector('input'), out = row.querySelector('output');
  Object.assign(input, { min, max, step, value });
  input.dataset.name = name;
  input.id = `param-${name}`;
  const show = () => { out.textContent = `${Number(input.value).toFixed(step >= 1 ? 0 : 2)}${suffix}`; };
  show();
  input.addEventListener('input', () => { show(); onInput(Number(input.value)); });
  container.append(row);
  return input;
}

function stepFor(p) {
  if (p.name === 'resolution') return 1;
  const span = p.max - p.min;
  return span >= 100 ? 1 : span >= 10 ? 0.1 : 0.01;
}

function buildSceneControls() {
  const info = sceneInfo();
  $('scene-description').textContent = info.description;
  const preset = $('preset');
  preset.innerHTML = '<option value="">rest</option>' + info.presets.map((p) => `<option value="${p.name}" title="${p.description || ''}">${human(p.name)}</option>`).join('');
  preset.value = state.preset;
  const params = $('params'); params.innerHTML = '';
  for (const p of info.params)
    slider(params, p.name, p.min, p.max, state.values[p.name], stepFor(p), p.unit, (v) => { state.values[p.name] = v; openScene(p.name === 'resolution'); });
  const morphs = $('morphs'); morphs.innerHTML = '';
  if (!info.targets.length) morphs.innerHTML = '<p class="note">Morph targets inactive</p>';
  for (const t of info.targets)
    slider(morphs, t, -2, 2, state.morph[t], 0.01, 'weight', (v) => { state.morph[t] = v; openScene(); });
  const over = $('chart-over');
  over.innerHTML = [...info.params.filter((p) => p.name !== 'resolution').map((p) => p.name), ...info.targets]
    .map((n) => `<option value="${n}">${human(n)}</option>`).join('');
  if (gltf) over.innerHTML = '<option value="@time">animation time</option>';
}

function resetValues(presetName) {
  const info = sceneInfo();
  state.values = Object.fromEntries(info.params.map((p) => [p.name, p.default]));
  state.morph = Object.fromEntries(info.targets.map((t) => [t, 0]));
  const preset = info.presets.find((p) => p.name === presetName);
  if (preset) for (const kv of preset.settings.split(',')) {
    const [k, v] = kv.split('=');
    if (k in state.values) state.values[k] = Number(v); else if (k in state.morph) state.morph[k] = Number(v);
  }
}

function sceneSettings(extra = {}) {
  return { ...state.values, ...state.morph, ...extra };
}

function buildStaticControls() {
  $('scene').innerHTML = catalog.scenes.map((s) => `<option value="${s.name}">${human(s.name)}</option>`).join('');
  $('method').innerHTML = catalog.methods.filter((m) => m.default).map((m, i) => `<option value="${i}" title="${m.description}">${m.name}</option>`).join('');
  $('scene').value = state.scene;
  $('method').value = String(state.method);
  $('scene').addEventListener('change', () => {
    state.scene = $('scene').value; state.preset = ''; resetValues('');
    leaveGltf(); buildSceneControls(); openScene(true);
  });
  $('preset').addEventListener('change', () => {
    state.preset = $('preset').value; resetValues(state.preset); buildSceneControls(); openScene(true);
  });
  $('method').addEventListener('change', () => { state.method = Number($('method').value); captions(); refresh(); });
  $('morph-directions').addEventListener('change', () => { state.options.morphDirections = $('morph-directions').checked ? MORPH_DELTAS : MORPH_NONE; applyOptions(); });
  for (const key of Object.keys(OPTION_MENUS))
    $(key).addEventListener('change', () => { state.options[key] = Number($(key).value); applyOptions(); });
  $('material').addEventListener('change', () => { views.setMaterial(Number($('material').value)); saveUrl(); });
  $('show-normals').addEventListener('change', () => { views.showNormals = $('show-normals').checked; refresh(); });
  $('show-tangents').addEventListener('change', () => { views.showTangents = $('show-tangents').checked; refresh(); });
  $('show-rig').addEventListener('change', () => { views.showRig = $('show-rig').checked; updateRig(); saveUrl(); });
  $('chart-run').addEventListener('click', () => runChart());
  $('frame').addEventListener('click', () => frameMesh());
  $('drawer-toggle').addEventListener('click', () => {
    const open = document.body.classList.toggle('drawer-open');
    $('drawer-toggle').setAttribute('aria-expanded', String(open));
  });
  $('file').addEventListener('change', () => { if ($('file').files.length) openFiles($('file').files); });
  const drop = $('views');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('drop'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('drop'));
  drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('drop'); if (e.dataTransfer.files.length) openFiles(e.dataTransfer.files); });
  $('play').addEventListener('click', () => {
    if (!gltf) return;
    gltf.playing = !gltf.playing;
    if (gltf.playing && gltf.time >= gltf.duration) seek(0);
    $('play').textContent = gltf.playing ? 'Pause' : 'Play'; gltf.last = performance.now();
  });
  $('scrub').addEventListener('input', () => { if (gltf) { gltf.playing = false; $('play').textContent = 'Play'; seek(Number($('scrub').value) * gltf.duration); } });
  $('animation').addEventListener('change', () => selectAnimation(Number($('animation').value)));
  $('gltf-mesh').addEventListener('change', () => selectMesh(Number($('gltf-mesh').value)));
  $('back-to-scene').addEventListener('click', () => { leaveGltf(); buildSceneControls(); openScene(true); });
  // a click (not a drag) on a view inspects the vertex under it
  let down = null;
  drop.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
  drop.addEventListener('pointerup', (e) => {
    if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
    if (pickLater(e)) return;
    const v = views.pick(e);
    if (v >= 0) inspect(v);
  });
}

// ---------------------------------------------------------------- the address

const methodIndex = (name) => METHODS.indexOf(name);

// The state the address names (scene, preset, sliders, method, options), before the controls are built.
function applyUrl() {
  if (url.scene && sceneInfo(url.scene)) state.scene = url.scene;
  const info = sceneInfo();
  state.preset = info.presets.some((p) => p.name === url.preset) ? url.preset : '';
  resetValues(state.preset);
  for (const [k, v] of Object.entries(url.values)) if (k in state.values && Number.isFinite(v)) state.values[k] = v;
  for (const [k, v] of Object.entries(url.morph)) if (k in state.morph && Number.isFinite(v)) state.morph[k] = v;
  if (methodIndex(url.method) >= 0) state.method = methodIndex(url.method);
  state.right = url.right ? methodIndex(url.right) : -1;
  for (const [k, v] of Object.entries(url.options)) if (Number.isFinite(v)) state.options[k] = v;
  if (embedded) {
    // an article's demo: the views and the controls it names; the rest of the lab is one link away
    document.body.classList.add('embed');
    const show = new Set((url.show || '').split(',').filter(Boolean));
    for (const el of document.querySelectorAll('[data-part]')) el.hidden = !show.has(el.dataset.part);
    if (url.pair === '1') $('views').classList.add('pair');
    for (const sec of document.querySelectorAll('#controls section'))
      sec.hidden = ![...sec.querySelectorAll('[data-part]')].some((el) => !el.hidden);
    const report = () => parent.postMessage({ type: 'sf-embed-height', height: Math.ceil(document.querySelector('main').getBoundingClientRect().bottom) + 4 }, location.origin);
    new ResizeObserver(report).observe(document.querySelector('main'));
  }
}

// The display options of the address, once the controls exist.
function applyUrlDisplay() {
  const d = url.display;
  if ([...$('material').options].some((o) => Number(o.value) === d.material)) $('material').value = String(d.material);
  $('show-normals').checked = !!d.normals; views.showNormals = !!d.normals;
  $('show-tangents').checked = !!d.tangents; views.showTangents = !!d.tangents;
  $('show-rig').checked = !!d.rig; views.showRig = !!d.rig;
  $('morph-directions').checked = state.options.morphDirections === MORPH_DELTAS;
  for (const key of Object.keys(OPTION_MENUS)) $(key).value = String(state.options[key]);
}

function captions() {
  $('caption-method').textContent = url.c1 || METHODS[state.method];
  $('caption-reference').textContent = url.c2 || (state.right >= 0 ? METHODS[state.right] : 'Recalculated N / T (reference)');
}

// The lab's address follows its state (replaced, not pushed: the back button leaves the lab); an embedded demo
// keeps its "open in the lab" link current instead.
let urlTimer = 0;
function saveUrl() {
  if (urlTimer) return;
  urlTimer = setTimeout(() => {
    urlTimer = 0;
    const info = sceneInfo();
    const defaults = Object.fromEntries(info.params.map((p) => [p.name, p.default]));
    const display = { material: Number($('material').value), normals: views.showNormals, tangents: views.showTangents, rig: views.showRig };
    const search = labSearch(state, display, defaults, METHODS[state.method]);
    $('lab-link').href = `./lab.html?${search}`;
    if (!embedded) history.replaceState(null, '', `?${search}`);
    page.search = search;
  }, 150);
}

// ---------------------------------------------------------------- evaluation

function replaceView(next, reframe) {
  const old = view;
  view = next;
  view.setOptions(state.options);
  view.setLive(true);
  if (old) old.destroy();
  const source = gltf ? `gltf ${gltf.name} ${gltf.candidates.indexOf(gltf.object)}` : `scene ${state.scene}`;
  // the same scene at the same size keeps its index and UV attributes (a slider's pose changes only the rest)
  const sameMesh = old && old.vertexCount === view.vertexCount && old.triangleCount === view.triangleCount && page.source === source;
  if (!sameMesh) views.setMesh(view.vertexCount, view.indices, view.uvs);
  views.setGpuDrawn(gltf ? primitiveOnGpu() : !!view.gpuDrawn);
  if (!gltf) views.setModelMatrix(null); // the scenes' positions are the world's; a glTF's come with their matrix
  // the scene worker runs the GPU passes on its own view, and on its copy of a glTF primitive (selectMesh); this
  // thread's only without a worker
  if (!view.remote) gpu?.setMesh(view);
  // A vertex index or a chart of another mesh means nothing for this one.
  if (!old || old.vertexCount !== view.vertexCount || page.source !== source) {
    page.inspected = -1; page.inspection = null;
    views.setMarker(-1);
    $('inspector').innerHTML = '<p class="note">Click a vertex in any view.</p>';
  }
  if (page.source !== source) {
    drawChart($('chart'), [], []);
    page.chart = null;
  }
  page.source = source;
  page.reframe = reframe;
  $('status').textContent = `${view.vertexCount.toLocaleString('en')} vertices, ${view.triangleCount.toLocaleString('en')} triangles`;
}

// Fits the posed mesh into the views (after the evaluation that posed it).
function frameMesh() {
  if (gltf?.filter < 0 && gltf.character.drawing) views.framePositions(gltf.character.drawing.positions);
  else if (view) views.framePositions(view.positions || view.box); // the box's two corners where the worker draws
}

// ---------------------------------------------------------------- the scenes in a worker

// A scene evaluated in the worker (scene_worker.js): the fields of a View that the page reads, already run.
class Snapshot {
  constructor(s) { Object.assign(this, s); this.remote = true; this._summaries = METHODS.map(() => ({ normal: {}, tangent: {} })); }
  setOptions() { return this; }
  setLive() { return this; }
  run() { return this; }
  destroy() {}
  summary(m) { return summaryOf(this.stats, m, this._summaries[m]); }
}

// Inputs are coalesced: one request in flight; what arrives meanwhile is folded into the next, which carries the
// latest controls. The main thread never waits on an evaluation.
// meshKnown: the page holds the worker's mesh (its indices, UVs and GPU arrays); a glTF file in between clears it.
const remote = { inFlight: false, pending: null, id: 0, meshKnown: false };
function requestScene(reframe) {
  remote.pending = { reframe: reframe || !!remote.pending?.reframe };
  page.busy = true;
  if (!remote.inFlight) sendScene();
}
function sendScene() {
  const { reframe } = remote.pending;
  remote.pending = null;
  remote.inFlight = true;
  remote.reframe = reframe;
  worker.postMessage({ id: ++remote.id, wasm: new URL(page.wasm.file, document.baseURI).href, scene: state.scene,
    settings: sceneSettings(), options: state.options, gpu: workerGpuSettings(), forceMesh: !remote.meshKnown,
    views: remoteViews?.forRequest(views, remoteViewOptions(), remote.id) });
  remote.meshKnown = true;
}
// The scene worker's GPU passes: their settings for a request, and what comes back of them.
function workerGpuSettings() {
  return remote.gpu ? { weighting: referenceWeighting(), capBytes: page.gpu.capBytes, compareAgainst: page.gpu.compareAgainst } : null;
}
function onWorkerGpu(d) {
  if (d.type === 'gpu-time') { remote.timed?.(d); return; }
  if (d.type === 'primitive-views') {
    // the worker draws the glTF primitive's views from its passes' buffers, or (over the adapter's limits) the page
    remote.primitiveDrawn = d.on;
    views.setGpuDrawn(primitiveOnGpu());
    return;
  }
  if (d.type === 'character-views') {
    // the same for the whole character, every unit joined in one mesh (gpu_character.js)
    remote.characterDrawn = d.on;
    if (gltf?.filter < 0) views.setGpuDrawn(characterOnGpu());
    return;
  }
  // under the whole character, what the worker says of the scene or primitive it left is not shown
  const whole = gltf?.filter < 0 && !d.character;
  if (d.isError || (d.line && !whole)) { $('gpu-check').textContent = d.line; if (d.isError) page.errors.push(d.line); }
  if (!d.state || whole) return;
  Object.assign(page.gpu, { limit: d.state.limit, busy: d.state.busy, lastMs: d.state.lastMs });
  // the page numbers every check it receives, this thread's and the worker's alike
  const c = d.state.check;
  if (c && c.runs !== remote.gpuRuns) {
    remote.gpuRuns = c.runs;
    page.gpu.check = { ...c, runs: page.gpu.runs = (page.gpu.runs || 0) + 1 };
  }
}
function onWorker(e) {
  const d = e.data;
  countMessage(d);
  if (d.file !== undefined) return; // a whole character's answer (character_remote.js hears it)
  if (remoteViews?.receive(d)) return;
  if (d.type) { onWorkerGpu(d); return; }
  remote.inFlight = false;
  if (gltf) { remote.meshKnown = false; /* a file opened meanwhile: the scene's answer is stale */ } else if (d.ok) {
    page.timing.wasm = d.snapshot.ms;
    const same = view && view.vertexCount === d.snapshot.vertexCount && view.info?.scene === d.snapshot.info?.scene;
    replaceView(new Snapshot(d.snapshot), remote.reframe || !same);
    if ($('message').className === 'error' || /^opening/.test($('message').textContent)) message('');
    refresh(true);
  } else {
    remote.meshKnown = !!view?.remote;
    message(d.message, true);
  }
  if (remote.pending) sendScene(); else page.busy = false;
}

// Rebuilds the scene from the controls; a failure keeps the open scene and says why.
function openScene(reframe = false) {
  if (gltf) return;
  if (worker) { requestScene(reframe); return; }
  let next;
  try {
    next = sf.openScene(state.scene, '', sceneSettings());
  } catch (e) {
    message(e.message, true);
    return;
  }
  const sameMesh = view && !gltf && view.vertexCount === next.vertexCount && view.info.scene === state.scene;
  replaceView(next, reframe || !sameMesh);
  message('');
  refresh();
}

function applyOptions() {
  if (!view) return;
  if (worker && !gltf) { requestScene(false); return; }
  try { view.setOptions(state.options); } catch (e) { message(e.message, true); return; }
  refresh();
}

// How the reference weights faces: the control's choice, else the scene's (area for a file, as eval).
function referenceWeighting() {
  return state.options.weighting !== WEIGHTING_OF_SCENE ? state.options.weighting
    : gltf ? EVAL_OPTIONS.weighting : WEIGHTINGS.indexOf(sceneInfo().reference_weighting);
}

// One evaluation of the view's current pose and a redraw. fromWorker: the worker's answer, whose GPU passes
// the worker runs itself.
function refresh(fromWorker = false) {
  if (!view) return;
  if (gltf?.filter < 0) {
    // the whole character: the worker poses and evaluates every primitive and onCharacter draws them; nothing
    // is evaluated here (the inspector reads the worker's drawing, the chart asks the worker)
    const c = gltf.character;
    if (c.drawing && !c.busy && page.source !== 'whole') drawWhole(c.drawing);
    updateRig();
    updateReadout();
    saveUrl();
    page.runs = (page.runs || 0) + 1;
    return;
  }
  const t0 = performance.now();
  try { view.run(); } catch (e) { message(e.message, true); return; }
  const t1 = performance.now();
  if (!view.remote) page.timing.wasm = t1 - t0;
  const row = view.rows[state.method];
  // without UVs the core measures no tangents: its tangent arrays are placeholders, not directions
  const tf = view.hasTangentFrame;
  const right = state.right >= 0 ? view.rows[state.right] : null;
  const ref = right ? { normals: right.normals, tangents: tf ? right.tangents : null }
    : { normals: view.refNormals, tangents: tf ? view.refTangents : null };
  // normal and tangent lines are drawn in the mesh's space: a world length over the matrix's scale
  const m = gltf?.toWorld;
  const scale = m ? Math.cbrt(Math.abs(m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5]))) || 1 : 1;
  const length = (0.06 * (gltf ? gltf.radius : view.frame[3])) / scale;
  // where the worker draws the views, a moment carries per-vertex arrays only when the overlay or the
  // inspector asked for them
  if (view.positions) {
    views.update(view.positions, { normals: row.normals, tangents: tf ? row.tangents : null }, ref, row.normalDeg,
      tf ? row.tangentDeg : null, length, !!view.remote);
    if (remoteViews?.pickEvent) pickNow();
  } else if (remoteViewOptions().arrays) requestScene(false);
  if (page.reframe) { page.reframe = false; frameMesh(); }
  updateRig();
  updateReadout();
  saveUrl();
  if (page.inspected >= 0 && view.positions) inspect(page.inspected);
  if (!view.remote && gpu) gpu.run(view, referenceWeighting());
  else if (!view.remote && gltf && remote.gpu) postPrimitivePose();
  else if (view.remote && !fromWorker && remote.gpu) worker.postMessage({ type: 'gpu-run', gpu: workerGpuSettings() });
  page.runs = (page.runs || 0) + 1;
}

// The glTF primitive's pose, options and this evaluation of them (the reference's and each method's frames, the
// statistics), for the scene worker's GPU passes, which are checked against it: the worker does not evaluate the
// pose again. Copies (the view's arrays are wasm memory), handed over without another.
function postPrimitivePose() {
  const tf = view.hasTangentFrame;
  const rows = view.rows.map((r) => (r.normals ? { normals: r.normals.slice(), tangents: tf ? r.tangents?.slice() ?? null : null } : null));
  const q = { type: 'gpu-pose', bones: view.bones.slice(), morph: view.morph.slice(), options: { ...view.options },
    hasTangentFrame: tf, refNormals: view.refNormals.slice(), refTangents: tf ? view.refTangents?.slice() ?? null : null, rows,
    stats: view.stats.slice(), gpu: workerGpuSettings(), pose: ++remote.id,
    views: remoteViews?.forRequest(views, remoteViewOptions(), remote.id) };
  const arrays = [q.bones, q.morph, q.refNormals, q.refTangents, q.stats, ...rows.flatMap((r) => (r ? [r.normals, r.tangents] : []))];
  worker.postMessage(q, arrays.filter(Boolean).map((a) => a.buffer));
}

// Every primitive instance posed together, as the worker drew them at the table's moment: one mesh in the
// scene's space (web/asset_draw.c), coloured by the method's per-vertex errors.
function drawWhole(d) {
  const tf = d.tangentFrame;
  if (page.source !== 'whole' || views.vertexCount !== d.vertexCount) {
    views.setMesh(d.vertexCount, d.indices, null);
    page.source = 'whole';
    page.reframe = true;
  }
  views.setModelMatrix(null);
  views.setGpuDrawn(characterOnGpu());
  views.update(d.positions, { normals: d.normals, tangents: tf ? d.tangents : null },
    { normals: d.refNormals, tangents: tf ? d.refTangents : null }, d.normalDeg, tf ? d.tangentDeg : null,
    0.06 * gltf.radius, true);
  if (page.reframe) { page.reframe = false; views.framePositions(d.positions); }
  page.drawn = { vertices: d.vertexCount, triangles: d.triangleCount, units: d.first.length - 1, method: state.method };
  $('status').textContent = `${d.vertexCount.toLocaleString('en')} vertices, ${d.triangleCount.toLocaleString('en')} triangles (whole character)`;
}

function updateRig() {
  let seg = null;
  // the whole character: every skin's joints (only while shown: it walks the scene)
  if (gltf && gltf.filter < 0) seg = views.showRig ? wholeRig() : null;
  else if (gltf) seg = gltf.rig = rigSegments(gltf.object, gltf.rig);
  else if (view?.boneHeads) {
    seg = new Float32Array(6 * view.boneCount);
    for (let b = 0; b < view.boneCount; ++b) {
      seg.set(view.boneHeads.subarray(3 * b, 3 * b + 3), 6 * b);
      seg.set(view.boneTails.subarray(3 * b, 3 * b + 3), 6 * b + 3);
    }
  }
  views.setRig(seg);
}

// Every skin's joints posed by three.js at the moment the views show: the worker's last drawing, which trails the
// page's time while the clip plays. The scene is posed back at the page's time after.
function wholeRig() {
  const c = gltf.character;
  const t = c.drawing && c.animation === gltf.animation ? c.time : gltf.time;
  if (t !== gltf.time) poseScene(gltf.gltf.scene, gltf.mixer, gltf.action, t);
  gltf.rig = sceneRigSegments(gltf.gltf.scene, gltf.rig);
  if (t !== gltf.time) poseScene(gltf.gltf.scene, gltf.mixer, gltf.action, gltf.time);
  return gltf.rig;
}

function fmt(x) { return Number.isFinite(x) ? x.toFixed(3) : '–'; }
const NOT_MEASURED = 'not measured';

function updateReadout() {
  const body = $('readout').tBodies[0];
  if (body.rows.length !== METHODS.length) {
    body.innerHTML = METHODS.map((m, i) => `<tr data-method="${m}"><td><i class="swatch" style="background:${COLORS[i]}"></i>${m}</td><td></td><td></td><td></td><td></td><td></td></tr>`).join('');
  }
  page.stats = {};
  // the whole character (the mesh picker's first entry): the library's table of every primitive posed together
  const whole = gltf?.filter < 0 ? characterTable() : null;
  const tangent = whole ? METHODS.some((m) => whole[m]?.tangentCount > 0) : view.hasTangentFrame;
  METHODS.forEach((m, i) => {
    const s = whole ? wholeSummary(whole[m]) : view.summary(i);
    const cells = body.rows[i].cells;
    cells[1].textContent = fmt(s.normal.mean); cells[2].textContent = fmt(s.normal.max);
    cells[3].textContent = tangent ? fmt(s.tangent.mean) : NOT_MEASURED; cells[4].textContent = tangent ? fmt(s.tangent.max) : NOT_MEASURED;
    cells[5].textContent = tangent ? String(s.handedness) : NOT_MEASURED;
    body.rows[i].className = i === state.method ? 'selected' : '';
    page.stats[m] = { normalMean: s.normal.mean, normalMax: s.normal.max, tangentMean: tangent ? s.tangent.mean : null,
      tangentMax: tangent ? s.tangent.max : null };
  });
  $('readout-note').textContent = (whole ? `${wholeNote()} ` : '') + (tangent ? '' : 'Tangents not measured: the mesh has no UVs (TEXCOORD), and a tangent frame needs them.');
  $('caption-tangent').textContent = tangent ? 'Tangent error' : 'Tangent error: not measured (no UVs)';
}

// The whole character's table now (every primitive at the page's time and options), or null with the reason shown.
// The table comes from the character worker: until the moment asked for arrives, the last one stays.
function characterTable() {
  const t = gltf.character.at(gltf.animation, gltf.time, state.options, gltf.filter < 0 ? ALL_METHODS.indexOf(METHODS[state.method]) : -1);
  if (gltf.character.reason) message(`${gltf.name}: whole character: ${gltf.character.reason}`, true);
  page.characterBusy = gltf.character.busy;
  return t || (gltf.character.reason ? null : {}); // {}: the first table is on its way
}

// A newer whole-character table from the worker: the readout and the timings follow.
function onCharacter(c) {
  if (gltf?.character !== c) return;
  const t0 = performance.now();
  page.timing.character = c.ms;
  if (gltf.filter < 0 && c.drawing) { drawWhole(c.drawing); updateRig(); }
  if (gltf.filter < 0) updateReadout();
  if (gltf.filter < 0 && page.inspected >= 0) inspect(page.inspected);
  page.characterBusy = c.busy;
  page.timing.characterMain = performance.now() - t0; // this thread's share of a table: drawing it and the readout
  page.timing.characterMainMax = Math.max(page.timing.characterMainMax || 0, page.timing.characterMain);
}

// The worker that evaluates whole characters: the scene worker where it draws the views with WebGPU (the
// moments' GPU passes run beside their evaluation there), else a worker of its own.
function characterWorkerFor() {
  if (remoteViews && remote.gpu) return worker;
  if (!characterWorker) {
    characterWorker = new Worker(new URL('./character_worker.js', import.meta.url), { type: 'module' });
    characterWorker.addEventListener('error', (e) => message(`the whole-character worker failed: ${e.message}`, true));
  }
  return characterWorker;
}

function wholeSummary(r) {
  const none = { mean: NaN, max: NaN };
  if (!r || r.status !== 'measured') return { normal: none, tangent: none, handedness: 0 };
  return { normal: { mean: r.normalMean, max: r.normalMax }, tangent: { mean: r.tangentMean ?? NaN, max: r.tangentMax ?? NaN },
    handedness: r.handedness };
}

function wholeNote() {
  const a = gltf.character.asset;
  return `Whole character: ${a.units} primitive instance${a.units === 1 ? '' : 's'}, ${a.vertices.toLocaleString('en')} vertices, posed together at ${gltf.time.toFixed(3)} s (the library's evaluation, as skinframe eval), drawn together in the views.`;
}

function vec(a, i, w) { return Array.from(a.subarray(i * w, i * w + w)).map((x) => x.toFixed(4)).join(', '); }

// Vertex v of the whole character as the worker drew it: its unit (mesh instance and primitive, named as eval
// names a vertex: node, mesh, primitive), its index there, and every method's angles at the drawn moment, which
// the worker sends for this one vertex (a moment carries only the drawn method's angles).
async function inspectWhole(v) {
  const c = gltf.character, d = c.drawing, info = c.asset?.unitInfo;
  page.inspected = v;
  views.setMarker(v);
  if (!d || !info || v >= d.vertexCount) return;
  const asked = page.inspectAsked = (page.inspectAsked || 0) + 1;
  const r = await c.inspect(v);
  // a later pick, file or mesh filter answers instead
  if (!r || asked !== page.inspectAsked || gltf?.character !== c || gltf.filter >= 0) return;
  let unit = 0;
  while (d.first[unit + 1] <= v) ++unit;
  const [node, mesh, primitive, instance] = info.subarray(4 * unit, 4 * unit + 4);
  const local = v - d.first[unit];
  const tf = d.tangentFrame && METHODS.some((m) => c.table?.[m]?.tangentCount > 0);
  let html = `<p>vertex ${local} of node ${node}, mesh ${mesh}, primitive ${primitive} (unit ${unit}, instance ${instance}) at ` +
    `(${r.position.map((x) => x.toFixed(4)).join(', ')}), ${r.time.toFixed(3)} s</p><table><tr><th>method</th><th>normal ∠ ref °</th><th>tangent ∠ ref °</th></tr>`;
  const rows = {};
  METHODS.forEach((m, k) => {
    const nd = r.angles[2 * k], td = tf ? r.angles[2 * k + 1] : null;
    rows[m] = { normalDeg: nd, tangentDeg: td };
    html += `<tr data-method="${m}"${k === state.method ? ' class="selected"' : ''}><td>${m}</td><td>${fmt(nd)}</td><td>${td === null ? NOT_MEASURED : fmt(td)}</td></tr>`;
  });
  $('inspector').innerHTML = html + '</table>';
  page.inspection = { vertex: v, unit, node, mesh, primitive, instance, unitVertex: local, time: r.time, rows };
}

// Resolves once the inspector shows vertex v (the whole character's answer comes from its worker).
async function inspect(v) {
  if (gltf?.filter < 0) { await inspectWhole(v); return; }
  page.inspected = v;
  views.setMarker(v);
  const n = view.vertexCount;
  if (v >= n) return;
  let html = `<p>vertex ${v} at (${vec(view.positions, v, 3)})</p><table><tr><th>method</th><th>normal</th><th>∠ ref °</th><th>tangent</th><th>∠ ref °</th></tr>`;
  const tf = view.hasTangentFrame;
  html += `<tr><td>reference</td><td>${vec(view.refNormals, v, 3)}</td><td></td><td>${tf && view.refTangents ? vec(view.refTangents, v, 4) : NOT_MEASURED}</td><td></td></tr>`;
  const rows = {};
  METHODS.forEach((m, i) => {
    const r = view.rows[i];
    const td = tf && r.tangentDeg ? r.tangentDeg[v] : null;
    rows[m] = { normalDeg: r.normalDeg[v], tangentDeg: td };
    html += `<tr data-method="${m}"><td>${m}</td><td>${vec(r.normals, v, 3)}</td><td>${fmt(r.normalDeg[v])}</td><td>${tf && r.tangents ? vec(r.tangents, v, 4) : ''}</td><td>${td === null ? NOT_MEASURED : fmt(td)}</td></tr>`;
  });
  $('inspector').innerHTML = html + '</table>';
  page.inspection = { vertex: v, rows };
}

// ---------------------------------------------------------------- chart

async function runChart(steps = 24) {
  const over = $('chart-over').value;
  const kind = $('chart-kind').value;
  const xs = [], series = METHODS.map((m) => ({ name: m, values: [] }));
  const whole = gltf?.filter < 0 ? characterTable() : null;
  const tangents = whole ? METHODS.some((m) => whole[m]?.tangentCount > 0) : view.hasTangentFrame;
  if (kind === 'tangent' && !tangents) { message('tangents not measured: the mesh has no UVs', true); return; }
  if (gltf?.filter < 0) {
    // the whole character: each point the worker's table of that moment, at frames of the clip as eval plays it
    if (!gltf.clip) { message('the file has no animation to chart', true); return; }
    const frames = Math.ceil(gltf.duration * 30 - 1e-6) + 1; // the multiples of 1/30 s below the end, and the end
    const picked = [...new Set(Array.from({ length: steps }, (_, i) => Math.round(((frames - 1) * i) / (steps - 1))))];
    for (const f of picked) {
      const t = f + 1 >= frames ? gltf.duration : f / 30;
      const table = await gltf.character.tableAt(gltf.animation, t, state.options);
      if (!table) { message(`${gltf.name}: whole character: ${gltf.character.reason}`, true); return; }
      xs.push(t);
      METHODS.forEach((m, k) => series[k].values.push(table[m]?.status === 'measured' ? (kind === 'tangent' ? table[m].tangentMean ?? NaN : table[m].normalMean) : NaN));
    }
    page.chartFrames = picked;
  } else if (gltf) {
    if (!gltf.clip) { message('the file has no animation to chart', true); return; }
    const keep = gltf.time;
    for (let i = 0; i < steps; ++i) {
      const t = (gltf.duration * i) / (steps - 1);
      seek(t, false);
      view.run();
      xs.push(t);
      METHODS.forEach((_, m) => series[m].values.push(view.summary(m)[kind].mean));
    }
    seek(keep);
  } else {
    const info = sceneInfo();
    const p = info.params.find((q) => q.name === over);
    const [lo, hi] = p ? [p.min, p.max] : [-2, 2];
    for (let i = 0; i < steps; ++i) {
      const x = lo + ((hi - lo) * i) / (steps - 1);
      let v;
      try { v = sf.openScene(state.scene, '', sceneSettings({ [over]: x })); } catch (e) { message(e.message, true); return; }
      v.setOptions(state.options).setLive(true).run();
      xs.push(x);
      METHODS.forEach((_, m) => series[m].values.push(kind === 'tangent' && !v.hasTangentFrame ? NaN : v.summary(m)[kind].mean));
      v.destroy();
    }
  }
  drawChart($('chart'), xs, series, { xLabel: gltf ? 'time (s)' : over, yLabel: `mean ${kind} error (deg)` });
  if ($('message').className === 'error') message('');
  page.chart = { over: gltf ? '@time' : over, kind, xs, series, whole: gltf?.filter < 0 };
}

// ---------------------------------------------------------------- glTF

async function openFiles(files) {
  const names = Array.from(files).map((f) => f.name).join(', ');
  message(`opening ${names}…`);
  let loaded;
  try {
    loaded = await loadGltfFiles(files);
  } catch (e) {
    return rejectFiles(`${names}: ${e.message}`);
  }
  const candidates = meshCandidates(loaded);
  if (!candidates.length) return rejectFiles(`${names}: no mesh in the file`);
  const previous = gltf;
  remote.characterDrawn = false; // until the worker says it draws this file's character
  // eval's reference options for a file (selectMesh sets them when a file replaces a scene)
  const options = state.source === 'gltf' ? state.options
    : { ...state.options, weld: EVAL_OPTIONS.weld, tangents: EVAL_OPTIONS.tangents };
  const character = await new RemoteCharacter(characterWorkerFor(), new URL(page.wasm.file, document.baseURI).href,
    await assetBytes(files, loaded.parser), onCharacter).open(options);
  gltf = { gltf: loaded, name: names, candidates, mixer: new THREE.AnimationMixer(loaded.scene), time: 0, playing: false,
    character, filter: character.reason ? 0 : -1, animation: -1 };
  if (!selectMesh(gltf.filter)) { gltf = previous; character.destroy(); return rejectFiles(null); }
  previous?.character.destroy();
  $('gltf-mesh').innerHTML = (character.reason ? '' : '<option value="-1">whole character (every primitive, as skinframe eval)</option>') + candidates.map((o, i) => `<option value="${i}">${o.name || 'mesh ' + i} (${o.geometry.attributes.position.count} v${o.isSkinnedMesh ? ', skinned' : ''})</option>`).join('');
  $('animation').innerHTML = loaded.animations.length
    ? loaded.animations.map((a, i) => `<option value="${i}">${a.name || 'animation ' + i} (${a.duration.toFixed(2)} s)</option>`).join('')
    : '<option value="-1">(none: rest pose)</option>';
  $('gltf-controls').hidden = false;
  buildSceneControls();
  selectAnimation(loaded.animations.length ? 0 : -1);
  const a = character.asset;
  message(gltf.filter < 0 ? `${names}: ${a.units} primitive instance${a.units === 1 ? '' : 's'}, ${a.vertices} vertices`
    : `${names}: ${view.vertexCount} vertices, ${view.triangleCount} triangles`);
}

// The open scene or character stays; the file picker forgets the rejected name, so it shows what is open.
function rejectFiles(text) {
  if (text) message(text, true);
  $('file').value = '';
}

// index -1: the whole character, every primitive drawn together (the first, largest, is the inspector's and the
// chart's); index >= 0: that primitive alone.
function selectMesh(index) {
  gltf.filter = index;
  const object = gltf.candidates[Math.max(0, index)];
  let next, desc;
  try {
    desc = meshArrays(object);
    next = sf.createMesh(desc);
  } catch (e) {
    message(`${gltf.name}: ${e.message}`, true);
    return false;
  }
  gltf.object = object;
  $('scene-section').classList.add('inactive');
  if (state.source !== 'gltf') {
    // the defaults of `skinframe eval` for real assets: UV seams welded, hard edges kept, MikkTSpace
    Object.assign(state.options, { weld: EVAL_OPTIONS.weld, tangents: EVAL_OPTIONS.tangents });
    $('weld').value = String(EVAL_OPTIONS.weld); $('tangents').value = String(EVAL_OPTIONS.tangents);
  }
  state.source = 'gltf';
  const box = new THREE.Box3().setFromObject(index < 0 ? gltf.gltf.scene : object);
  gltf.radius = box.getBoundingSphere(new THREE.Sphere()).radius;
  replaceView(next, true);
  remote.meshKnown = false; // the worker's scene is no longer the page's
  // the worker's GPU passes: the scene's buffers go; a primitive's copy takes them (its poses follow in refresh)
  // until the worker says it draws the new primitive, the page does
  remote.primitiveDrawn = false;
  views.setGpuDrawn(index < 0 && characterOnGpu());
  if (remote.gpu) worker.postMessage(index < 0 ? { type: 'gpu-release' } : { type: 'gpu-mesh', desc,
    gpu: workerGpuSettings(), wasm: new URL(page.wasm.file, document.baseURI).href });
  seek(gltf.time || 0);
  return true;
}

function selectAnimation(index) {
  gltf.animation = index;
  gltf.clip = index >= 0 ? gltf.gltf.animations[index] : null;
  gltf.duration = gltf.clip ? gltf.clip.duration : 0;
  gltf.action = startClip(gltf.mixer, gltf.clip);
  seek(0);
}

// The animation at time t: three.js poses the scene, the bone matrices and weights go to the core.
function seek(t, redraw = true) {
  gltf.time = t;
  poseScene(gltf.gltf.scene, gltf.mixer, gltf.action, t);
  gltf.toWorld = writePose(gltf.object, view.bones, view.morph, gltf.toWorld);
  if (gltf.filter >= 0) views.setModelMatrix(gltf.toWorld); // the whole character's positions are the scene's
  $('scrub').value = gltf.duration ? String(t / gltf.duration) : '0';
  $('time').textContent = `${t.toFixed(2)} s`;
  if (redraw) refresh();
}

function leaveGltf() {
  if (!gltf) return;
  gltf.mixer.stopAllAction();
  gltf.character.destroy();
  gltf = null;
  page.characterBusy = false;
  state.source = 'scene';
  $('scene-section').classList.remove('inactive');
  $('gltf-controls').hidden = true;
  $('file').value = '';
}

// ---------------------------------------------------------------- loop

function loop(now) {
  if (gltf?.playing && gltf.duration) {
    const dt = (now - (gltf.last || now)) / 1000;
    gltf.last = now;
    // the clip plays once and holds its last pose (docs/viewer.md); Play again starts it over
    const t = Math.min(gltf.time + dt, gltf.duration);
    if (t >= gltf.duration) { gltf.playing = false; $('play').textContent = 'Play'; }
    seek(t);
  }
  if (remoteViews && (view?.remote || primitiveOnGpu() || characterOnGpu())) remoteViews.sync(views, remoteViewOptions());
  if (views.dirty || views.busy) {
    const t0 = performance.now();
    views.render();
    page.timing.draw = performance.now() - t0;
  }
  // under the whole character: the worker's moment, and the passes of its joined units where they run
  const whole = gltf?.filter < 0;
  const w = whole ? page.timing.character ?? 0 : page.timing.wasm, g = whole && !characterOnGpu() ? null : page.gpu.lastMs;
  $('overlay').textContent = `wasm compute ${w.toFixed(2)} ms (${page.wasm.simd ? 'SIMD' : 'no SIMD'})\n` +
    `GPU compute  ${g != null ? g.toFixed(2) + ' ms' : 'off (' + page.gpu.backend + ')'}\n` +
    `drawing      ${page.timing.draw.toFixed(2)} ms\n${shownVertices()}`;
  requestAnimationFrame(loop);
}

// The vertices the views show: the whole character's, or the open view's.
function shownVertices() {
  const n = gltf?.filter < 0 ? page.drawn?.vertices : view?.vertexCount;
  return n ? `${n} vertices` : '';
}

// ---------------------------------------------------------------- the views drawn in the worker

// Whether the worker draws the open glTF primitive's views.
function primitiveOnGpu() { return !!(remoteViews && gltf && gltf.filter >= 0 && remote.primitiveDrawn); }
// Whether it draws the whole character's (its passes' buffers; else this thread draws the character's arrays).
function characterOnGpu() { return !!(remoteViews && gltf && gltf.filter < 0 && remote.characterDrawn); }

// What the worker's views show (gpu_views_page.js): a scene, a glTF primitive placed by its model matrix, or
// the whole character (each unit placed by its node there); the per-vertex arrays only for the overlay's vectors
// and the inspector.
function remoteViewOptions() {
  const primitive = !!gltf && gltf.filter >= 0;
  return { on: !gltf || primitive || characterOnGpu(), model: primitive ? gltf.toWorld : null, material: Number($('material').value), method: METHODS[state.method],
    right: state.right >= 0 ? METHODS[state.right] : null,
    arrays: views.showNormals || views.showTangents || page.inspected >= 0 };
}

// A click where the moment came without positions: the next moment brings them, and the pick happens then.
function pickLater(e) {
  if (!remoteViews || gltf || !view?.remote || view.positions) return false;
  remoteViews.pickEvent = { clientX: e.clientX, clientY: e.clientY };
  requestScene(false);
  return true;
}
function pickNow() {
  const e = remoteViews.pickEvent;
  remoteViews.pickEvent = null;
  const v = views.pick(e);
  if (v >= 0) inspect(v);
}

// Every message from the scene worker, counted (sfPage.messages: the bound on what a moment posts).
function countMessage(d) {
  const m = page.messages || (page.messages = { count: 0, bytes: 0, largest: 0, last: 0 });
  const b = messageBytes(d);
  m.count += 1; m.bytes += b; m.last = b; m.largest = Math.max(m.largest, b);
}

// The four canvases handed to the scene worker, which draws them from its GPU buffers; views.js draws on
// transparent canvases on top. Without a worker's WebGPU (or with gpuviews=0 in the address) views.js draws all.
async function startViews() {
  const container = $('views');
  const ids = ['view-method', 'view-reference', 'view-normal-error', 'view-tangent-error'];
  const overlays = remote.gpu && url.gpuviews !== '0' ? RemoteViews.overlays(document) : null;
  if (!overlays) return new Views(ids.map($), container);
  const prev = worker.onmessage;
  remoteViews = await RemoteViews.start(worker, document, (take) => {
    worker.onmessage = (e) => { if (!take(e.data)) prev(e); else worker.onmessage = prev; };
  });
  if (!remoteViews) message('the WebGPU views could not start: three.js draws them', false);
  const v = new Views(overlays, container, true);
  v.remote = remoteViews;
  page.remoteViews = remoteViews;
  return v;
}

// The scene worker's GPUDevice, the page's only one: the scenes' and a glTF primitive's passes run there; the
// benchmark's timings come from it.
async function startWorkerGpu() {
  const ready = await new Promise((resolve) => {
    worker.onmessage = (e) => { if (e.data.type === 'gpu-init') resolve(e.data); else onWorker(e); };
    worker.postMessage({ type: 'gpu-init' });
  });
  worker.onmessage = onWorker;
  remote.gpu = ready.ok;
  if (!ready.ok) { page.gpu.backend = 'webgpu unavailable in the worker: wasm'; return; }
  page.gpu.backend = 'webgpu';
  page.gpu.granted = ready.granted;
  page.gpu.timeUpdates = (count) => new Promise((resolve, reject) => {
    remote.timed = (d) => { remote.timed = null; if (d.times) resolve(d.times); else reject(new Error(d.message)); };
    worker.postMessage({ type: 'gpu-time', count });
  });
}

async function main() {
  try {
    // SIMD128 where the engine validates it (the same results, bit for bit, in less time)
    const simd = wasmSimdSupported();
    page.wasm = { simd, file: wasmFileName(simd) };
    console.info(`skinframe: ${page.wasm.file} (${simd ? 'WebAssembly SIMD' : 'no WebAssembly SIMD in this browser'})`);
    sf = await loadSkinframe(new URL(page.wasm.file, document.baseURI));
  } catch (e) {
    message(`could not load the wasm core: ${e.message}`, true);
    return;
  }
  page.sf = sf;
  catalog = sf.catalog();
  page.catalog = catalog;
  page.gpu.backend = navigator.gpu ? 'webgpu unavailable: wasm' : 'no webgpu: wasm';
  // the scenes are evaluated in a worker, with or without WebGPU (worker=0 in the address keeps them on this
  // thread); with WebGPU the worker holds the page's one GPUDevice and runs the passes on its own frames
  if (url.worker !== '0' && typeof Worker !== 'undefined') {
    worker = new Worker(new URL('./scene_worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = onWorker;
    worker.onerror = (e) => message(`the worker failed: ${e.message}`, true);
    if (navigator.gpu) await startWorkerGpu();
  } else {
    gpu = await GpuReference.create(page, (text, isError) => { $('gpu-check').textContent = text; if (isError) page.errors.push(text); });
    if (gpu) page.gpu.backend = 'webgpu';
  }
  page.worker = !!worker;
  views = await startViews();
  page.views = views;
  applyUrl();
  buildStaticControls();
  buildSceneControls();
  applyUrlDisplay();
  views.setMaterial(Number($('material').value));
  captions();
  openScene(true);
  page.state = state;
  page.refresh = refresh;
  page.view = () => view;
  page.openFiles = openFiles;
  page.seek = (t) => seek(t);
  page.duration = () => (gltf ? gltf.duration : 0); // the open clip's, in seconds
  page.time = () => (gltf ? gltf.time : 0); // the page's time in the clip (the drawn moment is character().time)
  // the whole character: its table now, and its clip's as eval --json reports it (null where there is none)
  page.character = () => (gltf ? { filter: gltf.filter, reason: gltf.character.reason, units: gltf.character.asset?.units,
    vertices: gltf.character.asset?.vertices, table: gltf.filter < 0 ? characterTable() : null, time: gltf.character.time,
    tables: gltf.character.tables, workerMs: gltf.character.ms, drawingBytes: gltf.character.drawingBytes, drawn: page.drawn,
    // the drawing's units: each one's first vertex, and its node, mesh, primitive and instance (4 per unit)
    first: gltf.character.drawing ? Array.from(gltf.character.drawing.first) : null,
    unitInfo: gltf.character.asset?.unitInfo ? Array.from(gltf.character.asset.unitInfo) : null } : null);
  page.characterClip = async () => (gltf ? gltf.character.clip(gltf.animation, state.options) : null);
  // three.js's own view of the open file at the page's time, for tests: every mesh's skinned and morphed
  // vertices' box in the scene and its triangles
  page.sceneBox = () => {
    if (!gltf) return null;
    const scene = gltf.gltf.scene;
    scene.updateMatrixWorld(true);
    const box = new THREE.Box3().setFromObject(scene, true);
    let triangles = 0;
    scene.traverse((o) => { if (o.isMesh) triangles += (o.geometry.index ? o.geometry.index.count : o.geometry.attributes.position.count) / 3; });
    return { box: [...box.min.toArray(), ...box.max.toArray()], triangles };
  };
  page.characterBytes = () => (gltf ? gltf.character.bytes : null); // what the module reads (a meshopt file decoded)
  page.runChart = runChart;
  page.inspect = async (v) => { await inspect(v); return page.inspection; };
  page.ready = true;
  requestAnimationFrame(loop);
}

main();
export { RECOMPUTE };
