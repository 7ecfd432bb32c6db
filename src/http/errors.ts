import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isServiceError, type ServiceErrorKind } from '../services/errors.js';

const STATUS_OF: Record<ServiceErrorKind, number> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  limit_exceeded: 403,
  not_found: 404,
  conflict: 409,
};

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  message?: string;
}

/** Maps every error to `{error}`: service errors and body-parser errors by kind, the rest as 500. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  if (isServiceError(err)) {
    res.status(STATUS_OF[err.kind]).json({ error: err.message });
    return;
  }
  const parserError = err as BodyParserError;
  if (parserError.type === 'entity.too.large') {
    res.status(413).json({ error: `Request body too large: at most ${parserError.limit} bytes` });
    return;
  }
  if (parserError.type === 'entity.parse.failed') {
    res.status(400).json({ error: 'Malformed JSON in request body' });
    return;
  }
  if (typeof parserError.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    res.status(parserError.status).json({ error: parserError.message ?? 'Bad request' });
    return;
  }
  req.log.error({ err }, 'request failed');
  res.status(500).json({ error: `Internal server error (request id ${String(req.id)})` });
};

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: `No route for ${req.method} ${req.path}; see /docs for the API` });
};
