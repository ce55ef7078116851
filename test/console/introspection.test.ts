import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INTROSPECTION_FILE, introspectionFile } from '../../web/scripts/introspection.js';

describe('console typed documents', () => {
  it('are checked against the current schema: web/shared/graphql-env.d.ts is what `npm run web:introspect` writes now', () => {
    const committed = readFileSync(INTROSPECTION_FILE, 'utf8');
    // A schema change without a regenerated file would let the console type-check against a stale API.
    expect(committed === introspectionFile(), 'web/shared/graphql-env.d.ts is stale: run `npm run web:introspect`').toBe(true);
    expect(committed).toContain('orderEvents');
  });
});
