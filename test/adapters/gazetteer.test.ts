import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createGazetteerGeocoder, loadComunas, normalizePlaceText } from '../../src/adapters/geocoder/gazetteer.js';
import { isInServiceArea } from '../../src/domain/geo.js';

const gazetteer = createGazetteerGeocoder();
const label = async (address: string) => (await gazetteer.geocode({ address }))?.label ?? null;

describe('offline gazetteer (Región Metropolitana comunas)', () => {
  it('loads every comuna of the bundled CSV, each inside the service area', () => {
    const csv = readFileSync(new URL('../../src/adapters/geocoder/santiago-comunas.csv', import.meta.url), 'utf8').trim().split('\n');
    const comunas = loadComunas();
    expect(comunas).toHaveLength(csv.length - 1);
    expect(comunas).toHaveLength(52);
    for (const c of comunas) expect(isInServiceArea(c), c.name).toBe(true);
    expect(comunas.find((c) => c.name === 'Ñuñoa')).toMatchObject({ key: 'nunoa', lat: -33.4607, lng: -70.5927 });
  });

  it("answers with the comuna's point from the CSV, source gazetteer", async () => {
    expect(await gazetteer.geocode({ address: 'Av. Apoquindo 3000, Las Condes' })).toEqual({
      lat: -33.4154,
      lng: -70.5837,
      label: 'Las Condes',
      source: 'gazetteer',
      precision: 'locality',
    });
  });

  it('normalises text: lowercase, no accents, punctuation to single spaces', () => {
    expect(normalizePlaceText('  Av. Irarrázaval 2000,  ÑUÑOA!  ')).toBe('av irarrazaval 2000 nunoa');
    expect(normalizePlaceText('Peñalolén')).toBe('penalolen');
  });

  it('matches accent- and case-insensitively', async () => {
    for (const text of ['ÑUÑOA', 'nunoa', 'Ñuñoa', 'Av. Grecia 1000, NUÑOA']) expect(await label(text), text).toBe('Ñuñoa');
    for (const text of ['Peñalolén', 'penalolen', 'PEÑALOLEN', 'Penalolén']) expect(await label(text), text).toBe('Peñalolén');
    expect(await label('estacion central')).toBe('Estación Central');
    expect(await label('SAN JOSÉ DE MAIPO')).toBe('San José de Maipo');
  });

  it('matches whole words only', async () => {
    expect(await label('Maculito 123')).toBeNull();
    expect(await label('Renca')).toBe('Renca');
    expect(await label('Rencaval 5')).toBeNull();
    expect(await label('Maipú')).toBe('Maipú');
    expect(await label('Isla de Maipo')).toBe('Isla de Maipo');
  });

  it('"Santiago" is the comuna only when no other comuna is named', async () => {
    expect(await label('Av. Providencia 100, Santiago')).toBe('Santiago');
    expect(await label('Av. Apoquindo 3000, Las Condes, Santiago')).toBe('Las Condes');
    expect(await label('Santiago, Las Condes')).toBe('Las Condes');
    expect(await label('Moneda 1000, Santiago, Chile')).toBe('Santiago');
  });

  it('with several comunas named, the last one wins', async () => {
    expect(await label('Los Militares 5000, Las Condes, Vitacura')).toBe('Vitacura');
    expect(await label('Vitacura, Las Condes')).toBe('Las Condes');
  });

  it('a comuna name right after a street word is the street, used only when no comuna is named', async () => {
    expect(await label('Av. Las Condes 12000, Lo Barnechea')).toBe('Lo Barnechea');
    expect(await label('Avenida La Florida 9000, La Florida')).toBe('La Florida');
    expect(await label('Calle Independencia 500, Santiago')).toBe('Santiago');
    expect(await label('Pasaje Macul 12, Ñuñoa')).toBe('Ñuñoa');
    expect(await label('Av. Providencia 100')).toBe('Providencia');
  });

  it('knows the common aliases', async () => {
    expect(await label('Moneda 975, Santiago Centro')).toBe('Santiago');
    expect(await label('Stgo')).toBe('Santiago');
    expect(await label('Til Til')).toBe('Tiltil');
  });

  it('returns null for places it does not know', async () => {
    for (const text of ['Calle Inventada 123, Narnia', '24 Sussex Dr., Ottawa', 'Av. Brasil 100, Valparaíso', '', '   ', '12345']) {
      expect(await label(text), text).toBeNull();
    }
  });
  it('names the comuna of a point for the public: from what the geocoder matched, else the nearest comuna point', () => {
    const nunoa = { lat: -33.4607, lng: -70.5927 };
    // A Nominatim display text: only the comuna it names comes out, never its street or number.
    const display = '3000, Avenida Apoquindo, El Golf, Las Condes, Provincia de Santiago, Región Metropolitana de Santiago, 7550000, Chile';
    expect(gazetteer.localityOf({ point: nunoa, matched: display })).toBe('Las Condes');
    expect(gazetteer.localityOf({ point: nunoa, matched: 'Providencia' })).toBe('Providencia');
    // Coordinates only (or a text naming no comuna): the nearest comuna point.
    expect(gazetteer.localityOf({ point: { lat: nunoa.lat + 0.002, lng: nunoa.lng }, matched: 'coordinates' })).toBe('Ñuñoa');
    expect(gazetteer.localityOf({ point: nunoa, matched: 'Calle Inventada 123' })).toBe('Ñuñoa');
    expect(gazetteer.localityOf({ point: nunoa })).toBe('Ñuñoa');
    // Far from every comuna: nothing to name.
    expect(gazetteer.localityOf({ point: { lat: -36.8, lng: -73.05 } })).toBeNull();
  });
});
