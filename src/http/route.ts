import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { ServiceContext } from '../services/context.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  req: Request;
  /** The app's clock (tests move it), for answers that depend on time such as a session's expiry. */
  now: Date;
}

interface Common {
  method: Method;
  /** OpenAPI form: `/watchlists/{watchlistId}`. */
  path: string;
  summary: string;
  tag: string;
  /** The service's own input schema: it validates, and the OpenAPI document shows it. */
  body?: z.ZodType;
  query?: z.ZodObject;
  status?: 200 | 201;
  response: z.ZodType;
  errors?: number[];
  /** The answer carries an ETag; a request whose If-None-Match names it is answered 304, no body. */
  etag?: true;
}

export type RouteDef =
  | (Common & { auth: 'bearer'; handler(ctx: ServiceContext, r: RouteRequest): Promise<unknown> })
  | (Common & { auth: 'public'; handler(ctx: Omit<ServiceContext, 'account' | 'apiTokenId'>, r: RouteRequest): Promise<unknown> });

/** A handler's non-JSON answer (e.g. the chart SVG): sent as is with its content type. */
export class RawBody {
  constructor(
    readonly contentType: string,
    readonly body: string | Buffer,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const defineRoutes = (routes: RouteDef[]) => routes;

export const expressPath = (openapiPath: string) => openapiPath.replace(/\{(\w+)\}/g, ':$1');
export const pathParams = (openapiPath: string) => [...openapiPath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/**
 * A long-lived Bearer GET answered by a handler of its own (Server-Sent Events). Its handler holds
 * the open connections, so the app builds it (see createApp) rather than declaring it statically.
 */
export interface StreamRoute {
  method: 'get';
  path: string;
  summary: string;
  tag: string;
  auth: 'bearer';
  /** What each event carries, for the OpenAPI document. */
  events: string;
  /** Request headers the stream reads (for example Last-Event-ID). */
  headers?: z.ZodObject;
  errors?: number[];
  stream(ctx: ServiceContext, req: Request, res: Response): Promise<void>;
}

/** One entry of the route table: a JSON route or a stream. */
export type Route = RouteDef | StreamRoute;

export const isStream = (route: Route): route is StreamRoute => 'stream' in route;
