/**
 * The one error body (`error`, `error_description`, `request_id`) and the errors handlers throw.
 * An ApiError carries its HTTP status and the code; anything else thrown is a 500 whose description
 * says nothing about the cause (it is logged with the request id instead).
 */
export type ErrorCode =
  | 'invalid_request'
  | 'access_denied'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'request_entity_too_large'
  | 'unsupported_media_type'
  | 'unprocessable_content'
  | 'server_error'
  | 'not_implemented';

export interface ErrorBody {
  error: ErrorCode;
  error_description: string;
  request_id: string;
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: ErrorCode, description: string) {
    super(description);
  }
}

export const badRequest = (d: string) => new ApiError(400, 'invalid_request', d);
export const unauthorized = (d: string) => new ApiError(401, 'access_denied', d);
export const forbidden = (d: string) => new ApiError(403, 'forbidden', d);
export const notFound = (d: string) => new ApiError(404, 'not_found', d);
export const conflict = (d: string) => new ApiError(409, 'conflict', d);
export const unprocessable = (d: string) => new ApiError(422, 'unprocessable_content', d);
export const notImplemented = (d: string) => new ApiError(501, 'not_implemented', d);
