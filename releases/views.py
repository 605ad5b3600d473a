"""Public read-only pages."""
