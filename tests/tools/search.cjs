// Searches the site in headless Chromium with JavaScript disabled, as a
// reader with a keyboard does: opens ORIGIN/, presses Tab until the header's
// search box has the focus, types QUERY and presses Enter. Prints one JSON
// line per query: {"query", "tabs" (Tab presses to the box), "status",
// "path" (where the browser landed, query string included), "redirected"
// (the URLs it was redirected from), "title", "results" (the methods the
// results page lists, in order)}.
//
// Usage: NODE_PATH=<node_modules> CHROME_PATH=<chromium> node tests/tools/search.cjs ORIGIN QUERY…
// (tests/tools/install.sh installs puppeteer-core; tests/browser.rs runs it).
'use strict';
const chromium = require('./chromium.cjs');

(async () => {
  const [origin, ...queries] = process.argv.slice(2);
  const browser = await chromium.launch();
  try {
    for (const query of queries) {
      const page = await browser.newPage();
      // No script runs on the page; DevTools still reads what has the focus.
      await page.setJavaScriptEnabled(false);
      await page.goto(`${origin}/`, {waitUntil: 'load'});
      let tabs = 0;
      for (; tabs < 30; tabs++) {
        const focused = await page.evaluate(() => document.activeElement && document.activeElement.id);
        if (focused === 'search-query') break;
        await page.keyboard.press('Tab');
      }
      await page.keyboard.type(query);
      const [response] = await Promise.all([
        page.waitForNavigation({waitUntil: 'load'}),
        page.keyboard.press('Enter'),
      ]);
      const html = await response.text();
      const results = [...html.matchAll(/<li><h2><a href="(?:\/[a-z-]+)?\/api\/([a-z]+)">/g)].map(m => m[1]);
      const url = new URL(page.url());
      console.log(JSON.stringify({
        query, tabs, status: response.status(), path: url.pathname + url.search,
        redirected: response.request().redirectChain().map(r => new URL(r.url()).pathname + new URL(r.url()).search),
        title: await page.title(), results,
      }));
      await page.close();
    }
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
