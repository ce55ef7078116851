import sharp, { type Sharp } from 'sharp';
import { UndecodableImageError, type ReencodeImage } from '../ports/image-encoder.js';

// One libvips thread per image and no operation cache: the callers bound how many images are
// re-encoded at once (PROOF_ENCODE_CONCURRENCY), so that number is the CPU uploads may take, and
// nothing decoded stays in memory afterwards.
sharp.concurrency(1);
sharp.cache(false);

/**
 * Proof images through sharp (libvips), on libuv's threads: decoded (EXIF orientation applied to
 * the pixels), shrunk to fit `maxSide`, encoded again with no metadata at all (sharp keeps none
 * unless asked: no EXIF, XMP, ICC, IPTC, comments, PNG text or private chunks, WebP EXIF/XMP or
 * unknown chunks; bytes after the image's end are never read into the output).
 */
export const reencodeWithSharp: ReencodeImage = async ({ data, contentType, maxSide, quality, maxInputPixels }) => {
  let pipeline: Sharp;
  try {
    pipeline = sharp(data, { limitInputPixels: maxInputPixels, failOn: 'error', sequentialRead: true })
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true });
    pipeline =
      contentType === 'image/jpeg'
        ? pipeline.jpeg({ quality, mozjpeg: false })
        : contentType === 'image/webp'
          ? pipeline.webp({ quality })
          : pipeline.png({ compressionLevel: 6 });
    const { data: out, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return { data: out, width: info.width, height: info.height };
  } catch (error) {
    throw new UndecodableImageError((error as Error).message);
  }
};
