/**
 * The courier app's service worker (scope /courier): keeps the app shell — the page, its script,
 * stylesheet, manifest and icon — so the app opens in a dead zone. Pages: network first, the kept
 * shell when there is no network. The shell's files (content-hashed): kept, served from the cache.
 * /api/v1 and the socket: never touched (positions wait in IndexedDB, not here).
 * SHELL_FILES and SHELL_VERSION are written in by the build (web/scripts/build.ts).
 */
declare const SHELL_FILES: string[];
declare const SHELL_VERSION: string;

interface ExtendableEvent extends Event { waitUntil(promise: Promise<unknown>): void }
interface FetchEvent extends ExtendableEvent { request: Request; respondWith(response: Promise<Response> | Response): void }
interface WorkerScope {
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: Location;
}
const worker = self as unknown as WorkerScope;

const CACHE = `exd-courier-${SHELL_VERSION}`;
const SHELL = '/courier';
/** A network this slow to answer a page is a dead zone: the kept shell answers instead (the network's answer still refreshes it). */
const NAVIGATION_WAIT_MS = 4000;

worker.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([SHELL, ...SHELL_FILES])).then(() => worker.skipWaiting()));
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith('exd-courier-') && key !== CACHE).map((key) => caches.delete(key))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== worker.location.origin) return;
  if (request.mode === 'navigate' && (url.pathname === SHELL || url.pathname.startsWith(`${SHELL}/`))) {
    // Every /courier page is the same shell: the newest when online, the kept one otherwise.
    const network = fetch(request).then((response) => {
      if (response.ok) void caches.open(CACHE).then((cache) => cache.put(SHELL, response.clone()));
      return response;
    });
    const kept = () => caches.match(SHELL);
    const slow = new Promise<Response | undefined>((resolve) => setTimeout(() => void kept().then(resolve), NAVIGATION_WAIT_MS));
    event.respondWith(
      Promise.race([network.catch(() => kept()), slow])
        .then((first) => first ?? network)
        .catch(() => Response.error()),
    );
    return;
  }
  if (SHELL_FILES.includes(url.pathname) || url.pathname.startsWith(`${SHELL}/assets/`)) {
    event.respondWith(caches.match(request).then((kept) => kept ?? fetch(request)));
  }
});
