/**
 * The public tracking poll (GET /api/v1/tracking/:reference, anonymous), answered by the REST fast
 * path against the same request answered by Express: one app process, the same order; a query
 * string sends a request to Express (rest/fast-path.ts takes only the plain spelling), so the two
 * rows differ only in the way in. Measured twice: within the anonymous budget (200s), and with the
 * budget spent (429s: what a caller in a loop costs). Prints figures only; not part of `npm run bench`.
 *
 *   npx tsx bench/tracking-poll.ts [--duration 8] [--warmup 2] [--connections 50] [--rounds 4]
 */
import { startApp } from './lib/app.js';
import { runInterleaved } from './lib/load.js';
import { benchSettings } from './lib/options.js';

const settings = benchSettings();
const ORDER_BODY = JSON.stringify({ customer_name: 'Camila Rojas', customer_phone: '+56 9 8765 4321', dropoff_address: 'Av. Apoquindo 4501, Las Condes', payment_mode: 'prepaid' });

async function measure(budgetPerMin: number, label: string) {
  const env = { SANDBOX_SIMULATOR: 'false', PUBLIC_RATE_LIMIT_PER_MIN: String(budgetPerMin) };
  const app = await startApp({ merchant: { name: 'Tracking poll bench', address: 'Av. Providencia 1234, Providencia' }, rateLimitPerMin: 1_000_000, env });
  try {
    const created = await fetch(`${app.server.url}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.merchant.testKey}` }, body: ORDER_BODY });
    const { order_number: reference } = (await created.json()) as { order_number: string };
    const url = `${app.server.url}/api/v1/tracking/${reference}`;
    const common = { method: 'GET' as const, duration: settings.duration, warmup: settings.warmup, connections: settings.connections, serverCpuSeconds: () => app.server.cpuSeconds() };
    const results = await runInterleaved([{ id: 'fast path', url, ...common }, { id: 'Express', url: `${url}?via=express`, ...common }], settings.rounds);
    for (const [id, r] of results) {
      const answers = r.non2xx === 0 ? '200' : r.non2xx === r.requests ? '429' : `${r.non2xx} of ${r.requests} not 2xx`;
      console.log(`${label.padEnd(22)} ${id.padEnd(10)} ${String(Math.round(r.rps)).padStart(6)} rps  p99 ${String(r.p99).padStart(5)} ms  ${String(r.serverUsPerRequest?.toFixed(0)).padStart(4)} µs/req server CPU  answers ${answers}`);
    }
    const [fast, express] = [results.get('fast path')!, results.get('Express')!];
    console.log(`${label.padEnd(22)} fast path / Express by server µs/req: ${(fast.serverUsPerRequest! / express.serverUsPerRequest!).toFixed(2)}×`);
  } finally {
    await app.stop();
  }
}

console.log(`${settings.connections} connections, ${settings.duration} s measured after ${settings.warmup} s warm-up, ${settings.rounds} alternating windows`);
await measure(1_000_000_000, 'within the budget');
await measure(60, 'budget spent (429)');
