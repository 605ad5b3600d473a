"""The Celery tasks, run eagerly as they are without CELERY_BROKER_URL (the demo, and these tests)."""

import pytest
from django.conf import settings

from releases import tasks
from releases.choices import EnhancementStatus as S
from releases.models import ReleaseStats
from sigtracker.celery import app
from tests.factories import ReleaseFactory, TrackedEnhancementFactory
from tests.reminder_board import FREEZE, HOUR

WEEK_BEFORE = FREEZE - 168 * HOUR


def test_beat_schedule_names_registered_tasks():
    app.loader.import_default_modules()
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in app.tasks
    assert {"releases.tasks.compute_release_stats", "reminders.tasks.deliver_reminders"} <= set(app.tasks)


def test_without_a_broker_tasks_run_eagerly():
    assert settings.CELERY_BROKER_URL == ""
    assert app.conf.task_always_eager is True


def test_tasks_are_acks_late():
    for task in (
        tasks.compute_release_stats,
        tasks.compute_all_release_stats,
    ):
        assert task.acks_late is True


@pytest.mark.django_db
def test_compute_tasks():
    one, two = ReleaseFactory(), ReleaseFactory()
    TrackedEnhancementFactory(release=one, status=S.DONE)
    assert tasks.compute_release_stats.delay(one.pk).get() == 2
    assert set(ReleaseStats.objects.values_list("release_id", flat=True)) == {one.pk}
    tasks.compute_all_release_stats.delay().get()
    assert set(ReleaseStats.objects.values_list("release_id", flat=True)) == {one.pk, two.pk}
