/**
 * Proof images for the upload tests (issue #39), made with sharp: real images a decoder reads, each
 * carrying what must not survive an upload — EXIF with GPS, data after the JPEG's end, a private
 * PNG chunk, an unknown WebP chunk. SECRETS lists the strings none of the stored bytes may hold.
 */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

export const SECRETS = ['GPS', 'SECRET', 'prIv', 'ZZZZ', 'Exif', 'home-of-the-courier'] as const;

const canvas = (width = 64, height = 48) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } });

/** A 40×20 JPEG whose EXIF says orientation 6 (to be shown turned: 20×40) and holds GPS coordinates and a description. */
export function jpegWithGps(): Promise<Buffer> {
  return canvas(40, 20)
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { ImageDescription: 'SECRET home-of-the-courier' }, IFD3: { GPSLatitudeRef: 'S', GPSLatitude: '33/1 24/1 36/1', GPSLongitudeRef: 'W', GPSLongitude: '70/1 36/1 0/1' } })
    .toBuffer();
}

/** A clean JPEG with a GPS fix appended after its end-of-image marker (a layout phone cameras use). */
export async function jpegWithTrailer(): Promise<Buffer> {
  const clean = await canvas().jpeg().toBuffer();
  return Buffer.concat([clean, Buffer.from('\xff\xd8GPSLatitude=-33.41;GPSLongitude=-70.60;SECRET home-of-the-courier\xff\xd9', 'latin1')]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG with a private ancillary chunk `prIv` and a tEXt chunk before its IEND. */
export async function pngWithPrivateChunk(): Promise<Buffer> {
  const clean = await canvas().png().toBuffer();
  const iend = clean.length - 12;
  return Buffer.concat([
    clean.subarray(0, iend),
    pngChunk('prIv', Buffer.from('GPS -33.41,-70.60 SECRET home-of-the-courier', 'latin1')),
    pngChunk('tEXt', Buffer.from('Comment\0SECRET', 'latin1')),
    clean.subarray(iend),
  ]);
}

/** A WebP (extended, with an EXIF chunk) with an unknown chunk `ZZZZ` appended; the RIFF size covers it. */
export async function webpWithUnknownChunk(): Promise<Buffer> {
  const withExif = await canvas().webp().withExif({ IFD0: { ImageDescription: 'SECRET' } }).toBuffer();
  const payload = Buffer.from('GPS -33.41,-70.60 home-of-the-courier', 'latin1');
  const chunk = Buffer.alloc(8 + payload.length + (payload.length % 2));
  chunk.write('ZZZZ', 0, 'latin1');
  chunk.writeUInt32LE(payload.length, 4);
  payload.copy(chunk, 8);
  const out = Buffer.concat([withExif, chunk]);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}

/** A plain photo of the given size (a distinct colour per call, so no two share their bytes). */
let shade = 0;
export function photo(width = 64, height = 48): Promise<Buffer> {
  shade = (shade + 37) % 256;
  return sharp({ create: { width, height, channels: 3, background: { r: shade, g: 90, b: 255 - shade } } }).jpeg().toBuffer();
}

/** A small PNG signature stand-in. */
export function signature(): Promise<Buffer> {
  return sharp({ create: { width: 120, height: 40, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
}

export async function dimensionsOf(data: Buffer): Promise<{ width: number; height: number; exif: boolean; format: string }> {
  const m = await sharp(data).metadata();
  return { width: m.width, height: m.height, exif: m.exif !== undefined, format: m.format };
}
