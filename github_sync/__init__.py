"""The GitHub sync: sigtracker's reads of GitHub (the REST and GraphQL clients, `github_sync.github`), the rules of
its answers (`github_sync.rules`), and the label and board syncs that write them into the releases' tracking
(`github_sync.services`), run by `sync_github` and beat's `github_sync.tasks.sync_github_current_release`."""
