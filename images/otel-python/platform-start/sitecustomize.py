"""Starts OpenTelemetry before the app: this directory is first on PYTHONPATH (the platform's
start line, or the image's PYTHONPATH for a platform.yml start), and Python imports
sitecustomize at start-up. The distro is at the end of sys.path (/opt/otel, by a .pth file).
"""
import os

from platform_opentelemetry_distro.start import initialize

initialize(os.path.dirname(os.path.abspath(__file__)))
