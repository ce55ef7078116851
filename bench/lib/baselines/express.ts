/**
 * Baseline: a bare Express 5 app with express.json() and routes answering a constant JSON: the
 * quote route, and the order routes (create, read by id) that bench/orders.ts drives.
 */
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
app.post('/api/v1/orders', (_req, res) => {
  res.status(201).json(CONSTANT_QUOTE);
});
app.get('/api/v1/orders/:id', (_req, res) => {
  res.json(CONSTANT_QUOTE);
});

const server = createServer(app);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
