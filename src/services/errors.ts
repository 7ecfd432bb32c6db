// The closed set of service errors. Each transport maps them once (REST: status + {error};
// bots: a short reply). Anything else is an internal failure.

export type ServiceErrorKind = 'validation' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'limit_exceeded';

/** One problem with an input, in data: the chat words are built from it, REST keeps the message. */
export interface ValidationIssue {
  /** Where the bad value sits in the input, e.g. `['subscriptionTypeConfig', 'config', 'params', 'threshold_percent']`. */
  path: readonly PropertyKey[];
  /** zod's code (`too_big`, `too_small`, `invalid_type`, …) or a rule's own (`step_too_big`). */
  code: string;
  /** The limit the value broke, when the rule has one; `inclusive` says whether the bound itself was allowed. */
  bound?: number;
  inclusive?: boolean;
  /** The value as given, when it is a plain string, number or boolean. */
  input?: string | number | boolean;
  message: string;
}

/** What a not-found or a limit is about, so a transport can name it in its own words. */
export type ErrorSubject =
  | 'account'
  | 'channel'
  | 'event'
  | 'market'
  | 'notification'
  | 'query term'
  | 'subscription'
  | 'token'
  | 'watchlist'
  | 'watchlist event';

export interface ServiceErrorDetail {
  issues?: readonly ValidationIssue[];
  subject?: ErrorSubject;
  /** The configured maximum a limit_exceeded error hit. */
  limit?: number;
}

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly detail: ServiceErrorDetail = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const validationError = (message: string, issues?: readonly ValidationIssue[]) =>
  new ServiceError('validation', message, issues ? { issues } : {});
export const unauthorized = (message: string) => new ServiceError('unauthorized', message);
export const forbidden = (message: string) => new ServiceError('forbidden', message);
export const notFound = (message: string, subject?: ErrorSubject) => new ServiceError('not_found', message, { subject });
export const conflict = (message: string, subject?: ErrorSubject) => new ServiceError('conflict', message, { subject });
export const limitExceeded = (message: string, subject?: ErrorSubject, limit?: number) =>
  new ServiceError('limit_exceeded', message, { subject, limit });

export const isServiceError = (err: unknown): err is ServiceError => err instanceof ServiceError;
