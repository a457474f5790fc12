/**
 * Every error a client can see. Services throw these; the `onError` of `server/http/kernel.ts` turns them
 * (and everything else) into one JSON shape, `{code, message, errors?}` (docs/api.md#error-codes).
 */
export type FieldErrors = Record<string, string[]>;

/**
 * The stable, machine-readable `code` of an error body, by status (docs/api.md "Error codes").
 * A program branches on it; the message is for people and may be reworded.
 */
export const ERROR_CODES = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "rate_limited",
  500: "server_error",
  503: "service_unavailable",
} as const satisfies Record<number, string>;
/** An unknown path: not an unknown id (404 `not_found`), a client that builds URLs wrongly. */
export const ROUTE_NOT_FOUND = "route_not_found";
/** 410: the events feed no longer holds the events after the `after` asked for (docs/events.md#when-events-are-gone). */
export const EVENTS_EXPIRED = "events_expired";
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES] | typeof ROUTE_NOT_FOUND | typeof EVENTS_EXPIRED;

export class ApiError extends Error {
  readonly code: ErrorCode;
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
    code?: ErrorCode,
  ) {
    super(message);
    this.code = code ?? ERROR_CODES[status as keyof typeof ERROR_CODES] ?? (status >= 500 ? "server_error" : "bad_request");
  }
  toJSON() {
    return this.errors ? { code: this.code, message: this.message, errors: this.errors } : { code: this.code, message: this.message };
  }
}

export class BadRequest extends ApiError {
  constructor(message: string) {
    super(400, message);
  }
}
/**
 * 401 with `WWW-Authenticate: Bearer` (RFC 6750 section 3): `error="invalid_token"` when a
 * token was sent but is unknown, revoked or expired; without a token, no error attribute.
 */
export class Unauthenticated extends ApiError {
  constructor(tokenSent = false) {
    super(401, "Unauthenticated.", undefined, {
      "WWW-Authenticate": tokenSent ? 'Bearer realm="kontor", error="invalid_token"' : 'Bearer realm="kontor"',
    });
  }
}
export class Forbidden extends ApiError {
  constructor(message: string) {
    super(403, message);
  }
}
export class NotFound extends ApiError {
  constructor() {
    super(404, "Not found.");
  }
}
/** No route has this path (a wrong method on a known path is a 405). */
export class RouteNotFound extends ApiError {
  constructor() {
    super(404, "No such route: see /docs for the API's paths.", undefined, undefined, ROUTE_NOT_FOUND);
  }
}
/** 410 `events_expired`: events after the position asked for were pruned; the message says how to resync. */
export class EventsExpired extends ApiError {
  constructor(message: string) {
    super(410, message, undefined, undefined, EVENTS_EXPIRED);
  }
}
export class MethodNotAllowed extends ApiError {
  constructor(allowed: string[]) {
    super(405, "Method not allowed.", undefined, { Allow: allowed.join(", ") });
  }
}
export class Conflict extends ApiError {
  constructor(message: string) {
    super(409, message);
  }
}
/** 409: the external id is another resource's of the organisation; the body names that one (`holder_id`). */
export class ExternalIdTaken extends Conflict {
  constructor(
    resource: string,
    externalId: string,
    readonly holderId: string,
  ) {
    super(`The external id ${JSON.stringify(externalId)} is taken by the ${resource} ${holderId}.`);
  }
  override toJSON() {
    return { ...super.toJSON(), holder_id: this.holderId };
  }
}
export class PayloadTooLarge extends ApiError {
  constructor(limit: number) {
    super(413, `The request body must not be larger than ${limit} bytes.`);
  }
}
export class UnsupportedMediaType extends ApiError {
  constructor(message = "The request body must be JSON (Content-Type: application/json).") {
    super(415, message);
  }
}
export class TooManyRequests extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(429, "Too many requests.", undefined, { "Retry-After": String(retryAfterSeconds) });
  }
}

/** 503 with `Retry-After`: the server cannot take this now (every import slot is busy), but will soon. */
export class ServiceUnavailable extends ApiError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, message, undefined, { "Retry-After": String(retryAfterSeconds) });
  }
}

/** 422 with Laravel-style `errors`; the message is the first error, like Laravel's. */
export class ValidationFailed extends ApiError {
  constructor(errors: FieldErrors) {
    const messages = Object.values(errors).flat();
    const extra = messages.length - 1;
    const message =
      extra > 0 ? `${messages[0]} (and ${extra} more error${extra === 1 ? "" : "s"})` : (messages[0] ?? "The given data was invalid.");
    super(422, message, errors);
  }

  static field(field: string, message: string): ValidationFailed {
    return new ValidationFailed({ [field]: [message] });
  }
}

/** Collects field errors across a service's checks, then throws them together. */
export class FieldErrorBag {
  readonly errors: FieldErrors = {};
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw new ValidationFailed(this.errors);
  }
}

/** "Valid values: a, b." — what an enumeration (a sort, a status filter) takes, for its 422. */
export const validValues = (values: unknown[]): string => `Valid values: ${values.map(String).join(", ")}.`;
