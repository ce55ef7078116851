import type { Strings } from '../../shared/i18n.js';

/** The server's geofence verdict on a proof. */
export const GEOFENCE_LABELS: Strings<'passed' | 'bypassed' | 'unverified'> = {
  es: { passed: 'verificada', bypassed: 'omitida', unverified: 'sin verificar (dirección aproximada)' },
  en: { passed: 'passed', bypassed: 'bypassed', unverified: 'unverified (approximate address)' },
};

/**
 * A proof hosted here (a signed `/api/v1/proofs/…` link) is shown, read from this origin whatever
 * public address the link names; an external URL (a delivery made with `photo_url`) stays a link,
 * since the page's CSP loads images from this origin only.
 */
export function ProofImage({ id, url, label }: { id: string; url: string; label: string }) {
  const link = new URL(url, location.origin);
  const hosted = link.pathname.startsWith('/api/v1/proofs/') ? `${link.pathname}${link.search}` : null;
  return (
    <figure id={id}>
      {hosted ? <a href={hosted} target="_blank" rel="noreferrer"><img src={hosted} alt={label} /></a> : <a href={url} rel="noreferrer" target="_blank">{label}</a>}
      <figcaption>{label}</figcaption>
    </figure>
  );
}
