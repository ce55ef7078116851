/**
 * Proof re-encoding (issue #39), printed, never asserted: what one upload's decode + re-encode
 * costs (ms per image, images per second) at PROOF_ENCODE_CONCURRENCY 1 and 2, and what a queue of
 * uploads does to the event loop (p99 delay of a 10 ms timer, against the same timer idle): sharp
 * works on libuv's threads, so the loop should barely notice. Images: the courier app's own photo
 * (2000×1500, as a phone that skipped the app's downscale would send) and a 3000×2250 noisy JPEG
 * near the 2 MiB upload limit (the worst a courier can send by default).
 *
 *   npm run bench:proof-reencode -- [--images 16]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { reencodeWithSharp } from '../src/adapters/sharp-images.js';

const { values } = parseArgs({ options: { images: { type: 'string' } }, strict: false });
const IMAGES = Number(values.images ?? 16);
const OPTIONS = { contentType: 'image/jpeg' as const, maxSide: 1600, quality: 80, maxInputPixels: 50_000_000 };

const fixture = readFileSync(new URL('../test/fixtures/courier-photo.jpg', import.meta.url));
const noisy = await sharp({ create: { width: 3000, height: 2250, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } } }).jpeg({ quality: 80 }).toBuffer();

/** The event loop's p99 delay (ms) while `work` runs. */
async function loopP99During(work: () => Promise<void>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await work();
  histogram.disable();
  return histogram.percentile(99) / 1e6;
}

const idle = await loopP99During(() => new Promise((resolve) => setTimeout(resolve, 2000)));
console.log(`event loop p99 idle: ${idle.toFixed(1)} ms`);
for (const [name, image] of [['app photo 2000×1500', fixture], ['noisy 3000×2250', noisy]] as const) {
  for (const concurrency of [1, 2]) {
    let left = IMAGES;
    let outBytes = 0;
    const started = performance.now();
    const p99 = await loopP99During(async () => {
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (left-- > 0) {
          const out = await reencodeWithSharp({ data: image, ...OPTIONS });
          outBytes += out.data.length;
        }
      }));
    });
    const ms = performance.now() - started;
    console.log(
      `${name} (${(image.length / 1024).toFixed(0)} kB → ${(outBytes / IMAGES / 1024).toFixed(0)} kB), concurrency ${concurrency}: ` +
        `${(ms / IMAGES).toFixed(0)} ms/image, ${((IMAGES * 1000) / ms).toFixed(1)} images/s; event loop p99 ${p99.toFixed(1)} ms (${(p99 / idle).toFixed(2)}× idle)`,
    );
  }
}
