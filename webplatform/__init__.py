"""Remat Arena's Django project (named webplatform: a top-level ``platform`` package would shadow
the standard library module that JAX, pytest and Celery import)."""

from .celery import app as celery_app

__all__ = ("celery_app",)
