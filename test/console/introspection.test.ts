import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INTROSPECTION_FILE, introspectionFile } from '../../console/scripts/introspection.js';

describe('console typed documents', () => {
  it('are checked against the current schema: console/src/graphql-env.d.ts is what `npm run console:introspect` writes now', () => {
    const committed = readFileSync(INTROSPECTION_FILE, 'utf8');
    // A schema change without a regenerated file would let the console type-check against a stale API.
    expect(committed === introspectionFile(), 'console/src/graphql-env.d.ts is stale: run `npm run console:introspect`').toBe(true);
    expect(committed).toContain('orderEvents');
  });
});
