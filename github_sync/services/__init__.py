"""Writes of the GitHub sync, one module per workflow: the label sync (`github_sync` with its `_base`, `_store` and
`_apply` parts) and the tracking board's sync (`board_sync`, reading through `board_read`, exceptions through
`board_exceptions`)."""
