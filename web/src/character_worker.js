// The whole character off the main thread (character_answer.js), where the page has no WebGPU views: the page
// keeps at most one moment in flight and sends only the latest (character_remote.js); messages are answered in
// the order they came.
import { loadSkinframe } from './skinframe.js';
import { CharacterFiles, replyTransfer } from './character_answer.js';

let loading = null;
const files = new CharacterFiles();

self.onmessage = async (e) => {
  const q = e.data;
  let reply;
  try {
    loading = loading || loadSkinframe(q.wasm);
    reply = files.answer(q, await loading);
  } catch (err) {
    reply = { reason: err.message, error: true };
  }
  if (reply) self.postMessage({ ...reply, file: q.file, seq: q.seq }, replyTransfer(reply));
};
