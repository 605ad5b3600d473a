"""`make bench`: named figures measured side by side with their floors; see bench/__main__.py."""
