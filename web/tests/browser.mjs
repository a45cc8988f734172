// The playground in a real browser: Debian's chromium, headless, driven by
// Playwright, on web/dist served from localhost. It types at the REPL
// through the page's test hooks (data-testid urchin-input, urchin-output,
// urchin-stop) and checks what issue 38 asks: values, :elab, :grad, a
// plot with two curves, Stop on a runaway loop with the definitions kept,
// a type error, :step one click at a time, history, a lesson, the text
// size and the share link. It fails on any console error and on any
// request that leaves localhost, saves a screenshot, and prints the time
// from navigation to the first answer.
//
// node web/tests/browser.mjs DIST SCREENSHOT.png
// (CHROMIUM names the browser; default /usr/bin/chromium.)

import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { serve } from './serve.mjs';

const [dist, screenshot] = process.argv.slice(2).map((p) => resolve(p));
const server = await serve(dist);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync',
  ],
});

// Checks that failed, and what the page reported (console errors, page
// errors, requests leaving localhost).
const problems = [];
const reported = [];
let passed = 0;
const TIMEOUT = 60_000;

async function check(name, f) {
  try {
    await f();
    passed++;
    console.log(`ok: ${name}`);
  } catch (e) {
    problems.push(`${name}: ${e.message.split('\n').slice(0, 6).join('\n')}`);
    console.log(`FAILED: ${name}\n  ${e.message.split('\n').slice(0, 6).join('\n  ')}`);
  }
}

function watch(page) {
  page.on('console', (m) => {
    if (m.type() === 'error') reported.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => reported.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['127.0.0.1', 'localhost'].includes(u.hostname) && !['data:', 'blob:'].includes(u.protocol)) {
      reported.push(`a request left the page: ${r.url()}`);
    }
  });
}

const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
page.setDefaultTimeout(TIMEOUT);
watch(page);

const input = page.getByTestId('urchin-input');
const output = page.getByTestId('urchin-output');
const answers = () => page.evaluate(() => window.urchinAnswers || 0);

// Types `text` at the prompt and waits for its answer; returns the last
// entry of the output log.
async function ask(text) {
  const before = await answers();
  await input.fill(text);
  await input.press('Enter');
  await page.waitForFunction((n) => (window.urchinAnswers || 0) > n, before);
  return output.locator('.entry').last();
}

async function expectText(entry, wanted) {
  const t = await entry.innerText();
  if (!t.includes(wanted)) throw new Error(`expected ${JSON.stringify(wanted)} in:\n${t}`);
}

const started = Date.now();
await page.goto(server.url);
let firstAnswer;
await check('[1, 2, 3] + 1 shows [2, 3, 4]', async () => {
  // The page loads its program first: that is the first answer.
  await page.waitForFunction(() => (window.urchinAnswers || 0) > 0);
  const e = await ask('[1, 2, 3] + 1');
  firstAnswer = Date.now() - started;
  await expectText(e, '[2, 3, 4]');
});
console.log(`time to first answer: ${firstAnswer} ms from navigation`);

await check(':elab shows the map2 and the rep', async () => {
  await expectText(await ask(':elab [1, 2, 3] + 1'), 'map2 (+) [1, 2, 3] (rep 1)');
});

await check(':grad (\\x -> x * x * x) 2.0 shows 12', async () => {
  const e = await ask(':grad (\\x -> x * x * x) 2.0');
  const t = (await e.locator('.out').innerText()).trim();
  if (Number(t) !== 12) throw new Error(`expected 12, got ${t}`);
});

await check(':plot --grad draws an SVG with two curves', async () => {
  const e = await ask(':plot (\\x -> x * x) -1.0 1.0 --grad');
  const svg = e.locator('svg');
  if ((await svg.count()) !== 1) throw new Error(`expected one svg, found ${await svg.count()}`);
  // Each curve is drawn in its own colour of the palette.
  const colours = await svg.evaluate((s) => [
    ...new Set([...s.querySelectorAll('polyline')].map((p) => p.getAttribute('stroke'))),
  ]);
  if (colours.length < 2) throw new Error(`expected two curves, found colours ${colours}`);
});

