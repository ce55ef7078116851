import qrcode from 'qrcode-generator';
import { useMemo } from 'preact/hooks';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { OneTimeSecret } from '../../shared/ui/one-time-secret.js';

const S: Strings<'qr' | 'qrNote' | 'send' | 'sms' | 'whatsapp' | 'email' | 'subject' | 'courierText' | 'ownerText'> = {
  es: {
    qr: 'Código QR del enlace', qrNote: 'Escanéalo con la cámara del teléfono que lo usará: el enlace sirve una sola vez, en ese teléfono.',
    send: 'Enviar', sms: 'Por SMS', whatsapp: 'Por WhatsApp', email: 'Por correo', subject: 'Tu acceso',
    courierText: 'Hola {name}: abre este enlace en tu teléfono para entrar a la app de repartidor (sirve una vez): {link}',
    ownerText: 'Hola: abre este enlace para elegir tu contraseña y entrar a la consola de {name} (sirve una vez): {link}',
  },
  en: {
    qr: "The link's QR code", qrNote: 'Scan it with the camera of the phone that will use it: the link works once, on that phone.',
    send: 'Send', sms: 'By SMS', whatsapp: 'By WhatsApp', email: 'By e-mail', subject: 'Your access',
    courierText: 'Hi {name}: open this link on your phone to sign in to the courier app (it works once): {link}',
    ownerText: "Hi: open this link to choose your password and enter {name}'s console (it works once): {link}",
  },
};

/** The QR code of `text` as one SVG path (no inline markup, no style attribute: the CSP stays strict). */
function QrCode({ text, label }: { text: string; label: string }) {
  const { size, path } = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(text);
    qr.make();
    const count = qr.getModuleCount();
    let d = '';
    for (let row = 0; row < count; row++) for (let col = 0; col < count; col++) if (qr.isDark(row, col)) d += `M${col + 4} ${row + 4}h1v1h-1z`;
    return { size: count + 8, path: d };
  }, [text]);
  return (
    <svg class="qr" viewBox={`0 0 ${size} ${size}`} width="220" height="220" role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}

/**
 * A one-time link (a courier's sign-in, an owner's invitation) and how it reaches its person's
 * phone (issue #38 item 1): a QR code on screen, or the operator's own SMS, WhatsApp or e-mail app
 * with the message written. The link is a credential: it never goes through the server's outbox.
 */
export function ShareLink(props: { id: string; label: string; link: string; kind: 'courier' | 'owner'; name: string; phone?: string; email?: string }) {
  const t = useStrings(S);
  const message = (props.kind === 'courier' ? t.courierText : t.ownerText).replace('{name}', props.name).replace('{link}', props.link);
  const digits = (props.phone ?? '').replace(/[^\d+]/g, '');
  const sms = `sms:${digits}?body=${encodeURIComponent(message)}`;
  const whatsapp = `https://wa.me/${digits.replace(/^\+/, '')}?text=${encodeURIComponent(message)}`;
  const email = `mailto:${encodeURIComponent(props.email ?? '')}?subject=${encodeURIComponent(t.subject)}&body=${encodeURIComponent(message)}`;
  return (
    <section class="card share" id={`${props.id}-share`} aria-label={props.label}>
      <OneTimeSecret id={props.id} label={props.label} value={props.link} />
      <div class="share-ways">
        <figure>
          <QrCode text={props.link} label={t.qr} />
          <figcaption>{t.qrNote}</figcaption>
        </figure>
        <div>
          <h3>{t.send}</h3>
          <ul class="share-links">
            {props.kind === 'courier' && <li><a id={`${props.id}-sms`} href={sms}>{t.sms}</a></li>}
            {props.kind === 'courier' && <li><a id={`${props.id}-whatsapp`} href={whatsapp} target="_blank" rel="noopener noreferrer">{t.whatsapp}</a></li>}
            <li><a id={`${props.id}-email`} href={email}>{t.email}</a></li>
          </ul>
        </div>
      </div>
    </section>
  );
}
