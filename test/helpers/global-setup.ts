/** Global setup: nothing yet beyond a marker; the MongoDB test server joins here. */
export default async function setup(): Promise<void> {}
