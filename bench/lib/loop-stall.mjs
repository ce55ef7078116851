/**
 * Preloaded into the app by bench/growth.ts (`node --import …/loop-stall.mjs`): the event loop's
 * delay (perf_hooks monitorEventLoopDelay, 10 ms resolution) from the moment the first server
 * listens — start-up itself is not counted — written to LOOP_STALL_FILE every 200 ms and at exit,
 * so the bench reads the longest stall the app had while it served or ran its background jobs.
 * Plain JavaScript: it loads before any TypeScript loader.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.LOOP_STALL_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let since = null;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (...args) {
    this.once('listening', () => {
      if (since !== null) return;
      since = Date.now();
      histogram.enable();
    });
    return listen.apply(this, args);
  };
  const write = () => {
    if (since === null) return;
    const ms = (ns) => Math.round(ns / 1e5) / 10;
    writeFileSync(file, JSON.stringify({ maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), watchedMs: Date.now() - since }));
  };
  setInterval(write, 200).unref();
  process.on('exit', write);
}
