import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGazetteerGeocoder } from '../../src/adapters/geocoder/gazetteer.js';
import { createNominatimGeocoder } from '../../src/adapters/geocoder/nominatim.js';
import { createLogger } from '../../src/logger.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/nominatim/${name}`, import.meta.url), 'utf8');
const APOQUINDO = fixture('apoquindo-3000-las-condes.json');
const EMPTY = fixture('empty.json');
const STREET_ONLY = fixture('apoquindo-street-only.json');
const APOQUINDO_ROW = (JSON.parse(APOQUINDO) as Array<{ lat: string; lon: string; display_name: string }>)[0]!;

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
const json = (body: string): Reply => (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);

/**
 * A loopback stand-in for a Nominatim server: replays the recorded body chosen per test, and
 * records every request it receives.
 */
describe('Nominatim geocoder against a local replay server', () => {
  let server: Server;
  let baseUrl: string;
  let reply: Reply;
  let requests: Array<{ path: string; query: URLSearchParams; headers: IncomingMessage['headers'] }>;
  const logger = createLogger({ level: 'silent' });
  const gazetteer = createGazetteerGeocoder();
  const geocoder = (timeoutMs = 2000) => createNominatimGeocoder({ baseUrl, fallback: gazetteer, logger, timeoutMs });

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
      if (url.pathname === '/elsewhere/search') return json(APOQUINDO)(req, res);
      reply(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // A path prefix, as when Nominatim is served under /nominatim behind a proxy.
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/nominatim`;
  });
  beforeEach(() => {
    requests = [];
    reply = json(APOQUINDO);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the jsonv2 search restricted to Chile, one result, and answers with its point', async () => {
    const result = await geocoder().geocode({ address: 'Av. Apoquindo 3000, Las Condes' });
    expect(result).toEqual({
      lat: Number(APOQUINDO_ROW.lat),
      lng: Number(APOQUINDO_ROW.lon),
      label: APOQUINDO_ROW.display_name,
      source: 'nominatim',
      precision: 'street',
    });
    expect(requests).toHaveLength(1);
    const [sent] = requests;
    expect(sent!.path).toBe('/nominatim/search');
    expect(Object.fromEntries(sent!.query)).toEqual({ q: 'Av. Apoquindo 3000, Las Condes', format: 'jsonv2', limit: '1', countrycodes: 'cl' });
    expect(sent!.headers.accept).toBe('application/json');
    expect(sent!.headers['user-agent']).toMatch(/^express-delivery\//); // Nominatim's usage policy wants an identifying agent
  });

  it('a match of the street without the house number is only locality precision (its point may be kilometres from the door)', async () => {
    reply = json(STREET_ONLY);
    const result = await geocoder().geocode({ address: 'Av. Apoquindo 3000, Las Condes' });
    expect(result).toMatchObject({ source: 'nominatim', precision: 'locality', label: expect.stringMatching(/^Avenida Apoquindo, /) });
  });

  it('the gazetteer fallback answers with locality precision', async () => {
    reply = json(EMPTY);
    expect(await geocoder().geocode({ address: 'Av. Grecia 1000, Ñuñoa' })).toMatchObject({ source: 'gazetteer', precision: 'locality' });
  });

  it('names the comuna of a point offline (the gazetteer), never the display text, and asks the server nothing', () => {
    expect(geocoder().localityOf({ point: { lat: Number(APOQUINDO_ROW.lat), lng: Number(APOQUINDO_ROW.lon) }, matched: APOQUINDO_ROW.display_name })).toBe('Las Condes');
    expect(requests).toHaveLength(0);
  });

  it('caches answers: the same address again (any case or padding) does not reach the server', async () => {
    const g = geocoder();
    const first = await g.geocode({ address: 'Av. Apoquindo 3000, Las Condes' });
    const second = await g.geocode({ address: '  av. apoquindo 3000, las condes ' });
    expect(second).toEqual(first);
    expect(requests).toHaveLength(1);
    await g.geocode({ address: 'Av. Apoquindo 3001, Las Condes' });
    expect(requests).toHaveLength(2);
  });

  it('nothing found → the gazetteer answers, and that answer is cached too', async () => {
    reply = json(EMPTY);
    const g = geocoder();
    expect(await g.geocode({ address: 'Av. Grecia 1000, Ñuñoa' })).toMatchObject({ label: 'Ñuñoa', source: 'gazetteer' });
    expect(await g.geocode({ address: 'Calle Inventada 123, Narnia' })).toBeNull();
    expect(await g.geocode({ address: 'Calle Inventada 123, Narnia' })).toBeNull();
    expect(requests).toHaveLength(2);
  });

  it('a 500 → the gazetteer answers; failures are not cached, so the server is asked again', async () => {
    reply = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    const g = geocoder();
    expect(await g.geocode({ address: 'Av. Apoquindo 3000, Las Condes' })).toMatchObject({ label: 'Las Condes', source: 'gazetteer' });
    reply = json(APOQUINDO);
    expect(await g.geocode({ address: 'Av. Apoquindo 3000, Las Condes' })).toMatchObject({ source: 'nominatim' });
    expect(requests).toHaveLength(2);
  });

  it('a body that is not JSON → the gazetteer answers', async () => {
    reply = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>maintenance</html>');
    expect(await geocoder().geocode({ address: 'Av. Apoquindo 3000, Las Condes' })).toMatchObject({ source: 'gazetteer' });
  });

  it('a server that never answers → the gazetteer answers after the timeout', async () => {
    reply = () => {}; // holds the request open; closed in afterAll
    expect(await geocoder(100).geocode({ address: 'Av. Apoquindo 3000, Las Condes' })).toMatchObject({ label: 'Las Condes', source: 'gazetteer' });
    expect(requests).toHaveLength(1);
  });

  it('does not follow redirects: a 302 falls back to the gazetteer and the target is never requested', async () => {
    reply = (req, res) => res.writeHead(302, { location: `/elsewhere/search?${new URL(req.url ?? '/', 'http://x').searchParams}` }).end();
    expect(await geocoder().geocode({ address: 'Av. Apoquindo 3000, Las Condes' })).toMatchObject({ source: 'gazetteer' });
    expect(requests.map((r) => r.path)).toEqual(['/nominatim/search']);
  });

  it('a server that is down (connection refused) → the gazetteer answers', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const g = createNominatimGeocoder({ baseUrl: `http://127.0.0.1:${port}`, fallback: gazetteer, logger });
    expect(await g.geocode({ address: 'Av. Grecia 1000, Ñuñoa' })).toMatchObject({ label: 'Ñuñoa', source: 'gazetteer' });
  });
});
