// The playground's build against the native binary on the acceptance
// corpus: every program's test blocks run through the WebAssembly module
// (under Node.js, as the page's worker runs it, on one thread) and through
// `urchin test --verbose`, and the two reports must be the same, line for
// line: each case's outcome, and each failure's message.
//
// node web/tests/corpus.mjs DIST URCHIN CORPUS_DIR

import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, urchin, corpus] = process.argv.slice(2).map((p) => resolve(p));
const glue = await import(pathToFileURL(join(dist, 'urchin_web.js')).href);
glue.initSync({ module: readFileSync(join(dist, 'urchin_web_bg.wasm')) });

function programs(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return programs(p);
      return name.endsWith('.fut') ? [p] : [];
    });
}

let same = 0;
let differ = 0;
let cases = 0;
const cwd = resolve(corpus, '..');
for (const file of programs(corpus)) {
  // Both name the file as the native binary is given it, relative to the
  // corpus's parent, so that the reports can be compared as text.
  const name = relative(cwd, file);
  const wasm = glue.test_program(name, readFileSync(file, 'utf8'));
  let native;
  try {
    native = execFileSync(urchin, ['test', '--verbose', name], { cwd, encoding: 'utf8' });
  } catch (e) {
    // A failing case exits 1; its report is still the comparison.
    native = e.stdout;
  }
  cases += wasm.split('\n').filter((l) => / case \d+: /.test(l)).length;
  if (wasm === native) {
    same++;
    console.log(`same: ${name}`);
  } else {
    differ++;
    console.log(`DIFFERS: ${name}\n--- wasm\n${wasm}--- native\n${native}`);
  }
}
console.log(`corpus: ${same + differ} programs, ${cases} cases through the WebAssembly build`);
console.log(`${same} passed, ${differ} failed`);
process.exit(differ || same === 0 ? 1 : 0);
