"""The OpenTelemetry distro of the platform (OTEL_PYTHON_DISTRO=platform).

OpenTelemetry's own distro, with FastAPI served by the platform's lean server instrumentation
(platform_opentelemetry_distro.fastapi) instead of contrib's FastAPI/ASGI middleware, and span
batches encoded for the OTLP/HTTP exporter by platform_opentelemetry_distro.otlp.
"""
import logging

from opentelemetry.distro import OpenTelemetryDistro

_logger = logging.getLogger(__name__)
# Entry points whose work the platform's instrumentor does: an app that installs contrib's own
# FastAPI instrumentation would otherwise get two server spans per request.
_REPLACED = {"fastapi", "asgi", "starlette"}


class PlatformDistro(OpenTelemetryDistro):
    def load_instrumentor(self, entry_point, **kwargs):
        if entry_point.name in _REPLACED and not entry_point.value.startswith(__name__):
            return
        super().load_instrumentor(entry_point, **kwargs)

    def _configure(self, **kwargs):
        super()._configure(**kwargs)
        try:
            from platform_opentelemetry_distro import otlp

            otlp.install()
        except Exception:  # pylint: disable=broad-except  (the exporter's own encoder stays)
            _logger.debug("the platform's span encoder is not installed", exc_info=True)
