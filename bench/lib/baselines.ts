import { spawnServer, type ServerProcess } from './processes.js';

export type BaselineName = 'raw' | 'express' | 'yoga' | 'ws' | 'wsAck';

const SCRIPTS: Record<BaselineName, string> = {
  raw: 'bench/lib/baselines/raw-http.ts',
  express: 'bench/lib/baselines/express.ts',
  yoga: 'bench/lib/baselines/yoga-pothos.ts',
  ws: 'bench/lib/baselines/ws-broadcast.ts',
  wsAck: 'bench/lib/baselines/ws-ack.ts',
};

export const BASELINE_LABELS: Record<BaselineName, string> = {
  raw: 'raw node:http',
  express: 'bare Express 5 + express.json()',
  yoga: 'bare Yoga + Pothos (1 constant field)',
  ws: 'raw ws broadcast',
  wsAck: 'raw ws server acking each frame',
};

/** The query the Yoga baseline answers. */
export const CONSTANT_GRAPHQL_BODY = JSON.stringify({ query: '{ constant }' });

/** Starts one baseline server in its own process (never in the load generator's process). */
export function startBaseline(name: BaselineName, options: { nodeArgs?: string[] } = {}): Promise<ServerProcess> {
  return spawnServer({ script: SCRIPTS[name], ready: 'ipc', nodeArgs: options.nodeArgs ?? [] });
}
