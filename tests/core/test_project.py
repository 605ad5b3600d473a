from io import StringIO

import pytest
from django.core.management import call_command


def test_system_checks_pass():
    call_command("check", fail_level="WARNING", stdout=StringIO())


@pytest.mark.django_db
def test_migrations_are_committed():
    call_command("makemigrations", "--check", "--dry-run", stdout=StringIO())


@pytest.mark.django_db
def test_unknown_pages_get_the_site_404(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"Not found" in response.content and b"/releases/1.24/" in response.content
