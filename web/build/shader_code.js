// Build-time: the article's shader listings (src/article_code.js) read from shaders/, each term resolved to the
// line numbers that hold it. Throws when a term's text is missing from its files.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LANGUAGES, SECTIONS } from '../src/article_code.js';

export function shaderListings(shaderDir) {
  const out = {};
  for (const [id, spec] of Object.entries(SECTIONS)) {
    const langs = {};
    for (const { id: lang } of LANGUAGES) {
      const lines = [];
      for (const file of spec.files[lang]) {
        lines.push(`// ---- shaders/${file}`);
        lines.push(...readFileSync(resolve(shaderDir, file), 'utf8').replace(/\n$/, '').split('\n'));
      }
      const terms = {};
      for (const [term, where] of Object.entries(spec.terms)) {
        const hits = [];
        lines.forEach((line, i) => { if (line.includes(where[lang])) hits.push(i); });
        if (!hits.length) throw new Error(`article code: ${id}/${lang}: "${where[lang]}" (term ${term}) is in none of ${spec.files[lang].join(', ')}`);
        terms[term] = hits;
      }
      langs[lang] = { lines, terms };
    }
    out[id] = langs;
  }
  return out;
}
