/**
 * The ops app's live fleet under load (issue #29 item 4), printed, never asserted: N couriers
 * (default 2,000) each report a position once a second through the couriers service
 * (`reportPosition`, as POST /couriers/me/location does), while one /ops page in Chromium shows the
 * couriers page (the fleet map fed by `adminFleet`). Measures what the page receives on its socket
 * (messages and bytes per second, from the DevTools protocol) and how smoothly it draws
 * (requestAnimationFrame intervals p50/p99, and long tasks from a PerformanceObserver).
 * The app runs in this process (the reports are service calls, not HTTP); the page is Chromium's.
 *
 *   npm run bench:ops-fleet -- [--couriers 2000] [--duration 20] [--warmup 5]
 */
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { buildWeb, WEB_OUT } from '../web/scripts/build.js';
import { startTestApp } from '../test/helpers/app.js';
import { courier as courierFixture } from '../test/contract/fixtures.js';
import { signedInOperator } from '../test/operators/support.js';

const { values } = parseArgs({ options: { couriers: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' } }, strict: false });
const COURIERS = Number(values.couriers ?? 2000);
const DURATION_S = Number(values.duration ?? 20);
const WARMUP_S = Number(values.warmup ?? 5);
if (![COURIERS, DURATION_S, WARMUP_S].every((n) => Number.isFinite(n) && n >= 0) || COURIERS < 1) throw new Error('--couriers, --duration and --warmup must be positive numbers');

await buildWeb({ out: WEB_OUT.sources });
const app = await startTestApp({ env: { MAP_TILE_URL: 'none', RATE_LIMIT_PER_MIN: '1000000', PUBLIC_RATE_LIMIT_PER_MIN: '1000000', SANDBOX_SIMULATOR: 'false' } });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const percentile = (xs: number[], q: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]! : NaN);

try {
  const { store, services } = app.app.container;
  // Couriers on duty in a grid over central Santiago, each with its own heading.
  const fleet = Array.from({ length: COURIERS }, (_, i) => courierFixture({
    mode: 'test', name: `Flota ${i}`, status: 'available', location: { lat: -33.40 - (i % 50) * 0.002, lng: -70.70 + Math.floor(i / 50) * 0.002 }, locationAt: new Date().toISOString(),
  }));
  for (const c of fleet) await store.couriers.insert(c);
  const { cookie } = await signedInOperator(app, 'bench@ops.cl', 'support');

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'es-CL' });
  const [name, value] = cookie.split('=', 2) as [string, string];
  await context.addCookies([{ name, value, url: app.url }]);
  // A string, not a function: tsx would wrap named functions in a helper the page does not have.
  await context.addInitScript(`
    localStorage.setItem('exd.ops.signed-in', '1');
    window.benchFrames = []; window.benchLongTasks = []; window.benchMeasure = false;
    let last = 0;
    const tick = (now) => { if (window.benchMeasure && last) window.benchFrames.push(now - last); last = now; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => { if (window.benchMeasure) for (const e of list.getEntries()) window.benchLongTasks.push(e.duration); }).observe({ type: 'longtask' });
  `);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const received = { messages: 0, bytes: 0, counting: false };
  cdp.on('Network.webSocketFrameReceived', (event: { response: { payloadData: string } }) => {
    if (!received.counting) return;
    received.messages++;
    received.bytes += Buffer.byteLength(event.response.payloadData);
  });
  await page.goto(`${app.url}/ops/couriers`);
  await page.waitForFunction(() => Number(document.querySelector('#fleet-map')?.getAttribute('data-markers')) > 0, undefined, { timeout: 60_000 });

  // Every courier reports once a second, spread over the second; what could not keep up is counted.
  let reports = 0;
  let running = true;
  const reporting = (async () => {
    for (let round = 1; running; round++) {
      const started = Date.now();
      await Promise.all(fleet.map(async (c, i) => {
        await new Promise((r) => setTimeout(r, (i / COURIERS) * 1000));
        const stored = (await store.couriers.findById(c.id))!;
        const wiggle = Math.sin(round / 5 + i) * 0.001;
        await services.couriers.reportPosition({ courier: stored, input: { lat: c.location!.lat + wiggle, lng: c.location!.lng + Math.cos(round / 5 + i) * 0.001 } });
        reports++;
      }));
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
    }
  })();

  await new Promise((r) => setTimeout(r, WARMUP_S * 1000));
  const startedAt = Date.now();
  const reportsBefore = reports;
  received.counting = true;
  await page.evaluate(() => { (window as unknown as { benchMeasure: boolean }).benchMeasure = true; });
  await new Promise((r) => setTimeout(r, DURATION_S * 1000));
  received.counting = false;
  const seconds = (Date.now() - startedAt) / 1000;
  const reportsInWindow = reports - reportsBefore;
  const { frames, longTasks, markers } = await page.evaluate(() => {
    const w = window as unknown as { benchFrames: number[]; benchLongTasks: number[]; benchMeasure: boolean };
    w.benchMeasure = false;
    return { frames: w.benchFrames, longTasks: w.benchLongTasks, markers: Number(document.querySelector('#fleet-map')?.getAttribute('data-markers')) };
  });
  running = false;
  await reporting;

  console.log(`ops fleet: ${COURIERS} couriers reporting once a second, one /ops couriers page in headless Chromium; ${DURATION_S} s measured after ${WARMUP_S} s warm-up`);
  console.log(`  positions reported:  ${(reportsInWindow / seconds).toFixed(0)}/s (wanted ${COURIERS}/s)`);
  console.log(`  page socket:         ${(received.messages / seconds).toFixed(2)} messages/s, ${(received.bytes / seconds / 1024).toFixed(1)} kB/s (${(received.bytes / Math.max(1, received.messages) / 1024).toFixed(1)} kB per message)`);
  console.log(`  markers on the map:  ${markers}`);
  console.log(`  frame interval:      p50 ${percentile(frames, 0.5).toFixed(1)} ms, p99 ${percentile(frames, 0.99).toFixed(1)} ms (${frames.length} frames)`);
  console.log(`  long tasks (>50 ms): ${longTasks.length} (${(longTasks.length / seconds).toFixed(2)}/s), p50 ${percentile(longTasks, 0.5).toFixed(0)} ms, max ${longTasks.length ? Math.max(...longTasks).toFixed(0) : '—'} ms`);
  await context.close();
} finally {
  await browser.close();
  await app.stop();
}
