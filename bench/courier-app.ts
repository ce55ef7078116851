/**
 * The courier app's budgets (issue #27 item 5), printed, never asserted:
 *  1. its JavaScript as served gzipped (budget ≤ 80 kB);
 *  2. its first render on a phone (390×844) over an emulated slow 4G link (Chrome DevTools' preset:
 *     562.5 ms round trip, 1.44 Mbit/s down, 675 kbit/s up) with the CPU slowed 4× (budget ≤ 2 s):
 *     cold (nothing cached) and warm (the service worker holds the shell), median of --runs;
 *  3. positions sent per courier per minute with coalescing (web/courier/coalesce.ts), for 1 Hz GPS
 *     streams (with ±4 m jitter) standing still, walking, cycling and driving.
 *
 *   npm run bench:courier-app -- [--runs 5]
 */
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { buildWeb, WEB_OUT } from '../web/scripts/build.js';
import { COALESCE, createCoalescer, type Fix } from '../web/courier/coalesce.js';
import { startTestApp } from '../test/helpers/app.js';

const { values } = parseArgs({ options: { runs: { type: 'string' } }, strict: false });
const RUNS = Number(values.runs ?? 5);
const BUDGET = { gzippedKb: 80, firstRenderMs: 2000 };
const SLOW_4G = { offline: false, latency: 150 * 3.75, downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9, uploadThroughput: ((750 * 1000) / 8) * 0.9 };

// 1. Size: the bundle the server sends (gzip at its default level, as rest/routes/web-apps.ts does).
const manifest = await buildWeb({ out: WEB_OUT.sources });
const script = readFileSync(`${WEB_OUT.sources}assets/${manifest.courier.script}`);
const style = readFileSync(`${WEB_OUT.sources}assets/${manifest.courier.style}`);
const gzKb = gzipSync(script).length / 1024;
console.log(`web build: ${Object.keys(manifest).join(', ')}`);
console.log(`courier app JS: ${(script.length / 1024).toFixed(1)} kB, ${gzKb.toFixed(1)} kB gzipped (budget ≤ ${BUDGET.gzippedKb} kB: ${gzKb <= BUDGET.gzippedKb ? 'PASS' : 'MISS'}); CSS ${(gzipSync(style).length / 1024).toFixed(1)} kB gzipped`);

// 2. First render.
// The app in this process (the page's time is the browser's; the server only answers a shell, two files and one API call).
const app = await startTestApp({ env: { MAP_TILE_URL: 'none', RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: '100000' } });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const cold: Array<{ render: number; fcp: number; screen: number }> = [];
  const warm: typeof cold = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'es-CL' });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    for (const into of [cold, warm]) {
      if (into === warm) await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      await page.goto(`${app.url}/courier`, { waitUntil: 'commit' });
      // Without a session the app asks the API and shows the sign-in help: the whole first screen.
      await page.locator('#signed-out').waitFor({ timeout: 30_000 });
      const times = await page.evaluate(() => ({
        render: performance.getEntriesByName('courier-first-render')[0]?.startTime ?? NaN,
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        screen: performance.now(),
      }));
      into.push(times);
    }
    await context.close();
  }
  for (const [name, rows] of [['cold (nothing cached)', cold], ['warm (service worker)', warm]] as const) {
    // The first render is the first paint: the shell's static screen (the way in) before the script runs.
    const render = median(rows.map((r) => r.fcp));
    console.log(`first render, ${name}, slow 4G + 4× CPU: first contentful paint ${render.toFixed(0)} ms, app drawn ${median(rows.map((r) => r.render)).toFixed(0)} ms, sign-in screen with the API's answer ${median(rows.map((r) => r.screen)).toFixed(0)} ms (median of ${rows.length}; budget ≤ ${BUDGET.firstRenderMs} ms for the first paint: ${render <= BUDGET.firstRenderMs ? 'PASS' : 'MISS'})`);
  }
} finally {
  await browser.close();
  await app.stop();
}

// 3. Coalescing: 1 Hz fixes for 10 minutes at each speed, ±4 m of GPS jitter (seeded, repeatable).
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const M_PER_DEG = 111_195.08;
console.log(`\npositions sent per courier per minute (coalescing every ${COALESCE.everyMs / 1000} s or ${COALESCE.metres} m; 1 Hz GPS, ±4 m jitter, 10 min):`);
for (const [label, kmh] of [['standing still', 0], ['walking', 5], ['cycling', 15], ['driving in town', 30], ['driving on an avenue', 50]] as const) {
  const keep = createCoalescer();
  let kept = 0;
  const seconds = 600;
  for (let s = 0; s < seconds; s++) {
    const north = (kmh / 3.6) * s + (random() - 0.5) * 8;
    const east = (random() - 0.5) * 8;
    const fix: Fix = { lat: -33.42 + north / M_PER_DEG, lng: -70.6 + east / (M_PER_DEG * Math.cos((33.42 * Math.PI) / 180)), recorded_at: new Date(Date.UTC(2026, 10, 28) + s * 1000).toISOString() };
    if (keep(fix)) kept++;
  }
  console.log(`  ${label.padEnd(22)} ${String(kmh).padStart(2)} km/h: ${(kept / (seconds / 60)).toFixed(1)} per minute (without coalescing: 60)`);
}
