import type { Config } from '../config.js';
import type { Services } from '../container.js';
import type { Logger } from '../logger.js';
import type { EdgeDoor } from './door.js';

/**
 * What an entrance (rest/, schema/, realtime/) is given: the domain services, the configuration,
 * the logger and the front door — never the store, the bus or an adapter.
 */
export interface Edge {
  services: Services;
  config: Config;
  logger: Logger;
  door: EdgeDoor;
}
