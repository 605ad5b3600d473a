"""Site-level views."""

from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from .health import broker_health, database_health


@never_cache
def healthz(request):
    """200 when the database and the broker answer; 503 naming the one that does not."""
    db_ok, db_state = database_health()
    broker_ok, broker_state = broker_health()
    body = {"database": db_state, "broker": broker_state}
    down = [name for name, ok in (("database", db_ok), ("broker", broker_ok)) if not ok]
    body["status"] = "ok" if not down else f"unavailable: {', '.join(down)}"
    return JsonResponse(body, status=200 if not down else 503)
