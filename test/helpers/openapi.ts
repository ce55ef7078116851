/**
 * Comparing what the REST app serves with what its OpenAPI document says: the routes Express
 * really registers, the operations the document lists, and response bodies against their schemas.
 */
import type { Express } from 'express';
import { expect } from 'vitest';
import { z } from 'zod';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
  rawPath?: unknown;
}

/** Every `METHOD /path` the Express app routes, found by walking its router stack. */
export function expressRoutes(app: Express): string[] {
  return routesOf((app.router as unknown as { stack: RouterLayer[] }).stack);
}

function routesOf(stack: RouterLayer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      if (typeof layer.route.path !== 'string') throw new Error(`route path ${String(layer.route.path)} is not a string`);
      const path = prefix + layer.route.path;
      return Object.keys(layer.route.methods)
        .filter((m) => m !== '_all')
        .map((m) => `${m.toUpperCase()} ${path}`);
    }
    if (layer.handle.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      return routesOf(layer.handle.stack, prefix + mount);
    }
    return [];
  });
}

/** `METHOD key` for every operation of an OpenAPI `paths` (or `webhooks`) object. */
export function documentedOperations(items: Record<string, object> | undefined): string[] {
  return Object.entries(items ?? {}).flatMap(([key, item]) =>
    HTTP_METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => `${m.toUpperCase()} ${key}`),
  );
}

/** Keys present in a response that its wire schema does not describe (zod strips them silently). */
function undocumentedKeys(schema: z.ZodType, value: unknown, at = '$'): string[] {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  if (s instanceof z.ZodObject && value && typeof value === 'object') {
    const shape = s.shape as Record<string, z.ZodType>;
    return Object.entries(value).flatMap(([k, v]) => (shape[k] ? undocumentedKeys(shape[k], v, `${at}.${k}`) : [`${at}.${k}`]));
  }
  if (s instanceof z.ZodArray && Array.isArray(value)) {
    return value.flatMap((v, i) => undocumentedKeys(s.element as z.ZodType, v, `${at}[${i}]`));
  }
  return [];
}

/** The body is exactly what the OpenAPI document says (no missing, wrong or undocumented field). */
export function expectWireShape(schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(undocumentedKeys(schema, body)).toEqual([]);
}
