"""Fixtures of the reminders tests: a real SMTP server on loopback and Celery worker subprocesses
(tests/live_services.py)."""

from tests.live_services import celery_worker, smtp_mailbox, smtp_server  # noqa: F401 - fixtures
