"""Web UI stage: ``create_app`` builds the Starlette app `paperbrief serve` runs."""

from paperbrief.web.app import create_app

__all__ = ["create_app"]
