import type { BusMessage, EventBus } from '../../ports/event-bus.js';

/** In-process bus: handlers run on the next tick so a slow subscriber never delays the publisher. */
export function createMemoryEventBus(): EventBus {
  const handlers = new Set<(message: BusMessage) => void>();
  return {
    async publish(message) {
      for (const handler of handlers) {
        queueMicrotask(() => {
          try {
            handler(message);
          } catch {
            // a subscriber's failure is its own; the bus keeps delivering to the others
          }
        });
      }
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    // One process: nothing is ever missed.
    onResync: () => () => {},
    connected: () => true,
    async close() {
      handlers.clear();
    },
  };
}
