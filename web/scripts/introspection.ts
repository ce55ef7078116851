import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { introspectionFromSchema } from 'graphql';
import { minifyIntrospection, outputIntrospectionFile } from 'gql.tada/internal';
import { buildSchema } from '../../schema/index.js';

/** The console's typed documents are checked against this file (gql.tada reads it as a type). */
export const INTROSPECTION_FILE = fileURLToPath(new URL('../shared/graphql-env.d.ts', import.meta.url));

const PREAMBLE = '/* Generated from the Pothos schema by `npm run web:introspect`: do not edit. */\n/* eslint-disable */\n';

/** The introspection type of the service's own schema, as gql.tada's generator writes it. */
export function introspectionFile(): string {
  const introspection = minifyIntrospection(introspectionFromSchema(buildSchema()));
  return outputIntrospectionFile(introspection, { fileType: '.d.ts', shouldPreprocess: true, preamble: PREAMBLE });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(INTROSPECTION_FILE, introspectionFile());
  console.log(`wrote ${INTROSPECTION_FILE}`);
}
