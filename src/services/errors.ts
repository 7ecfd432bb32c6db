// The closed set of service errors. Each transport maps them once (REST: status + {error};
// bots: a short reply). Anything else is an internal failure.

export type ServiceErrorKind = 'validation' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'limit_exceeded';

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const validationError = (message: string) => new ServiceError('validation', message);
export const unauthorized = (message: string) => new ServiceError('unauthorized', message);
export const forbidden = (message: string) => new ServiceError('forbidden', message);
export const notFound = (message: string) => new ServiceError('not_found', message);
export const conflict = (message: string) => new ServiceError('conflict', message);
export const limitExceeded = (message: string) => new ServiceError('limit_exceeded', message);

export const isServiceError = (err: unknown): err is ServiceError => err instanceof ServiceError;