await check('a multi-line def and :type', async () => {
  await input.fill('def cube (x: f64) =');
  await input.press('Enter');
  await page.waitForFunction(() => document.getElementById('prompt').textContent === 'urchin| ');
  await ask('  x * x * x');
  await expectText(await ask(':type cube'), 'cube : f64 -> f64');
});

await check('a type error shows its message', async () => {
  const e = await ask('cube true');
  const t = await e.locator('.error').innerText();
  if (!/error/i.test(t) || !t.includes('bool')) throw new Error(`unexpected error text:\n${t}`);
});

await check('Stop ends a runaway loop and the definitions are kept', async () => {
  await input.fill('loop x = 0i64 while x >= 0 do x + 1');
  await input.press('Enter');
  const stop = page.getByTestId('urchin-stop');
  await page.waitForTimeout(1000);
  if (await stop.isDisabled()) throw new Error('the Stop button is not enabled while the loop runs');
  await stop.click();
  await expectText(output.locator('.entry').last(), 'stopped');
  const e = await ask('cube 3.0');
  await expectText(e, '27');
});

await check(':step shows one step per click', async () => {
  const e = await ask(':step 1 + 2 * 3');
  const visible = () => e.locator('.step:visible').count();
  const first = await visible();
  await e.getByTestId('urchin-next-step').click();
  const second = await visible();
  if (!(first === 1 && second === 2)) throw new Error(`steps shown: ${first}, then ${second}`);
  await e.getByRole('button', { name: 'All steps' }).click();
  await expectText(e, '7');
});

await check('history recalls the last input', async () => {
  await input.focus();
  await input.press('ArrowUp');
  const v = await input.inputValue();
  if (v !== ':step 1 + 2 * 3') throw new Error(`ArrowUp gave ${JSON.stringify(v)}`);
  await input.fill('');
});

await check('a lesson is one click away, and its steps run', async () => {
  const option = await page.locator('#lessons option', { hasText: 'gradient-descent.fut' }).getAttribute('value');
  let before = await answers();
  await page.selectOption('#lessons', option);
  await page.waitForFunction((n) => (window.urchinAnswers || 0) > n, before);
  await expectText(output.locator('.entry').last(), 'loaded gradient-descent.fut');
  const step = page.locator('#directive-list button').first();
  before = await answers();
  await step.click();
  await page.waitForFunction((n) => (window.urchinAnswers || 0) > n, before);
  if ((await output.locator('.entry').last().locator('svg').count()) !== 1) {
    throw new Error('the first step of the lesson drew nothing');
  }
});

await check('the text size control', async () => {
  const size = () => page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
  const a = await size();
  await page.getByRole('button', { name: 'Larger text' }).click();
  const b = await size();
  if (!(b > a)) throw new Error(`font size ${a} -> ${b}`);
  await page.getByRole('button', { name: 'Smaller text' }).click();
});

await page.screenshot({ path: screenshot });
console.log(`screenshot: ${screenshot}`);

await check('the share link reloads the same program', async () => {
  const program = 'def shared_fn (x: i32) = x + 100\n';
  await page.getByTestId('urchin-editor').fill(program);
  await page.getByRole('button', { name: 'Share link' }).click();
  // The link is written once the program is compressed.
  await page.waitForFunction(() => document.querySelector('[data-testid=urchin-share-url]').value !== '');
  const url = await page.getByTestId('urchin-share-url').inputValue();
  const other = await context.newPage();
  other.setDefaultTimeout(TIMEOUT);
  watch(other);
  await other.goto(url);
  await other.waitForFunction(() => /loaded/.test(document.querySelector('[data-testid=urchin-output]').innerText));
  const text = await other.getByTestId('urchin-editor').inputValue();
  if (text !== program) throw new Error(`the editor holds ${JSON.stringify(text)}`);
  const i = other.getByTestId('urchin-input');
  const before = await other.evaluate(() => window.urchinAnswers || 0);
  await i.fill('shared_fn 1');
  await i.press('Enter');
  await other.waitForFunction((n) => (window.urchinAnswers || 0) > n, before);
  const t = await other.getByTestId('urchin-output').locator('.entry').last().innerText();
  if (!t.includes('101')) throw new Error(`shared_fn 1 gave:\n${t}`);
  await other.close();
});

await browser.close();
server.close();
for (const r of reported) console.log(`FAILED: ${r}`);
const failed = problems.length + reported.length;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
