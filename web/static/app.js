// The playground's page: the REPL's input and output, the program editor,
// examples and lessons, the share link, the Stop button and the text size.
// urchin itself runs in a Web Worker (worker.js); this file only talks to
// it. Nothing here makes a request after the page has loaded.

import { ansiToFragment, stripAnsi } from './ansi.js';
import { LESSONS } from './lessons.js';

const $ = (id) => document.getElementById(id);
const log = $('log');
const input = $('input');
const editor = $('editor');
const stopButton = $('stop');
const status = $('status');

// The arrays of a session may take this much (the browser gives a
// WebAssembly module at most 4 GiB).
const MAX_MEMORY = 1 << 30;
const DEFAULT_PROGRAM = `-- | A function to differentiate: try \`:grad f 2.0\`,
-- \`:plot f 0 6 --grad\`, \`:vjp f\` or \`:step f 1.0\`.
def f (x: f64) = x * f64.sin x
`;

// ---- the worker ----------------------------------------------------------

let worker = null;
let nextId = 0;
// Requests sent and not yet answered: id → {resolve, reject}.
const waiting = new Map();
// What makes a fresh worker's session the current one: the last program
// loaded and the definitions typed since, in order.
let restore = [];

function startWorker() {
  worker = new Worker(new URL('worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.type === 'ready') return;
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    busy();
    if (m.crashed !== undefined) w.reject(new Crash(m.crashed));
    else w.resolve(m.reply);
  };
  worker.onerror = (e) => {
    e.preventDefault();
    restart(`urchin stopped: ${e.message || 'the worker failed'}`);
  };
  worker.postMessage({ type: 'init', maxMemory: MAX_MEMORY });
  // Restored silently, before anything typed since.
  for (const r of restore) send(r).catch(() => {});
}

class Crash extends Error {}
class Stopped extends Error {}

function send(request) {
  const id = ++nextId;
  const p = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  worker.postMessage({ ...request, id });
  busy();
  return p;
}

// Ends what the worker is doing and starts a fresh one with the session's
// definitions.
function restart(note) {
  worker.terminate();
  for (const w of waiting.values()) w.reject(new Stopped(note));
  waiting.clear();
  pendingLines = [];
  setPrompt('urchin> ');
  startWorker();
  busy();
}

let startedAt = null;
function busy() {
  // Completion and lesson requests are quick; the Stop button is for
  // evaluations.
  const running = [...waiting.keys()].length > 0;
  stopButton.disabled = !running;
  status.classList.toggle('busy', running);
  if (running && startedAt === null) startedAt = performance.now();
  if (!running) startedAt = null;
  status.textContent = running ? 'running…' : 'ready';
}

// ---- output --------------------------------------------------------------

function scrollDown() {
  log.scrollTop = log.scrollHeight;
}

function entry() {
  const div = document.createElement('div');
  div.className = 'entry';
  log.append(div);
  return div;
}

function echo(div, prompt, ansiText) {
  const line = document.createElement('div');
  line.className = 'echo';
  const p = document.createElement('span');
  p.className = 'prompt';
  p.textContent = prompt;
  line.append(p, ansiToFragment(ansiText));
  div.append(line);
  return line;
}

function note(div, text, cls = 'note') {
  const span = document.createElement('div');
  span.className = cls;
  span.textContent = text;
  div.append(span);
}

function svgNode(text) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = document.importNode(doc.documentElement, true);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'a plot');
  return svg;
}

function text(div, t) {
  const span = document.createElement('div');
  span.className = 'out';
  span.append(ansiToFragment(t.replace(/\n$/, '')));
  div.append(span);
}

