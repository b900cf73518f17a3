// One dashboard page in headless Chromium (Debian's, driven by playwright-core): wait until
// every panel has finished loading, write the screenshot and print, as JSON, what each panel
// shows (its title, its text, whether it drew a chart, an error or "No data").
//
//   node shoot.mjs URL PNG WIDTH HEIGHT
//
// Run by dashboards/render.py, with NODE_PATH pointing at the cache's playwright-core.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const [url, png, width, height] = process.argv.slice(2);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--hide-scrollbars'],
});
try {
  const page = await browser.newPage({
    viewport: { width: Number(width), height: Number(height) }, deviceScaleFactor: 1,
    timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce',
  });
  await page.goto(url, { waitUntil: 'networkidle', timeout: 90000 });
  await page.waitForSelector('section[data-testid="panel"]', { timeout: 60000 });
  // loading: a skeleton or a progress bar in any panel
  await page.waitForFunction(() => document.querySelectorAll(
    'section[data-testid="panel"] .MuiSkeleton-root, section[data-testid="panel"] [role="progressbar"]').length === 0,
    null, { timeout: 90000, polling: 250 });
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(1500);   // ECharts' own animation
  const panels = await page.$$eval('section[data-testid="panel"]', (sections) => sections.map((s) => {
    const header = s.querySelector('header');
    const body = [...s.children].filter((c) => c !== header);
    const text = body.map((c) => c.innerText).join('\n').trim();
    return {
      title: header ? header.innerText.trim() : '',
      text,
      chart: s.querySelectorAll('canvas, svg:not(.MuiSvgIcon-root)').length > 0,
      error: s.querySelectorAll('.MuiAlert-standardError, .MuiAlert-colorError, [data-testid="ErrorOutlineIcon"], [data-testid="AlertCircleIcon"], [data-testid="AlertIcon"]').length > 0,
      noData: /\bNo data\b/i.test(text),
      series: s.querySelectorAll('[role="listitem"]').length,   // legend entries of a chart
      box: (({ x, y, width, height }) => ({ x, y, width, height }))(s.getBoundingClientRect()),
    };
  }));
  await page.screenshot({ path: png });
  process.stdout.write(JSON.stringify({ panels }));
} finally {
  await browser.close();
}
