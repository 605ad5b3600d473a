"""Site-level periodic tasks."""

from celery import shared_task

from .health import beat_heartbeat_record


@shared_task(ignore_result=True, soft_time_limit=10, time_limit=20)
def beat_heartbeat():
    """Beat's proof of life, read by /healthz. Running twice, or late, is harmless: it records when it ran."""
    beat_heartbeat_record()
