// The REPL writes as it writes to a terminal: text with ANSI SGR escapes
// (colours of values and types, the spans of an error underlined and
// coloured by ariadne, the redex of a :step underlined). This turns such
// text into DOM nodes with the same styles, in colours readable on a white
// page (WCAG AA contrast), never through innerHTML.

// The 16 terminal colours, darkened where the usual ones are too light
// on white (yellow, cyan, bright colours).
const BASIC = [
  '#1b1b1b', '#b3261e', '#2c7a2c', '#8a5a00', '#1f5fa8', '#8e3a9d', '#0b6e79', '#5c5c5c',
  '#5c5c5c', '#c0392b', '#2e7d32', '#8a5a00', '#1f5fa8', '#8e3a9d', '#0b6e79', '#1b1b1b',
];

// xterm's 256 colours: 16 basic, a 6×6×6 cube, 24 greys.
function color256(n) {
  if (n < 16) return BASIC[n];
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255];
    const k = n - 16;
    // Light cube colours are darkened by a third to stay legible.
    const c = [Math.floor(k / 36), Math.floor(k / 6) % 6, k % 6].map((i) => v[i]);
    const light = (c[0] * 299 + c[1] * 587 + c[2] * 114) / 1000 > 150;
    const f = light ? 0.6 : 1;
    return `rgb(${c.map((x) => Math.round(x * f)).join(',')})`;
  }
  const g = Math.min(8 + (n - 232) * 10, 140);
  return `rgb(${g},${g},${g})`;
}

// Applies one SGR sequence's parameters to the style.
function apply(style, params) {
  const p = params.length ? params : [0];
  for (let i = 0; i < p.length; i++) {
    const n = p[i];
    if (n === 0) Object.assign(style, { b: false, d: false, i: false, u: false, fg: null });
    else if (n === 1) style.b = true;
    else if (n === 2) style.d = true;
    else if (n === 3) style.i = true;
    else if (n === 4) style.u = true;
    else if (n === 22) { style.b = false; style.d = false; }
    else if (n === 23) style.i = false;
    else if (n === 24) style.u = false;
    else if (n >= 30 && n <= 37) style.fg = BASIC[n - 30];
    else if (n >= 90 && n <= 97) style.fg = BASIC[n - 90 + 8];
    else if (n === 39) style.fg = null;
    else if (n === 38 && p[i + 1] === 5) { style.fg = color256(p[i + 2] ?? 7); i += 2; }
    else if (n === 38 && p[i + 1] === 2) {
      style.fg = `rgb(${p[i + 2] ?? 0},${p[i + 3] ?? 0},${p[i + 4] ?? 0})`;
      i += 4;
    } else if (n === 48) i += p[i + 1] === 5 ? 2 : 4; // backgrounds are left out
  }
}

// `text` as a fragment of spans.
export function ansiToFragment(text) {
  const frag = document.createDocumentFragment();
  const style = { b: false, d: false, i: false, u: false, fg: null };
  const re = /\x1b\[([0-9;]*)m/g;
  let at = 0;
  const push = (s) => {
    if (!s) return;
    const plain = !style.b && !style.d && !style.i && !style.u && !style.fg;
    if (plain) { frag.append(s); return; }
    const span = document.createElement('span');
    span.className = ['b', 'd', 'i', 'u'].filter((k) => style[k]).join(' ');
    if (style.fg) span.style.color = style.fg;
    span.textContent = s;
    frag.append(span);
  };
  for (const m of text.matchAll(re)) {
    push(text.slice(at, m.index));
    apply(style, m[1] === '' ? [] : m[1].split(';').map(Number));
    at = m.index + m[0].length;
  }
  push(text.slice(at));
  return frag;
}

// `text` without escapes.
export function stripAnsi(text) {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
