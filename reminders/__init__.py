"""The reminders app: freeze reminder emails and SIGs' Slack digests, delivered once per recipient; after a crash
in one narrow window, at most one duplicate.

What is due at an instant T: for each freeze milestone that sends reminders, each SIG on the release's
board at T reminds at its offsets (`Sig.reminder_offsets`, else `SIGTRACKER_REMINDER_OFFSETS_HOURS`)
before the freeze, and at `SIGTRACKER_REMINDER_EXCEPTION_OFFSETS_HOURS` before the exception window after
it closes. A reminder is due when its instant (anchor minus offset, computed in UTC, so "1 day before" is
24 hours before whatever the clocks in California do) lies within the last `SIGTRACKER_REMINDER_GRACE_MINUTES`,
or earlier (up to `SIGTRACKER_REMINDER_CATCH_UP_HOURS`) if no run sent it and its freeze is still ahead.

Two kinds of email go out for each due reminder: a digest to each SIG mailing list, and a personal note to
each author, assignee or enhancements contact of a KEP not ready for that freeze. At a freeze's own reminders (anchor
`FREEZE`) the note also goes to the people of the SIGs' committed KEPs with a plan gap, until the PRR freeze
(`planning.selectors_reminders.plan_gap_owners`; such a SIG reminds even with no row on the board), and to the
owners of their open retro action items (`retros.selectors.open_action_items`), who need no KEP. Everything is read
"as of" T from the status history (action items: as they are), so replaying a past instant sends what would have
been sent then.

"Retro input is open" (`Anchor.RETRO_MIDPOINT`, `Anchor.RETRO_WEEK_BEFORE`) is a digest only, to the lists and
Slack channels of the release's SIGs (`due.retro_input_sig_ids`), at the instants of
`retros.selectors.retro_input_times`; its rows hang on the release-day milestone (`due.retro_input_milestone`) with
offset 0, so the unique constraint, leases, catch-up and refusals apply unchanged. Late, it is sent unless what
follows it has come (`DueReminder.until`: the next retro-input reminder, the retro meeting, the board's close); it
is never merged with a freeze's digest.

One email per address per instant: reminders due at the same instant for the same recipient (code and test
freeze fall together) are sent as one, by the delivery of the first (`due_order`); the others' rows are recorded
as skipped with a reason naming it (`merged_reason`), and the sender rebuilds the email from those rows, so a
retry says the same. Each email lists what each of its freezes requires (`rules.REQUIREMENTS`) and groups the
KEPs by what they still need.

Once per recipient, not "exactly once": every (milestone, anchor, offset, kind, recipient) gets one
`ReminderDelivery` row, created before anything is sent (the unique constraint decides between racing beats).
A sender takes a lease on the row (`claimed_at`, a compare-and-swap UPDATE), sends outside any transaction, and
marks it sent. A lease older than `SIGTRACKER_REMINDER_LEASE_SECONDS` belongs to a sender that died: the next
planning run hands the row out again. Exactly-once delivery cannot be had over SMTP: a sender killed
after the SMTP server's "250 OK" for the message but before the commit that marks the row sent (microseconds)
leaves a row that looks unsent, and it is sent again once its lease runs out. So a recipient gets at most one
duplicate, recognisable by its Message-ID (fixed per row), and only after a crash in that window; keep the
window as small as it is (nothing between the send and the commit that marks the row sent).

A delivery the server refuses for good (5xx) is `FAILED` with the server's answer, counted in the run's report,
and handed out again by a later run after a back-off, or by the admin's "Retry now" (`reminders.refusals`): back
to the waiting state by one compare-and-swap, then through the same lease and send, so a refusal is never lost
and, the refused message never having been accepted, never sent twice.

Slack is a second channel of the digest, not a second system: a SIG with a Slack incoming webhook (`SlackWebhook`,
`reminders.channels`) gets a digest delivery of its own, a `ReminderDelivery` row with kind digest and the
pseudo-recipient `<sig-slug>@slack.invalid` (`slack_recipient`; `.invalid` is reserved, RFC 2606, so it is never a
real address), so the unique constraint, the leases and the merging above apply unchanged, per channel. Its content
is the digest's context as Slack blocks (`render_digest_slack`); it is posted with slack-sdk
(`reminders.channels.webhook_post`): a 429 or 5xx still failing after the client's retries releases the lease like a
transient SMTP failure; a revoked webhook (404/410) turns that SIG's channel off and fails only that delivery. The
same window applies: a sender killed after Slack's "ok" but before the commit posts it again, and the copy is
recognisable by the `reminder-<id>` reference in its last line.

An approved exception request's own deadline is an anchor too (`Anchor.EXCEPTION_DEADLINE`): at the
exception offsets before it, the people of its KEP (`due.people_of`) get a personal note naming the KEP, the freeze,
the deadline and the thread, unless the KEP is done or out of play by then; no digest. Its delivery row hangs on
the release-wide milestone that closes the request's freeze (`rules.FREEZE_MILESTONE`), so the unique constraint
allows one note per person, freeze and offset: sent at the first such deadline, it lists every approved request
of theirs for that freeze whose deadline is still ahead (`due.exception_requests_due`). These notes are not merged
with other reminders falling at the same instant.

Where each part lives (lower modules import none above them): `due` (which reminders fall due at an instant, and
to whom a board row's reminders go), `planning` (who gets which email, merging the same instant), `leases` (the
delivery rows and their leases), `wording` and `content` (what an email says, shared by both channels),
`render_slack`, `retro_input` (what "retro input is open" says) and `render_email`, `channels` (Slack webhooks: the
URL at rest and SSRF-safe posting), `consent` (unsubscribes and people's preferences) and `unsubscribe` (the signed
one-click links), `refusals` (what a server refused, and its back-off), `delivery` (lease, send, record),
`services` (one run), and the thin `tasks` and `send_freeze_reminders` command on top.
"""
