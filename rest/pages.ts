// What the pages this server serves (tracking page, console) share.

/**
 * The Content-Security-Policy of those pages: their own
 * scripts and styles only, no inline code, connections (API and sockets; 'self' covers ws/wss in
 * CSP 3) to this origin only, images from here and from the map tile server.
 */
export function pageCsp(options: { tileUrl: string | null; formAction: "'self'" | "'none'"; installable?: boolean }): string {
  // `https://{s}.tile.example/…` → `https://*.tile.example`
  const tiles = options.tileUrl ? ` ${/^https?:\/\/[^/]+/.exec(options.tileUrl)![0].replace('{s}', '*')}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    `img-src 'self' data:${tiles}`,
    // An installable app (the courier app): its web app manifest and service worker, from here only.
    ...(options.installable ? ["manifest-src 'self'", "worker-src 'self'"] : []),
    "base-uri 'none'",
    `form-action ${options.formAction}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Text for an HTML attribute value (or element text) of a page shell. */
export const escapeAttribute = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
