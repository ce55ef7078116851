import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.js';

/** Documents typed against the service's own schema (web/shared/graphql-env.d.ts, generated). */
export const graphql = initGraphQLTada<{ introspection: introspection; scalars: { DateTime: string; ID: string } }>();
export type { ResultOf, VariablesOf, TadaDocumentNode } from 'gql.tada';
