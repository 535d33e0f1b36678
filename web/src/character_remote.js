// The page's side of the whole character (character_answer.js evaluates it, in the character worker or, where it
// draws the views with WebGPU, the scene worker): the table of the latest moment asked for. Moments are
// coalesced: one in flight; what is asked meanwhile replaces what waits, so the latest time and options win and
// the main thread never evaluates.
let nextFile = 0;

export class RemoteCharacter {
  // worker: the worker that answers; wasm: the module's address; bytes: assetBytes(files); onTable(character):
  // called on the main thread when a newer table (or a failure, in .reason) arrives.
  constructor(worker, wasm, bytes, onTable) {
    Object.assign(this, { worker, wasm, bytes, onTable });
    this.file = ++nextFile;
    this.reason = '';
    this.asset = null; // {units, vertices, unitInfo (AssetEval.unitInfo)} once the worker has opened the file
    this.table = null;
    this.drawing = null; // the views' arrays of .table's moment (AssetEval.draw), when asked for
    this.key = '';     // the moment and options of .table
    this.want = null;  // the latest moment asked for: {key, animation, time, options}
    this.inFlight = null;
    this.ms = 0;       // the worker's time for the last table
    this.time = 0;     // the moment of .table (seconds)
    this.animation = -1; // and its animation
    this.drawingBytes = 0; // the typed arrays' bytes of the last drawing received
    this.tables = 0;   // tables received
    this.replies = new Map();
    this.seq = 0;
    this.listener = (e) => this._reply(e.data);
    worker.addEventListener('message', this.listener);
  }

  _send(q) {
    const seq = ++this.seq;
    this.worker.postMessage({ ...q, file: this.file, seq, wasm: this.wasm });
    return new Promise((resolve) => this.replies.set(seq, resolve));
  }

  _reply(d) {
    if (d.file !== this.file) return;
    const resolve = this.replies.get(d.seq);
    this.replies.delete(d.seq);
    resolve?.(d);
  }

  // Opens the file in the worker with options (the page's state.options): resolves when its asset is made.
  async open(options) {
    const d = await this._send({ open: true, bytes: this.bytes, options });
    this.reason = d.reason || '';
    this.asset = d.reason ? null : { units: d.units, vertices: d.vertices, unitInfo: d.unitInfo };
    return this;
  }

  get busy() { return !!this.inFlight || (!this.reason && !!this.want && this.want.key !== this.key); }

  // The table of the last moment evaluated; asks for (animation, time, options) when that is not it. null until
  // a first table arrives or where there is none (.reason).
  // draw: the sf_method index whose arrays the views draw (.drawing), or -1 for the table alone.
  at(animation, time, options, draw = -1) {
    const key = `${JSON.stringify(options)} ${animation} ${time} ${draw}`;
    if (key !== this.key && !this.reason) {
      this.want = { key, animation, time, options: { ...options }, draw };
      if (!this.inFlight) this._next();
    }
    return this.table;
  }

  async _next() {
    const q = this.want;
    if (!q || q.key === this.key || this.closed) { this.inFlight = null; return; }
    this.inFlight = q;
    const d = await this._send({ animation: q.animation, time: q.time, options: q.options, draw: q.draw });
    this.inFlight = null;
    if (this.closed) return;
    if (d.table) {
      Object.assign(this, { table: d.table, drawing: d.drawing, key: q.key, ms: d.ms, time: q.time, animation: q.animation });
      ++this.tables;
      if (d.drawing) this.drawingBytes = Object.values(d.drawing).reduce((sum, a) => sum + (ArrayBuffer.isView(a) ? a.byteLength : 0), 0);
    } else this.reason = d.reason || 'no table';
    if (!this.reason && this.want.key !== this.key) this._next();
    this.onTable(this);
  }

  // The table of one moment, outside the coalesced moments the views follow (the chart's points), or null with
  // the reason in .reason.
  async tableAt(animation, time, options) {
    const d = await this._send({ animation, time, options: { ...options }, draw: -1 });
    if (!d.table) { this.reason = d.reason || 'no table'; return null; }
    return d.table;
  }

  // Vertex v (of the drawing's numbering) at the moment the worker last drew: {vertex, time, animation, position,
  // angles (method k's normal and tangent angles at 2k and 2k + 1, by sf_method)}, or null before a drawing.
  async inspect(v) {
    const d = await this._send({ inspect: true, vertex: v });
    return d.inspection || null;
  }

  // The whole clip as eval --json reports it (every frame at 30 per second and the end; frames in .frames), or
  // null with the reason in .reason.
  async clip(animation, options) {
    const d = await this._send({ clip: true, animation, options: { ...options } });
    if (!d.table) { this.reason = d.reason || 'no table'; return null; }
    Object.defineProperty(d.table, 'frames', { value: d.frames, enumerable: false });
    return d.table;
  }

  destroy() {
    if (this.closed) return;
    this.closed = true;
    this.worker.postMessage({ close: true, file: this.file, wasm: this.wasm });
    this.worker.removeEventListener('message', this.listener);
  }
}
