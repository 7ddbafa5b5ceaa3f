"""The OTLP/HTTP exporters' transport, made at their first request instead of at start.

Each exporter makes its requests transport (a requests.Session) when the SDK starts, so
`requests` and what it imports (urllib3, charset_normalizer, idna, http.cookiejar) were on
every start's path, in a process that may never import them itself. The first export happens
seconds later, in the exporter's own thread: the same transport is made there.
"""
from opentelemetry.exporter.http.transport._base import BaseHTTPTransport


class DeferredTransport(BaseHTTPTransport):
    """A RequestsHTTPTransport made with the same arguments when first needed."""

    def __init__(self, make, **kwargs):
        self._make = make
        self._kwargs = kwargs
        self._transport = None

    def _get(self):
        if self._transport is None:
            self._transport = self._make(**self._kwargs)
        return self._transport

    def request(self, method, url, **kwargs):
        return self._get().request(method, url, **kwargs)

    def is_connection_error(self, exception):
        return self._get().is_connection_error(exception)

    def close(self):
        # Nothing to release (and nothing to import) if it never made a request.
        if self._transport is not None:
            self._transport.close()


def install():
    """The exporters build a DeferredTransport (False where they have no such seam)."""
    from opentelemetry.exporter.otlp.proto.http import _common

    make = getattr(_common, "RequestsHTTPTransport", None)
    if make is None or not callable(getattr(_common, "_build_transport", None)):
        return False
    _common.RequestsHTTPTransport = lambda **kwargs: DeferredTransport(make, **kwargs)
    return True
