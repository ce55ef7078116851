// A merchant's CI check (Node >= 20, no dependencies): plays a sandbox run against a local
// receiver and asserts the exact sequence of webhooks it receives, each verified with node:crypto.
// EXD_URL=http://localhost:3000 EXD_TEST_KEY=ak_test_… node sandbox-ci.mjs
import { createServer } from 'node:http';
import { createPublicKey, verify } from 'node:crypto';

const base = `${process.env.EXD_URL ?? 'http://localhost:3000'}/api/v1`;
const headers = { authorization: `Bearer ${process.env.EXD_TEST_KEY}`, 'content-type': 'application/json' };
const call = async (method, path, body) => {
  const res = await fetch(`${base}${path}`, { method, headers, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

// 1. A receiver on this machine that keeps every delivery as received.
const received = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    received.push({ id: req.headers['webhook-id'], timestamp: req.headers['webhook-timestamp'], signature: req.headers['webhook-signature'], body });
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { endpoint } = await call('POST', '/webhooks', { url: `http://127.0.0.1:${server.address().port}/hooks`, events: ['order.status_changed'], signing: 'asymmetric' });

try {
  // 2. The public keys, then the run: a fresh seed per CI job (a seed plays once per merchant).
  const { keys } = await call('GET', '/webhooks/public-keys');
  const { run } = await call('POST', '/sandbox/runs', {
    scenario: 'delivered', seed: process.env.CI_JOB_ID ?? String(Date.now()), start_time: '2026-01-15T12:00:00Z',
    order: { dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid' },
  });

  // 3. Wait for every webhook of the run (they are sent at once), then check them in run order (webhook-ids sort in it).
  const deadline = Date.now() + 30_000;
  while (received.length < run.webhooks.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const got = [...new Map(received.map((r) => [r.id, r])).values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const r of got) {
    const content = Buffer.from(`${r.id}.${r.timestamp}.${r.body}`);
    const ok = r.signature.split(' ').some((s) => keys.some((k) => verify(null, content, createPublicKey(k.public_key_pem), Buffer.from(s.slice(4), 'base64'))));
    if (!ok) throw new Error(`delivery ${r.id}: bad signature`);
  }
  const sequence = got.map((r) => `${JSON.parse(r.body).sequence}:${JSON.parse(r.body).status}@${JSON.parse(r.body).timestamp}`);
  const expected = ['1:new@2026-01-15T12:00:00.000Z', '2:assigned@2026-01-15T12:00:00.000Z'];
  if (JSON.stringify(sequence.slice(0, 2)) !== JSON.stringify(expected) || !sequence.at(-1).includes(':completed@')) {
    throw new Error(`unexpected sequence: ${sequence.join(', ')}`);
  }
  if (got.map((r) => r.body).join('\n') !== run.webhooks.map((w) => JSON.stringify(w.payload)).join('\n')) throw new Error('bodies differ from the run');
  console.log(`ok: ${sequence.length} webhooks, ${sequence.join(' → ')}`);
} finally {
  await call('DELETE', `/webhooks/${endpoint.id}`);
  server.close();
}