// The reduction sequence of `:step`, one step shown per click.
function stepper(div, t) {
  const box = document.createElement('div');
  box.className = 'stepper';
  const lines = t.replace(/\n$/, '').split('\n');
  const groups = [];
  for (const l of lines) {
    // A step's note on a line of its own belongs to the step.
    if (groups.length && /^\s+\(/.test(stripAnsi(l))) groups[groups.length - 1].push(l);
    else groups.push([l]);
  }
  const steps = groups.map((g) => {
    const s = document.createElement('span');
    s.className = 'step';
    s.append(ansiToFragment(g.join('\n')));
    s.hidden = true;
    box.append(s);
    return s;
  });
  const controls = document.createElement('div');
  controls.className = 'controls';
  const next = document.createElement('button');
  next.type = 'button';
  next.textContent = 'Next step';
  next.dataset.testid = 'urchin-next-step';
  const all = document.createElement('button');
  all.type = 'button';
  all.textContent = 'All steps';
  const count = document.createElement('span');
  controls.append(next, all, count);
  box.append(controls);
  let shown = 0;
  const show = (n) => {
    steps.forEach((s, i) => {
      s.hidden = i >= n;
      s.classList.toggle('current', i === n - 1 && n < steps.length);
    });
    shown = n;
    const done = n >= steps.length;
    next.disabled = done;
    all.disabled = done;
    count.textContent = done ? '' : `${n} of ${steps.length}`;
    if (done) controls.remove();
    scrollDown();
  };
  next.onclick = () => show(shown + 1);
  all.onclick = () => show(steps.length);
  div.append(box);
  show(1);
  if (!next.disabled) next.focus();
}

function isStep(line) {
  return /^\s*:(s|st|ste|step)(\s|$)/.test(line);
}

function showReply(div, reply, stepping) {
  for (const piece of reply.pieces) {
    if (piece.svg !== undefined) div.append(svgNode(piece.svg));
    else if (stepping) stepper(div, piece.text);
    else text(div, piece.text);
  }
  if (reply.errors) {
    const e = document.createElement('div');
    e.className = reply.failed ? 'error' : 'warning';
    e.append(ansiToFragment(reply.errors.replace(/\n$/, '')));
    div.append(e);
  }
  if (reply.status === 'quit') {
    note(div, ':quit does nothing here: close the tab, or reload the page for a fresh session');
  }
  scrollDown();
}

function failure(div, error) {
  if (error instanceof Stopped || error instanceof Crash) {
    note(div, error.message, error instanceof Crash ? 'error' : 'note');
    scrollDown();
    return;
  }
  throw error;
}

// ---- the REPL's input ----------------------------------------------------

// Lines of an input that is not complete yet.
let pendingLines = [];

function setPrompt(p) {
  $('prompt').textContent = p;
}

async function feedLine(line, div) {
  const stepping = pendingLines.length === 0 ? isStep(line) : isStep(pendingLines[0]);
  pendingLines.push(line);
  const prompt = $('prompt').textContent;
  const echoed = echo(div, prompt, line);
  let reply;
  try {
    reply = await send({ type: 'feed', line });
  } catch (error) {
    if (error instanceof Crash) restart(error.message);
    failure(div, error);
    answered();
    return;
  }
  echoed.replaceChildren(echoed.firstChild, ansiToFragment(reply.echo));
  setPrompt(reply.prompt);
  if (reply.status === 'more') return;
  const whole = pendingLines.join('\n');
  pendingLines = [];
  if (reply.defines) restore.push({ type: 'feed', line: whole });
  showReply(div, reply, stepping);
  answered();
}

// Counts the answers appended to the log, for tests and course material
// that drive the page (`window.urchinAnswers`).
function answered() {
  window.urchinAnswers = (window.urchinAnswers || 0) + 1;
}

// Runs what was typed (or a lesson's step): each line as the terminal
// would read it.
function submit(textTyped) {
  const div = entry();
  const lines = textTyped.split('\n');
  // Sent at once, answered in order: later lines wait in the worker.
  return Promise.all(lines.map((l) => feedLine(l, div)));
}

// History, kept across visits.
const HISTORY_KEY = 'urchin-history';
let inputHistory = [];
try {
  inputHistory = JSON.parse(localStorage.getItem(HISTORY_KEY) || '[]');
} catch (_) {
  inputHistory = [];
}
let historyAt = inputHistory.length;
let draft = '';

function remember(t) {
  if (!t.trim() || inputHistory[inputHistory.length - 1] === t) return;
  inputHistory.push(t);
  if (inputHistory.length > 500) inputHistory = inputHistory.slice(-500);
  try {
    localStorage.setItem(HISTORY_KEY, JSON.stringify(inputHistory));
  } catch (_) { /* storage full or off: history lasts the visit */ }
}

function fitInput() {
  input.style.height = 'auto';
  input.style.height = `${input.scrollHeight}px`;
}

async function complete() {
  const pos = input.selectionStart;
  const line = input.value;
  const { start, candidates } = await send({ type: 'complete', line, pos });
  if (!candidates.length) return;
  let common = candidates[0];
  for (const c of candidates) {
    while (!c.startsWith(common)) common = common.slice(0, -1);
  }
  if (common.length > pos - start) {
    input.value = line.slice(0, start) + common + line.slice(pos);
    input.selectionStart = input.selectionEnd = start + common.length;
  }
  if (candidates.length > 1) {
    const div = entry();
    note(div, candidates.slice(0, 60).join('  ') + (candidates.length > 60 ? '  …' : ''));
    scrollDown();
  }
}

input.addEventListener('keydown', (e) => {
  const atFirstLine = !input.value.slice(0, input.selectionStart).includes('\n');
  const atLastLine = !input.value.slice(input.selectionEnd).includes('\n');
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    const t = input.value;
    remember(t);
    historyAt = inputHistory.length;
    input.value = '';
    fitInput();
    submit(t);
  } else if (e.key === 'ArrowUp' && atFirstLine && historyAt > 0) {
    e.preventDefault();
    if (historyAt === inputHistory.length) draft = input.value;
    input.value = inputHistory[--historyAt];
    fitInput();
  } else if (e.key === 'ArrowDown' && atLastLine && historyAt < inputHistory.length) {
    e.preventDefault();
    historyAt++;
    input.value = historyAt === inputHistory.length ? draft : inputHistory[historyAt];
    fitInput();
  } else if (e.key === 'Tab' && !e.shiftKey && input.value.trim()) {
    e.preventDefault();
    complete();
  } else if (e.key === 'c' && e.ctrlKey && input.selectionStart === input.selectionEnd) {
    // As in a terminal: Ctrl-C stops an evaluation, or drops an
    // incomplete input.
    e.preventDefault();
    if (!stopButton.disabled) stop();
    else if (pendingLines.length) {
      pendingLines = [];
      send({ type: 'cancel' }).then((r) => setPrompt(r.prompt));
    }
  }
});
input.addEventListener('input', fitInput);

