/** Writes one serialised update to a subscriber at once; false when it cannot now (its transport is behind). */
export type DirectWriter = (json: string) => boolean;

const writers = new WeakMap<object, DirectWriter>();

/**
 * Subscribers whose transport writes serialised updates itself, keyed by an object both sides hold
 * for the subscription (a GraphQL operation's context): the transport (graphql-ws) offers a writer,
 * the layer that serialises the updates (shared GraphQL execution) takes it; neither imports the other.
 */
export const directWriters = {
  offer: (subscription: object, write: DirectWriter): void => void writers.set(subscription, write),
  of: (subscription: object): DirectWriter | undefined => writers.get(subscription),
};
