/** Baseline: a bare Express 5 app with express.json() and one route answering a constant JSON. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { CONSTANT_QUOTE } from '../constant-response.js';
import { announcePort } from '../processes.js';

const app = express();
app.use(express.json());
app.post('/api/v1/shipping/quote', (_req, res) => {
  res.json(CONSTANT_QUOTE);
});

const server = createServer(app);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
