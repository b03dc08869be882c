// Headless Chromium for the browser tests, with the flags for this kind of
// machine: no sandbox (tests run as root), and nothing that reaches for the
// network on its own. CHROME_PATH names the binary.
'use strict';
const puppeteer = require('puppeteer-core');

exports.launch = () => puppeteer.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
