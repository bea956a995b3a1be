"""Typed errors, mapped to HTTP in one place (serve/api/errors.py).

* ServeError                       500 server_error
  + InvalidRequest                 400 invalid_request_error   (carries the offending `param`)
    - ContextLengthExceeded        400
  + NotFound                       404 not_found
  + PayloadTooLarge                413 invalid_request_error
  + Overloaded                     429 overloaded             (carries retry_after seconds)
  + BackendError                   500 backend_error
    - BackendUnavailable           503 backend_unavailable
    - GenerationFailed             500 generation_failed
    - DeadlineExceeded             504 timeout                (the deadline passed before the stream started)
"""

from __future__ import annotations


class ServeError(Exception):
    status_code = 500
    error_type = "server_error"

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class InvalidRequest(ServeError):
    status_code = 400
    error_type = "invalid_request_error"


class ContextLengthExceeded(InvalidRequest):
    pass


class NotFound(ServeError):
    status_code = 404
    error_type = "not_found"


class PayloadTooLarge(ServeError):
    status_code = 413
    error_type = "invalid_request_error"


class Overloaded(ServeError):
    status_code = 429
    error_type = "overloaded"

    def __init__(self, message: str, *, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BackendError(ServeError):
    status_code = 500
    error_type = "backend_error"


class BackendUnavailable(BackendError):
    status_code = 503
    error_type = "backend_unavailable"


class GenerationFailed(BackendError):
    error_type = "generation_failed"


class DeadlineExceeded(BackendError):
    status_code = 504
    error_type = "timeout"
