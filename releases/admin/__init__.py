"""The releases domain's admin, one module per area; importing them registers each admin (Django autodiscovers
`releases.admin`)."""

from . import (  # noqa: F401  (imported for their registrations)
    exception_requests,
    people,
    release,
    release_imports,
    status_history,
    tracked_enhancements,
)
