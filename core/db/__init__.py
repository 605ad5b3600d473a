"""The SQL the two supported databases say differently, one module per need: advisory locks (`locks`), the
page cache's statement triggers and counters (`triggers`), bulk upserts (`upsert`), COPY inserts (`bulk_insert`),
full-text search (`text_search`). Each module holds the PostgreSQL and the SQLite way side by side and picks by the
connection's vendor, so no caller branches on it; tests/core/test_db_dialects.py runs each on the database it is
for."""
