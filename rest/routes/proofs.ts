import type { Request, Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { AppError } from '../../src/domain/errors.js';
import { PROOF_KINDS } from '../../src/domain/proofs/service.js';
import { courierOf, requireCourier } from '../middleware/courier.js';
import { sendOk } from '../respond.js';

/** The raw body, refused (413) past `max` bytes without reading further. */
async function readBody(req: Request, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > max) throw new AppError('PAYLOAD_TOO_LARGE', `A proof image may be at most ${max} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) {
      req.unpipe();
      req.resume();
      throw new AppError('PAYLOAD_TOO_LARGE', `A proof image may be at most ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Hosted proofs of delivery (issue #27), before the JSON body parser: the courier's upload of an
 * image body, and the merchants' signed links that serve it.
 */
export function proofRoutes(router: Router, edge: Edge): void {
  const { proofs } = edge.services;

  router.post('/couriers/me/orders/:id/proof', requireCourier(edge), async (req, res) => {
    const { courier } = courierOf(res);
    const kind = req.query.kind;
    if (typeof kind !== 'string' || !(PROOF_KINDS as readonly string[]).includes(kind)) {
      throw new AppError('VALIDATION_ERROR', 'kind must be photo or signature', { fields: [{ field: 'kind', message: 'must be photo or signature' }] });
    }
    const data = await readBody(req, edge.config.proofs.maxBytes);
    const record = await proofs.uploadProof({ courier, ref: String(req.params.id), kind: kind as (typeof PROOF_KINDS)[number], contentType: req.headers['content-type'], data });
    sendOk(res, { proof_id: record.id, kind: record.kind, content_type: record.contentType, bytes: record.bytes, sha256: record.sha256 }, 201);
  });

  router.get('/proofs/:id', async (req, res) => {
    await edge.door.frontDoor.admit({ kind: 'anonymous', address: edge.door.addressOf(req) });
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const { record, data } = await proofs.readSigned({ proofId: String(req.params.id), expires: str(req.query.expires), sig: str(req.query.sig) });
    res.status(200);
    res.setHeader('Content-Type', record.contentType);
    res.setHeader('Content-Length', data.length);
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'");
    res.end(data);
  });
}