function stop() {
  const div = entry();
  note(div, 'stopped; urchin restarts with your definitions');
  restart('stopped');
  input.focus();
}
stopButton.addEventListener('click', stop);

$('clear').addEventListener('click', () => {
  log.replaceChildren();
  input.focus();
});

// ---- the program ---------------------------------------------------------

let programName = 'program.fut';

function setProgramName(name) {
  programName = name;
  $('program-name').textContent = name;
}

async function loadProgram() {
  const div = entry();
  const t = editor.value;
  echo(div, 'urchin> ', `:load ${programName}`);
  try {
    const reply = await send({ type: 'load', name: programName, text: t });
    if (!reply.failed) restore = [{ type: 'load', name: programName, text: t }];
    showReply(div, reply, false);
  } catch (error) {
    if (error instanceof Crash) restart(error.message);
    failure(div, error);
  }
  answered();
  showDirectives(t);
}

// A lesson's `-- >` directives (or a notebook's cells), as buttons that
// run them at the prompt.
async function showDirectives(t, cells) {
  let steps = cells;
  if (!steps) {
    try {
      steps = (await send({ type: 'directives', text: t })).map((d) => d.command);
    } catch (_) {
      steps = [];
    }
  }
  const list = $('directive-list');
  list.replaceChildren();
  for (const s of steps) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = s;
    b.onclick = () => submit(s);
    li.append(b);
    list.append(li);
  }
  $('directives').hidden = steps.length === 0;
}

