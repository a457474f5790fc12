/**
 * Every error a client can see. Services throw these; the `onError` of `server/http/kernel.ts` turns them
 * (and everything else) into the contract's JSON in one `onError`.
 */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
  toJSON() {
    return this.errors ? { message: this.message, errors: this.errors } : { message: this.message };
  }
}

export class BadRequest extends ApiError {
  constructor(message: string) {
    super(400, message);
  }
}
export class Unauthenticated extends ApiError {
  constructor() {
    super(401, "Unauthenticated.");
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

/** "postal_code" → "postal code", as Laravel names attributes in messages. */
export function attributeName(field: string): string {
  return field.replace(/_/g, " ");
}
