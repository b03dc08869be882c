// Uses a method page's actions in headless Chromium with JavaScript
// disabled, as a reader with a keyboard does: opens ORIGIN PATH, presses Tab
// until the first action ("View as Markdown") has the focus and Enter to
// follow it; back on the page, Tabs to the disclosure, opens it with Enter
// and Tabs through the links it shows. Prints one JSON line: {"tabs" (Tab
// presses to the first action), "followed" ({"status", "path", "type"} of
// where Enter led), "opened" (whether the disclosure opened), "links" (the
// href of each action the focus reached, in order, the disclosure's
// included)}.
//
// Usage: NODE_PATH=<node_modules> CHROME_PATH=<chromium> node tests/tools/actions.cjs ORIGIN PATH
// (tests/tools/install.sh installs puppeteer-core; tests/browser.rs runs it).
'use strict';
const chromium = require('./chromium.cjs');

(async () => {
  const [origin, path] = process.argv.slice(2);
  const browser = await chromium.launch();
  try {
    const page = await browser.newPage();
    // No script runs on the page; DevTools still reads what has the focus.
    await page.setJavaScriptEnabled(false);
    await page.goto(`${origin}${path}`, {waitUntil: 'load'});
    const focused = () => page.evaluate(() => {
      const element = document.activeElement;
      return element && element.closest('.actions')
        ? {tag: element.tagName.toLowerCase(), href: element.getAttribute('href')}
        : null;
    });
    let tabs = 0;
    for (; tabs < 60 && !(await focused()); tabs++) await page.keyboard.press('Tab');
    const [response] = await Promise.all([
      page.waitForNavigation({waitUntil: 'load'}),
      page.keyboard.press('Enter'),
    ]);
    const followed = {
      status: response.status(),
      path: new URL(page.url()).pathname,
      type: response.headers()['content-type'],
    };
    await page.goto(`${origin}${path}`, {waitUntil: 'load'});
    for (let i = 0; i < 60 && !(await focused()); i++) await page.keyboard.press('Tab');
    const links = [];
    let opened = false;
    for (let i = 0; i < 20; i++) {
      const now = await focused();
      if (!now) break;
      if (now.tag === 'summary') {
        await page.keyboard.press('Enter');
        opened = await page.evaluate(() => document.querySelector('.actions details').open);
      } else {
        links.push(now.href);
      }
      await page.keyboard.press('Tab');
    }
    console.log(JSON.stringify({tabs, followed, opened, links}));
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
