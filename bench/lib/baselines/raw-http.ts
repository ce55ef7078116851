/** Baseline: raw node:http. Reads and parses the JSON body, answers a constant JSON. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONSTANT_QUOTE } from '../constant-response.js';
import { announcePort } from '../processes.js';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify(CONSTANT_QUOTE);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
