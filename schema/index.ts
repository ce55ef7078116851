import type { GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './root.js';
import './merchants.js';
import './admin.js';
import './admin-couriers.js';
import './quotes.js';
import './orders.js';
import './tips.js';
import './stops.js';
import './couriers.js';
import './realtime.js';
import './webhooks.js';
import './sandbox.js';
import './events.js';
import './notifications.js';
import './cod.js';
import './members.js';
import './operators.js';
import './admin-orders.js';
import './admin-webhooks.js';
import './admin-fleet.js';
import './admin-now.js';
import './api-keys.js';

let schema: GraphQLSchema | undefined;

/** Built once per process: the schema holds no per-app state (that lives in the context). */
export function buildSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: true });
  return schema;
}
