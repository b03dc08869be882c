// `refserve dev` in headless Chromium: edits to a content directory show on
// an open page without a manual reload. Prints one JSON object.
//
//   node dev.cjs check ORIGIN DIR
//     an edit, a rename-style save (a temporary file renamed over the
//     original), an invalid edit (the overlay names the file and field) and
//     its fix, each on an open page; {"steps": [...]} with a time for each
//   node dev.cjs time ORIGIN DIR N
//     N edits, each of another entry's description, timed from the write to
//     the new text on that entry's open page; {"ms": [...]}
//   node dev.cjs reload ORIGIN DIR N
//     N edits of one entry in a row, each seen on its open page (the server's
//     memory is read by the caller); {"reloads": N}
//
// ORIGIN is where `refserve dev` serves DIR. Every wait gives up after 5 s.
'use strict';
const fs = require('fs');
const path = require('path');
const { launch } = require('./chromium.cjs');

const [mode, origin, dir, count] = process.argv.slice(2);
const WAIT = { timeout: 5000, polling: 5 };

/// The file of method `key`.
const methodFile = (key) => path.join(dir, 'methods', `${key}.md`);

/// The method keys, in catalog order (by the `weight` of their front
/// matter, equal weights by key).
function keys() {
  const weight = (key) => Number(/^weight = (\d+)$/m.exec(fs.readFileSync(methodFile(key), 'utf8'))[1]);
  return fs.readdirSync(path.join(dir, 'methods'))
    .filter((name) => /^[a-z]+\.md$/.test(name))
    .map((name) => name.slice(0, -3))
    .map((key) => [weight(key), key])
    .sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1))
    .map(([, key]) => key);
}

/// Replace the description of method `key` (the first paragraph after its
/// front matter) with `text`, written in place or, with `rename`, into a
/// temporary file renamed over the method's.
function describe(key, text, rename) {
  const file = methodFile(key);
  const markdown = fs.readFileSync(file, 'utf8')
    .replace(/(\n\+\+\+\n\n)[^]*?(\n\n)/, (_, before, after) => before + text + after);
  if (rename) {
    const temporary = path.join(dir, 'methods', `.${key}.md.tmp`);
    fs.writeFileSync(temporary, markdown);
    fs.renameSync(temporary, file);
  } else {
    fs.writeFileSync(file, markdown);
  }
}

/// Open `/api/<key>` and wait until its event stream is open.
async function open(page, key) {
  await page.goto(`${origin}/api/${key}`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.documentElement.dataset.refserveDev === 'listening', WAIT);
}

/// Milliseconds from `change()` to `shown` holding in the page.
async function timed(page, change, shown, argument) {
  const start = performance.now();
  change();
  await page.waitForFunction(shown, WAIT, argument);
  return performance.now() - start;
}

const inBody = (text) => document.body.innerText.includes(text);

async function check(page) {
  const key = keys()[0];
  const steps = [];
  await open(page, key);
  const edited = 'Edited while the page was open.';
  steps.push({ step: 'edit', ms: await timed(page, () => describe(key, edited, false), inBody, edited) });
  const renamed = 'Saved through a temporary file renamed over the entry.';
  steps.push({ step: 'rename', ms: await timed(page, () => describe(key, renamed, true), inBody, renamed) });
  const file = methodFile(key);
  const good = fs.readFileSync(file, 'utf8');
  const broken = good.replace(`key = "${key}"`, `key = "${key}x"`);
  const overlay = () => document.getElementById('refserve-dev-error')?.innerText ?? '';
  const shownError = (needle) => (document.getElementById('refserve-dev-error')?.innerText ?? '').includes(needle);
  steps.push({
    step: 'invalid',
    ms: await timed(page, () => fs.writeFileSync(file, broken), shownError, `methods/${key}.md: field \`name\``),
    overlay: await page.evaluate(overlay),
  });
  const fixed = () => !document.getElementById('refserve-dev-error') && document.body.innerText.includes('Saved through');
  steps.push({ step: 'fixed', ms: await timed(page, () => fs.writeFileSync(file, good), fixed) });
  return { steps };
}

async function time(page, n) {
  const all = keys();
  const ms = [];
  for (let i = 0; i < n; i++) {
    const key = all[i % all.length];
    await open(page, key);
    const text = `Timed edit ${i} of the ${key} entry.`;
    ms.push(await timed(page, () => describe(key, text, false), inBody, text));
  }
  return { ms };
}

async function reload(page, n) {
  const key = keys()[0];
  await open(page, key);
  for (let i = 0; i < n; i++) {
    const text = `Reload ${i}.`;
    await timed(page, () => describe(key, text, false), inBody, text);
  }
  return { reloads: n };
}

(async () => {
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const result = mode === 'check' ? await check(page)
      : mode === 'time' ? await time(page, Number(count))
        : mode === 'reload' ? await reload(page, Number(count))
          : null;
    if (!result) throw new Error(`unknown mode ${mode}`);
    console.log(JSON.stringify(result));
  } finally {
    await browser.close();
  }
})().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
