/**
 * Proof images (issue #27): the type by the bytes' magic, and byte-level metadata strippers — no
 * image library, no decoding: segments and chunks are copied or dropped whole. What is kept of the
 * metadata is the EXIF orientation (rewritten as a minimal EXIF block) when it is a plain value 1–8.
 */
import { AppError } from '../errors.js';

export const PROOF_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type ProofContentType = (typeof PROOF_CONTENT_TYPES)[number];

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image type the bytes say they are, or null. */
export function sniffImageType(data: Buffer): ProofContentType | null {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

const malformed = (what: string) => new AppError('UNSUPPORTED_MEDIA_TYPE', `The body is not a well-formed ${what} image`);

/** The EXIF orientation (1–8) of an APP1 Exif payload (after "Exif\0\0"), when it is simple to read; else null. */
export function exifOrientation(tiff: Buffer): number | null {
  if (tiff.length < 8) return null;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  if (u16(2) !== 42) return null;
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return null;
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return null;
    if (u16(entry) !== 0x0112) continue;
    if (u16(entry + 2) !== 3 || u32(entry + 4) !== 1) return null;
    const value = u16(entry + 8);
    return value >= 1 && value <= 8 ? value : null;
  }
  return null;
}

/** A minimal APP1 segment carrying only the orientation (big-endian TIFF, one IFD0 entry). */
function orientationSegment(orientation: number): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(1, 8);
  tiff.writeUInt16BE(0x0112, 10);
  tiff.writeUInt16BE(3, 12);
  tiff.writeUInt32BE(1, 14);
  tiff.writeUInt16BE(orientation, 18);
  // next IFD offset 0 (already zero)
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const header = Buffer.from([0xff, 0xe1, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([header, payload]);
}

/**
 * JPEG: every APPn segment but APP0 (JFIF) goes, and comments; an APP1 Exif block is replaced by
 * one holding only its orientation when that is a simple value. Everything from the start of scan
 * on is copied as is.
 */
export function stripJpeg(data: Buffer): Buffer {
  const out: Buffer[] = [data.subarray(0, 2)];
  let i = 2;
  let orientationKept = false;
  while (i < data.length) {
    if (data[i] !== 0xff) throw malformed('JPEG');
    let m = i + 1;
    while (m < data.length && data[m] === 0xff) m++;
    if (m >= data.length) throw malformed('JPEG');
    const marker = data[m]!;
    const start = i;
    const after = m + 1;
    if (marker === 0xd9) {
      out.push(data.subarray(start, after));
      return Buffer.concat(out);
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      out.push(data.subarray(start, after));
      i = after;
      continue;
    }
    if (after + 2 > data.length) throw malformed('JPEG');
    const length = data.readUInt16BE(after);
    const end = after + length;
    if (length < 2 || end > data.length) throw malformed('JPEG');
    if (marker === 0xda) {
      out.push(data.subarray(start));
      return Buffer.concat(out);
    }
    const payload = data.subarray(after + 2, end);
    if (marker === 0xe0) {
      out.push(data.subarray(start, end));
    } else if (marker === 0xe1 && !orientationKept && payload.toString('latin1', 0, 6) === 'Exif\0\0') {
      const orientation = exifOrientation(payload.subarray(6));
      if (orientation !== null) {
        out.push(orientationSegment(orientation));
        orientationKept = true;
      }
    } else if ((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe) {
      // other application segments (XMP, ICC, Photoshop…) and comments: dropped
    } else {
      out.push(data.subarray(start, end));
    }
    i = end;
  }
  throw malformed('JPEG');
}

const PNG_DROPPED = new Set(['tEXt', 'iTXt', 'zTXt', 'eXIf', 'tIME']);

/** PNG: text chunks, eXIf and tIME go; the rest is copied (CRCs are per chunk, so nothing is recomputed). */
export function stripPng(data: Buffer): Buffer {
  const out: Buffer[] = [data.subarray(0, 8)];
  let i = 8;
  while (i + 12 <= data.length) {
    const length = data.readUInt32BE(i);
    const type = data.toString('latin1', i + 4, i + 8);
    const end = i + 12 + length;
    if (end > data.length || !/^[A-Za-z]{4}$/.test(type)) throw malformed('PNG');
    if (!PNG_DROPPED.has(type)) out.push(data.subarray(i, end));
    i = end;
    if (type === 'IEND') return Buffer.concat(out);
  }
  throw malformed('PNG');
}

/** WebP: the EXIF and XMP chunks go, and VP8X stops announcing them; the RIFF size is recomputed. */
export function stripWebp(data: Buffer): Buffer {
  const declared = data.readUInt32LE(4) + 8;
  if (declared > data.length || declared < 12) throw malformed('WebP');
  const out: Buffer[] = [];
  let i = 12;
  while (i < declared) {
    if (i + 8 > declared) throw malformed('WebP');
    const fourcc = data.toString('latin1', i, i + 4);
    const size = data.readUInt32LE(i + 4);
    const end = i + 8 + size + (size % 2);
    if (i + 8 + size > declared) throw malformed('WebP');
    const chunk = data.subarray(i, Math.min(end, declared));
    if (fourcc === 'VP8X' && size >= 1) {
      const copy = Buffer.from(chunk);
      copy[8] = copy[8]! & ~0x0c;
      out.push(copy);
    } else if (fourcc !== 'EXIF' && fourcc !== 'XMP ') {
      out.push(chunk);
    }
    i = end;
  }
  const body = Buffer.concat(out);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(body.length + 4, 4);
  header.write('WEBP', 8, 'latin1');
  return Buffer.concat([header, body]);
}

/** Checks the bytes are the declared type (by their magic) and strips their metadata. */
export function cleanProofImage(options: { data: Buffer; declared: string | undefined }): { contentType: ProofContentType; data: Buffer } {
  const declared = options.declared?.split(';')[0]?.trim().toLowerCase();
  if (!declared || !(PROOF_CONTENT_TYPES as readonly string[]).includes(declared)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be image/jpeg, image/png or image/webp');
  }
  const sniffed = sniffImageType(options.data);
  if (!sniffed) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body is not a JPEG, PNG or WebP image');
  if (sniffed !== declared) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The body is ${sniffed}, not the declared ${declared}`);
  const data = sniffed === 'image/jpeg' ? stripJpeg(options.data) : sniffed === 'image/png' ? stripPng(options.data) : stripWebp(options.data);
  return { contentType: sniffed, data };
}
