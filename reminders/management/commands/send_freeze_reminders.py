"""`manage.py send_freeze_reminders [--dry-run] [--now ISO]`: send the freeze reminders due at an instant.

Synchronous, through the configured email backend, with the same delivery records as the beat task: once per
recipient, so running it twice (or beside beat) sends nothing twice. Not exactly once, which SMTP cannot promise:
a crash between the SMTP server's acceptance of a message and the commit that records it sends that message
again (at most one duplicate, recognisable by its Message-ID). `--now` replays a past instant as it was then
(the board as its status history stood), e.g. against a test SMTP server.
"""

import datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from reminders.services import freeze_reminders_send
from reminders.wording import describe_due


class Command(BaseCommand):
    help = (
        "Send the freeze reminder emails due now (or at --now), once per recipient (at most one duplicate, "
        "after a crash between the mail server's acceptance and the record of it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Print what would be sent; record and send nothing.")
        parser.add_argument(
            "--now",
            metavar="ISO-DATETIME",
            help="Behave as at this instant, e.g. 2022-11-07T18:00:00-08:00 (no offset: UTC). Default: now.",
        )

    def handle(self, *args, dry_run, now, verbosity, **options):
        instant = timezone.now()
        if now:
            instant = parse_datetime(now)
            if instant is None:
                raise CommandError(f"--now: not an ISO date-time: {now!r}")
            if timezone.is_naive(instant):
                instant = timezone.make_aware(instant, datetime.UTC)
        report = freeze_reminders_send(now=instant, dry_run=dry_run)
        verb = "would send" if dry_run else "planned"
        if verbosity >= 1:
            at = f"{instant.astimezone(datetime.UTC):%Y-%m-%d %H:%M} UTC"
            emails = len(report.planned) - report.merged
            merged = f" ({report.merged} more reminder(s) go in the same emails)" if report.merged else ""
            self.stdout.write(f"At {at}: {verb} {emails} reminder email(s){merged}.")
        if verbosity >= 2 or (dry_run and verbosity >= 1):
            for item in report.planned:
                state = f"skip ({item.skip_reason})" if item.skip_reason else "send"
                keps = f" KEPs {', '.join(map(str, item.keps))}" if item.keps else ""
                covers = "".join(f" + {describe_due(due)}" for due in item.merged)
                self.stdout.write(
                    f"  {state}: {item.kind} to {item.recipient} — {describe_due(item.due)}{covers}{keps}"
                )
        if verbosity >= 1:
            owners = report.owners_without_address
            if owners:
                self.stdout.write(
                    f"{len(owners)} owner(s) of KEPs not ready have no email address: "
                    + ", ".join(f"@{handle}" for handle in owners)
                )
            missing = report.digests_without_list
            if missing:
                sigs = sorted({slug for slug, _at in missing})
                self.stdout.write(
                    f"{len(missing)} digest(s) {'would go' if dry_run else 'went'} unsent: no mailing list for "
                    + ", ".join(sigs)
                )
        if not dry_run and verbosity >= 1:
            self.stdout.write(
                f"Sent {report.sent}, skipped {report.skipped}, already handled elsewhere {report.elsewhere}, "
                f"failed {len(report.failed)}, retried after a refusal {report.retried}, "
                f"refused and waiting to be retried {len(report.refused_waiting)}."
            )
        for waiting in report.refused_waiting:
            self.stderr.write(f"refused, will retry: {waiting}")
        for failure in report.failed:
            self.stderr.write(f"failed: {failure}")
        if report.failed:
            raise CommandError(
                f"{len(report.failed)} deliveries failed; those that failed for a transient reason are retried by the "
                "next run within the grace period, those the server refused by a run after their back-off (or the "
                "admin's Retry now)"
            )
