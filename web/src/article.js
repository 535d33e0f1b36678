// The article: equations typeset with KaTeX, shader listings (read from shaders/ at build time) with the
// method's lines marked and a click on an equation term marking its line, and the demos: the lab embedded
// (lab.html?embed=1&...), loaded when a demo comes near the screen and unloaded when it leaves, so only a few
// WebGL contexts live at once. window.sfArticle exposes the state to tests.
import katex from 'katex';
import 'katex/dist/katex.min.css';
import listings from 'virtual:shader-code';
import { LANGUAGES } from './article_code.js';

const article = { demos: [], terms: 0 };
window.sfArticle = article;

function typeset(el) {
  katex.render(el.dataset.tex, el, {
    displayMode: true, throwOnError: true,
    trust: (ctx) => ctx.command === '\\htmlData', strict: (code) => (code === 'htmlExtension' ? 'ignore' : 'warn'),
  });
}

// One listing per language as tabs; each line a <span>, the lines of the section's terms marked.
function codeBlock(el) {
  const id = el.dataset.code, langs = listings[id];
  const tabs = document.createElement('div');
  tabs.className = 'tabs';
  tabs.setAttribute('role', 'tablist');
  const panes = {};
  for (const { id: lang, name } of LANGUAGES) {
    const b = document.createElement('button');
    b.type = 'button'; b.textContent = name; b.dataset.lang = lang; b.setAttribute('role', 'tab');
    b.addEventListener('click', () => select(lang));
    tabs.append(b);
    const pre = document.createElement('pre');
    pre.className = 'listing'; pre.dataset.lang = lang;
    const marked = new Set(Object.values(langs[lang].terms).flat());
    for (const [i, text] of langs[lang].lines.entries()) {
      const line = document.createElement('span');
      line.className = 'line' + (marked.has(i) ? ' method' : '') + (text.startsWith('// ---- shaders/') ? ' file' : '');
      line.textContent = text + '\n';
      pre.append(line);
    }
    panes[lang] = pre;
  }
  el.append(tabs, ...Object.values(panes));
  function select(lang) {
    el.dataset.lang = lang;
    for (const b of tabs.children) b.setAttribute('aria-selected', String(b.dataset.lang === lang));
    for (const [l, pre] of Object.entries(panes)) pre.hidden = l !== lang;
    const first = panes[lang].querySelector('.line.method');
    if (first) panes[lang].scrollTop = Math.max(0, first.offsetTop - panes[lang].offsetTop - 40);
  }
  select('wgsl');
  // a term of the section's equations marks its line(s) in the listing shown
  el.highlight = (term) => {
    const lang = el.dataset.lang, hits = langs[lang].terms[term];
    if (!hits) return [];
    const lines = panes[lang].children;
    for (const l of panes[lang].querySelectorAll('.hit')) l.classList.remove('hit');
    for (const i of hits) lines[i].classList.add('hit');
    const pre = panes[lang];
    pre.scrollTop = Math.max(0, lines[hits[0]].offsetTop - pre.offsetTop - pre.clientHeight / 3);
    ++article.terms;
    return hits;
  };
}

// A demo: a placeholder until it nears the screen, then the lab embedded with the demo's state.
function demo(el) {
  const state = el.dataset.demo;
  const link = document.createElement('a');
  link.className = 'lab-link'; link.href = `./lab.html?${state.replace(/&?(show|pair|c1|c2)=[^&]*/g, '')}`;
  link.textContent = 'Open this demo in the lab';
  const holder = document.createElement('div');
  holder.className = 'frame-holder';
  holder.innerHTML = '<p class="note">The demo starts when it scrolls into view.</p>';
  el.append(holder, link);
  const entry = { el, state, frame: null };
  article.demos.push(entry);
  entry.load = () => {
    if (entry.frame) return;
    const frame = document.createElement('iframe');
    frame.title = 'live demo';
    frame.src = `./lab.html?embed=1&${state}`;
    holder.replaceChildren(frame);
    entry.frame = frame;
  };
  entry.unload = () => {
    if (!entry.frame) return;
    holder.style.minHeight = `${entry.frame.offsetHeight}px`; // keep the page from jumping
    entry.frame.remove();
    entry.frame = null;
  };
}

// The embedded lab reports its height, so the frame shows all of it without a scrollbar.
window.addEventListener('message', (e) => {
  if (e.origin !== location.origin || !e.data || e.data.type !== 'sf-embed-height') return;
  for (const d of article.demos) if (d.frame && d.frame.contentWindow === e.source) d.frame.style.height = `${e.data.height}px`;
});

for (const el of document.querySelectorAll('.equation')) typeset(el);
for (const el of document.querySelectorAll('.code')) codeBlock(el);
for (const el of document.querySelectorAll('.demo')) demo(el);
document.addEventListener('click', (e) => {
  const term = e.target.closest('[data-term]');
  if (!term) return;
  const section = term.closest('section');
  const code = section?.querySelector('.code');
  if (!code) return;
  for (const t of section.querySelectorAll('.equation [data-term].active')) t.classList.remove('active');
  term.classList.add('active');
  code.highlight(term.dataset.term);
});
const observer = new IntersectionObserver((entries) => {
  for (const x of entries) {
    const d = article.demos.find((a) => a.el === x.target);
    if (x.isIntersecting) d.load(); else d.unload();
  }
}, { rootMargin: '400px 0px' });
for (const d of article.demos) observer.observe(d.el);
article.ready = true;
