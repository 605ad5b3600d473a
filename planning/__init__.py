"""Release planning per SIG: candidates for a release (from kep.yaml, slips, perma-betas and proposals), the
leads' decisions on them (append-only history), approver and reviewer load against capacity, and the plan
against what happened (planned at the enhancements freeze, committed, tracked, shipped).

Sits above `releases` and `keps` (it reads their selectors and rules) and below `reminders`, `api` and `people`.
"""
