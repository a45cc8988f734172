// The Web Worker that holds urchin: the page never freezes while it
// computes, and the page stops a runaway evaluation by terminating this
// worker and starting another (app.js restores the definitions).
//
// Messages in: {type: 'init', maxMemory}, then {id, type: 'feed', line},
// {id, type: 'load', name, text}, {id, type: 'complete', line, pos},
// {id, type: 'directives', text}, {type: 'cancel'}. Out: {type: 'ready'},
// {id, reply} for each request, and {id, crashed: message} when urchin
// traps (a panic or running out of memory aborts a WebAssembly module).

import init, { Playground, highlight } from './urchin_web.js';

let playground = null;

// The message of the last panic, which urchin's panic hook hands over
// just before the module traps (lib.rs).
let lastPanic = '';
globalThis.urchinPanicked = (message) => { lastPanic = message; };

function crashed(id, error) {
  const why = lastPanic;
  lastPanic = '';
  const message = why
    ? `internal error: urchin panicked (a bug): ${why}`
    : `urchin stopped: ${error && error.message ? error.message : error}` +
      (String(error).includes('unreachable') ? ' (it may have run out of memory)' : '');
  postMessage({ id, crashed: message });
  playground = null;
}

// One message at a time, in order: a request sent while the module loads
// waits for it.
let queue = Promise.resolve();
onmessage = (e) => {
  queue = queue.then(() => handle(e.data));
};

async function handle(m) {
  if (m.type === 'init') {
    await init({ module_or_path: new URL('urchin_web_bg.wasm', import.meta.url) });
    playground = new Playground(m.maxMemory || 0);
    postMessage({ type: 'ready' });
    return;
  }
  if (!playground) {
    postMessage({ id: m.id, crashed: 'urchin is not running; reload the page' });
    return;
  }
  try {
    switch (m.type) {
      case 'feed': {
        const echo = highlight(m.line);
        const reply = JSON.parse(playground.feed(m.line));
        postMessage({ id: m.id, reply: { ...reply, echo, prompt: playground.prompt() } });
        break;
      }
      case 'load': {
        const reply = JSON.parse(playground.load(m.name, m.text));
        postMessage({ id: m.id, reply: { ...reply, prompt: playground.prompt() } });
        break;
      }
      case 'complete':
        postMessage({ id: m.id, reply: JSON.parse(playground.complete(m.line, m.pos)) });
        break;
      case 'directives':
        postMessage({ id: m.id, reply: JSON.parse(playground.directives(m.text)) });
        break;
      case 'cancel':
        playground.cancel();
        postMessage({ id: m.id, reply: { prompt: playground.prompt() } });
        break;
      default:
        postMessage({ id: m.id, crashed: `unknown request ${m.type}` });
    }
  } catch (error) {
    crashed(m.id, error);
  }
}
