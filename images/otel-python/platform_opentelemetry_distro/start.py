"""The platform's OpenTelemetry start-up, run before the app by platform-start/sitecustomize.py.

It does what `opentelemetry-instrument` and contrib's sitecustomize do (the distro, the
configurator, every instrumentor entry point with contrib's dependency check,
OTEL_PYTHON_DISABLED_INSTRUMENTATIONS, the pre/post-instrument groups), with less of it on
the container's start, where a 0.5-CPU FastAPI container spent 0.6 s before uvicorn listened:
  - no launcher process: the start line puts platform-start/ on PYTHONPATH itself, where the
    launcher started a Python, parsed its options and scanned entry points only to exec the app;
  - contrib's auto_instrumentation package is not imported: its __init__ is the launcher's
    command line (argparse, shutil);
  - an instrumentation of a library that the app has not imported yet is checked and loaded
    when the app imports it (a post-import hook): a library the app never imports costs
    nothing, e.g. requests, which is in /opt/otel for the exporter and so was always imported
    and instrumented at start. The library is patched before the importer sees it, as before.
"""
import logging
import os
import sys

_logger = logging.getLogger(__name__)

# Instrumentations (entry point names) that only patch one library, and that library's module,
# so that they can wait for its import: those the recipe installs (opentelemetry.ts) and the
# platform's FastAPI. Any other entry point (one the app installed) is loaded at start.
# contrib's httpx package has two entry points in one module (httpx, and httpx2 for the
# httpx client's own tracing hooks): both wait for httpx, else loading httpx2 at start imported
# httpx from inside that module and httpx's hook found the module half made (no client spans).
_DEFERRABLE = {
    "fastapi": "fastapi", "httpx": "httpx", "httpx2": "httpx", "requests": "requests",
    "psycopg": "psycopg", "psycopg2": "psycopg2", "asyncpg": "asyncpg", "sqlalchemy": "sqlalchemy",
}
# Entry points whose library was imported while their own module was still being imported (by
# another entry point loading at start): loaded once that load is done.
_pending = []


def initialize(start_dir):
    """Starts OpenTelemetry; on failure logs it and the app runs uninstrumented (as contrib does).

    start_dir (platform-start/) leaves PYTHONPATH while this runs, as contrib's does, so that
    a process started meanwhile does not start OpenTelemetry again in a loop; processes the app
    starts later are instrumented too."""
    path = os.environ.get("PYTHONPATH")
    if path is not None:
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in path.split(os.pathsep) if p != start_dir)
    try:
        _start()
    except Exception:  # pylint: disable=broad-except
        _logger.exception("Failed to auto initialize OpenTelemetry")
    finally:
        if path is not None:
            os.environ["PYTHONPATH"] = path


def _start():
    from opentelemetry.instrumentation.environment_variables import OTEL_PYTHON_CONFIGURATOR, OTEL_PYTHON_DISTRO
    from opentelemetry.instrumentation.version import __version__
    from opentelemetry.util._importlib_metadata import entry_points

    distro = _load_distro(entry_points(group="opentelemetry_distro"), os.environ.get(OTEL_PYTHON_DISTRO))
    distro.configure()
    _load_configurator(entry_points(group="opentelemetry_configurator"), os.environ.get(OTEL_PYTHON_CONFIGURATOR), __version__)
    for ep in entry_points(group="opentelemetry_pre_instrument"):
        ep.load()()
    _load_instrumentors(distro, entry_points(group="opentelemetry_instrumentor"))
    for ep in entry_points(group="opentelemetry_post_instrument"):
        ep.load()()


def _load_distro(eps, name):
    """The distro named by OTEL_PYTHON_DISTRO, else the first one; the default distro if none."""
    from opentelemetry.instrumentation.distro import BaseDistro, DefaultDistro

    for ep in eps:
        if name is None or name == ep.name:
            distro = ep.load()()
            if isinstance(distro, BaseDistro):
                return distro
            _logger.debug("%s is not an OpenTelemetry Distro. Skipping", ep.name)
    return DefaultDistro()


def _load_configurator(eps, name, version):
    """The configurator named by OTEL_PYTHON_CONFIGURATOR, else the first one: one at most."""
    configured = None
    for ep in eps:
        if configured is not None:
            _logger.warning("Configuration of %s not loaded, %s already loaded", ep.name, configured)
        elif name is None or name == ep.name:
            ep.load()().configure(auto_instrumentation_version=version)
            configured = ep.name
        else:
            _logger.warning("Configuration of %s not loaded because %s is set by OTEL_PYTHON_CONFIGURATOR", ep.name, name)


def _load_instrumentors(distro, eps):
    from opentelemetry.instrumentation.environment_variables import OTEL_PYTHON_DISABLED_INSTRUMENTATIONS

    excluded = [x.strip() for x in os.environ.get(OTEL_PYTHON_DISABLED_INSTRUMENTATIONS, "").split(",")]
    if "*" in excluded:
        return
    for ep in eps:
        library = _DEFERRABLE.get(ep.name)
        if ep.name in excluded:
            _logger.debug("Instrumentation skipped for library %s", ep.name)
        elif library is not None and library not in sys.modules:
            _when_imported(library, lambda _module, ep=ep: _at_import(distro, ep))
        else:
            _load_instrumentor(distro, ep, at_import=False)
        while _pending:
            _load_instrumentor(distro, _pending.pop(0), at_import=False)


def _at_import(distro, ep):
    module = sys.modules.get(ep.module)
    if getattr(getattr(module, "__spec__", None), "_initializing", False):
        _pending.append(ep)
    else:
        _load_instrumentor(distro, ep, at_import=True)


def _when_imported(name, hook):
    # wrapt is loaded already: every instrumentor's base class imports it.
    from wrapt import register_post_import_hook

    register_post_import_hook(hook, name)


def _load_instrumentor(distro, ep, at_import):
    """Contrib's steps for one entry point: its dependency check, then the distro loads it.

    At an import, a failure is logged and the library stays uninstrumented: raising would fail
    the app's import. At start it is raised, and nothing is instrumented (contrib's behaviour)."""
    from opentelemetry.instrumentation.dependencies import DependencyConflictError, get_dist_dependency_conflicts

    try:
        conflict = get_dist_dependency_conflicts(ep.dist)
        if conflict:
            conflict._log(_logger, ep.name)  # pylint: disable=protected-access
            return
        # The dependencies were just checked: the instrumentor need not check them again.
        distro.load_instrumentor(ep, skip_dep_check=True)
        _logger.debug("Instrumented %s", ep.name)
    except DependencyConflictError as exc:
        exc.conflict._log(_logger, ep.name)  # pylint: disable=protected-access
    except ModuleNotFoundError as exc:
        _logger.debug("Skipping instrumentation %s: %s", ep.name, exc.msg)
    except ImportError:
        _logger.exception("Importing of %s failed, skipping it", ep.name)
    except Exception:  # pylint: disable=broad-except
        _logger.exception("Instrumenting of %s failed", ep.name)
        if not at_import:
            raise
