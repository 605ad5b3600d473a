"""Site-level periodic tasks."""

from celery import shared_task

from .health import beat_heartbeat_record


@shared_task(ignore_result=True)
def beat_heartbeat():
    """Beat's proof of life, read by /healthz. Running twice, or late, is harmless: it records when it ran."""
    beat_heartbeat_record()
