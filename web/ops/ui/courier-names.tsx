import { operatorRequest } from '../../shared/api/http.js';
import { graphql } from '../../shared/graphql.js';
import { useLoad } from '../../shared/ui/hooks.js';

const NAMES = graphql(`query OpsCourierNames($ids: [ID!]!) { adminCourierNames(ids: $ids) { id name } }`);

/** The API names at most this many ids a request. */
const MAX_IDS = 100;

/** Couriers' names for the ids a page shows (one request per distinct set); an id not yet named is absent. */
export function useCourierNames(ids: Array<string | null | undefined>): Map<string, string> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))].sort().slice(0, MAX_IDS);
  const names = useLoad(async () => (wanted.length ? (await operatorRequest(NAMES, { ids: wanted })).adminCourierNames : []), [wanted.join(',')]);
  return new Map(names.data?.map((c) => [c.id, c.name]));
}

/** A courier by name, its id beneath in small type (what the API and the audit log speak). */
export function CourierName({ id, names }: { id: string; names: Map<string, string> }) {
  const name = names.get(id);
  return name ? <>{name}<br /><small><code>{id}</code></small></> : <code>{id}</code>;
}