$('load').addEventListener('click', loadProgram);
editor.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    loadProgram();
  } else if (e.key === 'Tab' && !e.shiftKey && !e.ctrlKey) {
    // Indents; Escape then Tab leaves the editor (keyboard users).
    if (editor.dataset.escaped) return;
    e.preventDefault();
    editor.setRangeText('  ', editor.selectionStart, editor.selectionEnd, 'end');
  } else if (e.key === 'Escape') {
    editor.dataset.escaped = '1';
    return;
  }
  delete editor.dataset.escaped;
});

// Examples and lessons.
const select = $('lessons');
for (const [kind, label] of [['lesson', 'Lessons'], ['example', 'Examples']]) {
  const group = document.createElement('optgroup');
  group.label = label;
  LESSONS.forEach((l, i) => {
    if (l.kind !== kind) return;
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = `${l.file} — ${l.title}`;
    group.append(o);
  });
  select.append(group);
}
select.addEventListener('change', () => {
  const l = LESSONS[Number(select.value)];
  select.value = '';
  if (!l) return;
  if (l.cells) {
    // A notebook: its cells are steps to run at the prompt.
    const div = entry();
    note(div, `${l.file}: ${l.title} — run its cells one by one from the list on the left`);
    showDirectives('', l.cells);
    return;
  }
  editor.value = l.text;
  setProgramName(l.file);
  loadProgram();
});

// ---- the share link ------------------------------------------------------

function toBase64Url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(t) {
  const s = atob(t.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

async function through(stream, bytes) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

async function encodeProgram(t) {
  const z = await through(new CompressionStream('deflate-raw'), new TextEncoder().encode(t));
  return toBase64Url(z);
}

async function decodeProgram(code) {
  const bytes = await through(new DecompressionStream('deflate-raw'), fromBase64Url(code));
  return new TextDecoder().decode(bytes);
}

$('share').addEventListener('click', async () => {
  const code = await encodeProgram(editor.value);
  const params = new URLSearchParams({ name: programName, program: code });
  const url = `${location.origin}${location.pathname}#${params}`;
  window.history.replaceState(null, '', url);
  $('share-row').hidden = false;
  const field = $('share-url');
  field.value = url;
  field.focus();
  field.select();
  try {
    await navigator.clipboard.writeText(url);
    status.textContent = 'link copied';
  } catch (_) { /* no clipboard here: the link is selected in the field */ }
});

// ---- text size -----------------------------------------------------------

const SIZE_KEY = 'urchin-font-size';
function setSize(px) {
  const size = Math.max(12, Math.min(40, px));
  document.documentElement.style.fontSize = `${size}px`;
  try {
    localStorage.setItem(SIZE_KEY, String(size));
  } catch (_) { /* the size lasts the visit */ }
}
const sizeNow = () => parseFloat(getComputedStyle(document.documentElement).fontSize);
$('smaller').addEventListener('click', () => setSize(sizeNow() - 2));
$('larger').addEventListener('click', () => setSize(sizeNow() + 2));
try {
  const saved = Number(localStorage.getItem(SIZE_KEY));
  if (saved) setSize(saved);
} catch (_) { /* default size */ }

// ---- start ---------------------------------------------------------------

async function start() {
  startWorker();
  busy();
  const hash = new URLSearchParams(location.hash.slice(1));
  let program = DEFAULT_PROGRAM;
  if (hash.has('program')) {
    try {
      program = await decodeProgram(hash.get('program'));
      setProgramName(hash.get('name') || 'shared.fut');
    } catch (_) {
      const div = entry();
      note(div, 'the link does not hold a program that can be read; it may have been cut short', 'error');
    }
  } else {
    setProgramName('program.fut');
  }
  editor.value = program;
  await loadProgram();
  input.focus();
}

start();
