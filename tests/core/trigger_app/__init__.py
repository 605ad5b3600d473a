"""A model added after the page cache's trigger migration, installed only by tests/core/trigger_settings.py."""
