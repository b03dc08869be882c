// Reads the site in headless Chromium the way a person does: opens ORIGIN/,
// waits until Chromium has fetched the compression dictionary the page
// names, then follows links (page-initiated navigations) to each PATH in
// turn. Prints one JSON line per navigation, and one for the dictionary:
// {"path", "status", "encoding", "title"} (the title shows that Chromium
// decoded the body).
//
// Usage: NODE_PATH=<node_modules> CHROME_PATH=<chromium> node tests/tools/dictionary.cjs ORIGIN PATH…
// (tests/tools/install.sh installs puppeteer-core; tests/browser.rs runs it).
'use strict';
const chromium = require('./chromium.cjs');

(async () => {
  const [origin, ...paths] = process.argv.slice(2);
  const browser = await chromium.launch();
  try {
    const page = await browser.newPage();
    const stored = page.waitForResponse(r => r.url().includes('/dictionaries/'), {timeout: 30000});
    const first = await page.goto(`${origin}/`, {waitUntil: 'load'});
    await report('/', first);
    const dictionary = await stored;
    await dictionary.buffer();
    console.log(JSON.stringify({path: new URL(dictionary.url()).pathname, status: dictionary.status(),
      encoding: dictionary.headers()['content-encoding'] || '', title: null}));
    // Chromium stores a dictionary in a task of its own once its body has
    // arrived; a page asked for before that comes without it. The first
    // page is followed from `/` (unreported) until it comes compressed
    // against the dictionary, for at most 20 s (on a machine running every
    // test at once the store can take seconds; ten quick tries were not
    // enough there), and the reading starts again at `/`. (A link, not
    // page.goto: Chromium offers its dictionaries to the page's own
    // navigations.)
    const deadline = Date.now() + 20000;
    for (let tries = 0; Date.now() < deadline; tries++) {
      await page.goto(`${origin}/`, {waitUntil: 'load'});
      const [probe] = await Promise.all([
        page.waitForNavigation({waitUntil: 'load'}),
        page.click(`a[href="${paths[0]}"]`),
      ]);
      const held = probe.request().headers()['available-dictionary'] || 'none';
      console.error(`probe ${tries}: ${probe.headers()['content-encoding']}, holding ${held}`);
      if (['dcb', 'dcz'].includes(probe.headers()['content-encoding'])) break;
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    await page.goto(`${origin}/`, {waitUntil: 'load'});
    for (const path of paths) {
      const [response] = await Promise.all([
        page.waitForNavigation({waitUntil: 'load'}),
        page.click(`a[href="${path}"]`),
      ]);
      await report(path, response);
    }

    async function report(path, response) {
      console.log(JSON.stringify({path, status: response.status(),
        encoding: response.headers()['content-encoding'] || '', title: await page.title()}));
    }
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
