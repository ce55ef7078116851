/**
 * Preloaded into the app by bench/growth.ts (`node --import …/loop-stall.mjs`): the event loop's
 * delay (perf_hooks monitorEventLoopDelay, 10 ms resolution) from the moment the first server
 * listens — start-up itself is not counted — written to LOOP_STALL_FILE every 200 ms and at exit,
 * so the bench reads the longest stall the app had while it served or ran its background jobs.
 * Plain JavaScript: it loads before any TypeScript loader.
 */
import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
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
  const ms = (ns) => Math.round(ns / 1e5) / 10;
  const figures = () => JSON.stringify({ maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), watchedMs: Date.now() - since });
  // Written without blocking: a synchronous write on a disk busy with the store's checkpoints
  // would itself stall the loop it measures. At exit, synchronously (the last figures).
  let writing = false;
  setInterval(() => {
    if (since === null || writing) return;
    writing = true;
    writeFile(file, figures()).catch(() => {}).finally(() => (writing = false));
  }, 200).unref();
  process.on('exit', () => since !== null && writeFileSync(file, figures()));
}
