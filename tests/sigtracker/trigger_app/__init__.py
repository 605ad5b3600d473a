"""A model added after the page cache's trigger migration, installed only by tests/sigtracker/trigger_settings.py."""
