/** Baseline: bare graphql-yoga + Pothos, one constant field, served on node:http directly (like the app). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import SchemaBuilder from '@pothos/core';
import { createYoga } from 'graphql-yoga';
import { announcePort } from '../processes.js';

// The app's Pothos plugins make their options required in the (global) builder option types;
// this bare builder loads no plugin, so it has none to give.
const builder = new SchemaBuilder({} as never);
builder.queryType({
  fields: (t) => ({ constant: t.string({ resolve: () => 'ok' }) }),
});

const yoga = createYoga({ schema: builder.toSchema(), graphqlEndpoint: '/graphql', landingPage: false, logging: false });
// Yoga answers its own errors (as the app's schema/http.ts relies on): nothing to await.
const server = createServer((req, res) => void yoga(req, res));
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
