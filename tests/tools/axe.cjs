// Runs axe-core in headless Chromium on each URL given, in the light and the
// dark colour scheme, and prints one JSON line per page and scheme:
// {"url", "scheme", "violations": [{"id", "impact", "nodes": [target…]}]}.
//
// Usage: NODE_PATH=<node_modules> CHROME_PATH=<chromium> node tests/tools/axe.cjs URL…
// (tests/tools/install.sh installs puppeteer-core and axe-core; the tests
// run this script, see tests/browser.rs).
'use strict';
const chromium = require('./chromium.cjs');
const axeSource = require('fs').readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

(async () => {
  const browser = await chromium.launch();
  try {
    for (const url of process.argv.slice(2)) {
      for (const scheme of ['light', 'dark']) {
        const page = await browser.newPage();
        // The pages forbid every script; axe is injected past the policy.
        await page.setBypassCSP(true);
        await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: scheme}]);
        await page.setViewport({width: 1280, height: 900});
        await page.goto(url, {waitUntil: 'load'});
        await page.addScriptTag({content: axeSource});
        const violations = await page.evaluate(async () => {
          const results = await window.axe.run(document, {resultTypes: ['violations']});
          return results.violations.map(v => ({
            id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')),
          }));
        });
        console.log(JSON.stringify({url, scheme, violations}));
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
