"""The OpenTelemetry distro of the platform (OTEL_PYTHON_DISTRO=platform).

OpenTelemetry's own distro, with FastAPI served by the platform's lean server instrumentation
(platform_opentelemetry_distro.fastapi) instead of contrib's FastAPI/ASGI middleware, span
batches encoded for the OTLP/HTTP exporter by platform_opentelemetry_distro.otlp, and the
exporters' HTTP transport made at their first export (platform_opentelemetry_distro.transport).
Started by platform_opentelemetry_distro.start.
"""
import logging
from importlib import import_module

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
        # Where one cannot be installed, the exporter keeps its own way.
        for name in ("otlp", "transport"):
            try:
                import_module(f"{__name__}.{name}").install()
            except Exception:  # pylint: disable=broad-except
                _logger.debug("%s.%s is not installed", __name__, name, exc_info=True)
