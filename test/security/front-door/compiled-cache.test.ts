import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const DOCUMENTS = Number(process.env.ABUSE_DOCUMENTS ?? 10_000);
/** Heap the server may keep after 10,000 distinct documents: Yoga's parse/validate caches (1,024 entries) and noise. */
const HEAP_BOUND_MB = 64;

/** What each alias selects: a large introspection tree that graphql-jit compiles to about 240 kB of heap per alias. */
const SELECTION =
  'name kind description fields { name description isDeprecated args { name description defaultValue type { name kind ofType { name kind ofType { name kind } } } } type { name kind ofType { name kind ofType { name kind } } } } inputFields { name type { name kind } } enumValues { name description }';
/**
 * Six aliases of `__type` on a type that does not exist: the answer is a few nulls,
 * cheap to run, while its compiled code would be large (the shape of the reported attack).
 */
const documentNumber = (n: number) => `query Q${n} { ${Array.from({ length: 6 }, (_, i) => `a${i}: __type(name: "T${n}_${i}") { ${SELECTION} }`).join(' ')} }`;

async function send(url: string, query: string, key?: string): Promise<number> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify({ query }),
  });
  await res.arrayBuffer();
  return res.status;
}

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/**
 * Compiled queries cannot be abused: anonymous callers' documents are never compiled, so 10,000
 * distinct documents, each sent twice (the second run is when a document would be compiled),
 * leave the heap where it was. Before the front door each compiled document held its code for good.
 */
describe('abuse: 10,000 distinct anonymous documents leave the heap flat', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '1000000000' } });
  });
  afterAll(() => t.stop());

  it(`heap grows less than ${HEAP_BOUND_MB} MB`, { timeout: 240_000 }, async () => {
    // Warm-up: code paths, caches and pools reach their working size first.
    for (let n = 0; n < 300; n++) await send(t.url, documentNumber(-n - 1));
    const before = heapMb();
    let next = 0;
    const worker = async () => {
      while (next < DOCUMENTS) {
        const query = documentNumber(next++);
        expect(await send(t.url, query)).toBe(200);
        expect(await send(t.url, query)).toBe(200);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const grown = heapMb() - before;
    console.log(`heap after ${DOCUMENTS} distinct anonymous documents (each twice): +${grown.toFixed(1)} MB`);
    expect(grown).toBeLessThan(HEAP_BOUND_MB);
  });
});
