// The lab's state in its address, so a view can be shared and the article's demos can open the lab where they
// are: scene, preset, method, every slider (p.NAME, m.TARGET), the options and the display. Only what differs
// from the defaults is written. Embedding keys (embed, show, pair, right, c1, c2) are read by the lab only.
import { VIEW_MODE } from './generated/layout.js';
import { OPTION_DEFAULTS } from './skinframe.js';

const OPTION_KEYS = { md: 'morphDirections', weighting: 'weighting', weld: 'weld', tan: 'tangents', ref: 'reference' };

export function parseLabUrl(search) {
  const q = new URLSearchParams(search);
  const out = { values: {}, morph: {}, options: {}, display: {} };
  for (const [k, v] of q) {
    if (k.startsWith('p.')) out.values[k.slice(2)] = Number(v);
    else if (k.startsWith('m.')) out.morph[k.slice(2)] = Number(v);
    else if (k in OPTION_KEYS) out.options[OPTION_KEYS[k]] = Number(v);
    else if (['material', 'normals', 'tangents', 'rig'].includes(k)) out.display[k] = Number(v);
    else out[k] = v;
  }
  return out;
}

// state: the lab's state; display: { material, normals, tangents, rig }; defaults: the scene's parameter defaults.
export function labSearch(state, display, defaults, methodName) {
  const q = new URLSearchParams();
  if (state.source === 'scene') {
    q.set('scene', state.scene);
    if (state.preset) q.set('preset', state.preset);
    for (const [k, v] of Object.entries(state.values)) if (v !== defaults[k]) q.set(`p.${k}`, String(v));
    for (const [k, v] of Object.entries(state.morph)) if (v) q.set(`m.${k}`, String(v));
  }
  q.set('method', methodName);
  for (const [key, name] of Object.entries(OPTION_KEYS))
    if (state.options[name] !== OPTION_DEFAULTS[name]) q.set(key, String(state.options[name]));
  if (display.material !== VIEW_MODE.LAMBERT) q.set('material', String(display.material));
  for (const k of ['normals', 'tangents', 'rig']) if (display[k]) q.set(k, '1');
  return q.toString();
}
