"""SIGs and the people of the Kubernetes community, as kubernetes/community's sigs.yaml describes them.

The tables keep the names they had when these models lived in `keps` (`keps_sig`, `keps_person`, ...): the
move changed where the code lives, not the data (see community/migrations/0001_initial.py).
"""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from core.managers import NaturalKeyManager

from .choices import MeetingFrequency, SigKind, SigLeaderRole, SigRole, Weekday


class SigManager(NaturalKeyManager):
    def listed(self):
        """The SIGs to offer in SIG filters: those of kubernetes/community's sigs.yaml once it has been imported
        (not kep.yaml spellings such as `sig-machinery`); every SIG before that, so a database without it works."""
        community = self.get_queryset().filter(in_community=True)
        return community if community.exists() else self.get_queryset()


class PersonManager(models.Manager):
    def get_by_natural_key(self, github):
        return self.get(github__iexact=github)


class Sig(models.Model):
    """A Kubernetes Special Interest Group, e.g. `sig-node`."""

    slug = models.SlugField(max_length=64, unique=True, help_text="As in kubernetes/community, e.g. sig-node.")
    name = models.CharField(max_length=100, blank=True)
    mailing_list = models.EmailField(blank=True, help_text="Where the freeze-reminder digest goes.")
    reminder_offsets = models.JSONField(
        default=list,
        blank=True,
        help_text="Hours before a freeze at which reminders go out, e.g. [336, 168, 48, 24, 0]; empty: default.",
    )
    # From kubernetes/community's sigs.yaml (`manage.py import_sigs`); rows created from a kep.yaml spelling
    # before that import keep in_community=False, which keeps them out of the SIG filters.
    kind = models.CharField(max_length=20, choices=SigKind.choices, default=SigKind.SIG)
    label = models.CharField(max_length=64, blank=True, help_text="GitHub label suffix: sig/<label>, e.g. node.")
    mission = models.TextField(blank=True)
    mailing_list_url = models.URLField(max_length=300, blank=True, help_text="The Google group's page.")
    slack_channel = models.CharField(max_length=100, blank=True)
    in_community = models.BooleanField(
        default=False, help_text="Listed in kubernetes/community's sigs.yaml (not only named in a kep.yaml)."
    )

    objects = SigManager("slug")

    class Meta:
        db_table = "keps_sig"
        ordering = ["slug"]
        verbose_name = "SIG"
        verbose_name_plural = "SIGs"

    def __str__(self):
        return self.slug

    def natural_key(self):
        return (self.slug,)

    @property
    def display_name(self) -> str:
        return self.name or self.slug.replace("sig-", "SIG ").title().replace("Sig ", "SIG ")


class Person(models.Model):
    """A contributor, known by GitHub handle (unique regardless of case)."""

    github = models.CharField(max_length=64, help_text="GitHub handle without the @.")
    name = models.CharField(max_length=200, blank=True)
    email = models.EmailField(blank=True)
    reminders_opt_out = models.BooleanField(default=False, help_text="Send this person no reminder emails.")

    objects = PersonManager()

    class Meta:
        db_table = "keps_person"
        ordering = [Lower("github")]
        verbose_name_plural = "people"
        constraints = [
            models.UniqueConstraint(
                Lower("github"), name="person_github_unique_ci", violation_error_message="That GitHub handle exists."
            ),
            models.CheckConstraint(
                condition=~models.Q(github=""), name="person_github_not_empty", violation_error_message="Handle needed."
            ),
        ]

    def __str__(self):
        return f"@{self.github}"

    def natural_key(self):
        return (self.github,)


class SigMembership(models.Model):
    """A user's role in one SIG: which SIG's rows they may change in the admin."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sig_memberships")
    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=SigRole.choices)

    class Meta:
        db_table = "keps_sigmembership"
        ordering = ["sig__slug", "user__username"]
        verbose_name = "SIG membership"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "sig"], name="sigmembership_unique", violation_error_message="Already a member."
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=SigRole.values),
                name="sigmembership_role_valid",
                violation_error_message="Unknown role.",
            ),
        ]

    def __str__(self):
        return f"{self.user} — {self.get_role_display()} of {self.sig}"


class SigLeadership(models.Model):
    """A chair or tech lead of a SIG (sigs.yaml `leadership:`, older files `leads:`): who personal reminders reach."""

    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="leaderships")
    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="sig_leaderships")
    role = models.CharField(max_length=20, choices=SigLeaderRole.choices)

    class Meta:
        db_table = "keps_sigleadership"
        ordering = ["sig__slug", "role", "person__github"]
        verbose_name = "SIG leader"
        constraints = [
            models.UniqueConstraint(
                fields=["sig", "person", "role"], name="sigleadership_unique", violation_error_message="Listed twice."
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=SigLeaderRole.values),
                name="sigleadership_role_valid",
                violation_error_message="Unknown role.",
            ),
        ]

    def __str__(self):
        return f"{self.person} — {self.get_role_display()} of {self.sig}"


class SigMeeting(models.Model):
    """A SIG's recurring meeting as sigs.yaml lists it. `day`/`time`/`tz` are empty when the file's words could
    not be read; `frequency_note` keeps what the file says either way."""

    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="regular_meetings")
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in sigs.yaml.")
    description = models.CharField(max_length=300, blank=True)
    day = models.PositiveSmallIntegerField(choices=Weekday.choices, null=True, blank=True)
    time = models.TimeField(null=True, blank=True, help_text="Local time in `tz`.")
    tz = models.CharField(max_length=64, blank=True, help_text="IANA zone, e.g. America/Los_Angeles.")
    frequency = models.CharField(max_length=20, choices=MeetingFrequency.choices, blank=True)
    week_of_month = models.SmallIntegerField(
        null=True, blank=True, help_text="Monthly meetings: 1-4 for first-fourth, -1 for last."
    )
    anchor_date = models.DateField(null=True, blank=True, help_text="A date it met, for every-other-week meetings.")
    frequency_note = models.CharField(max_length=300, blank=True, help_text="sigs.yaml's words.")
    url = models.URLField(max_length=500, blank=True)
    archive_url = models.URLField(max_length=500, blank=True, help_text="Meeting notes.")
    recordings_url = models.URLField(max_length=500, blank=True)

    class Meta:
        db_table = "keps_sigmeeting"
        ordering = ["sig__slug", "position"]
        verbose_name = "SIG meeting"
        constraints = [
            models.UniqueConstraint(
                fields=["sig", "position"], name="sigmeeting_unique_position", violation_error_message="Same slot."
            ),
            models.CheckConstraint(
                condition=models.Q(day__isnull=True) | models.Q(day__gte=0, day__lte=6),
                name="sigmeeting_day_valid",
                violation_error_message="Day is 0 (Monday) to 6 (Sunday).",
            ),
            models.CheckConstraint(
                condition=models.Q(frequency__in=[*MeetingFrequency.values, ""]),
                name="sigmeeting_frequency_valid",
                violation_error_message="Unknown frequency.",
            ),
        ]

    def __str__(self):
        return f"{self.sig}: {self.description or 'meeting'}"


class SigAlias(models.Model):
    """A SIG spelling found in kep.yaml files and the SIG it means; an empty `sig_slug` means "no SIG" (`TBD`).

    The one place that maps kep.yaml spellings (`sig-machinery`) to sigs.yaml SIGs. The target is a slug, not a
    foreign key, so an alias can exist (seeded by a migration) before the SIG it names is imported.
    """

    spelling = models.CharField(max_length=100, unique=True, help_text="As written in kep.yaml, lower case.")
    sig_slug = models.CharField(max_length=64, blank=True, help_text="The SIG it means; empty: no SIG.")
    note = models.CharField(max_length=300, blank=True)

    objects = NaturalKeyManager("spelling")

    class Meta:
        db_table = "keps_sigalias"
        ordering = ["spelling"]
        verbose_name = "SIG alias"
        verbose_name_plural = "SIG aliases"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(spelling=Lower("spelling")) & ~models.Q(spelling=""),
                name="sigalias_spelling_lower",
                violation_error_message="Write the spelling in lower case.",
            )
        ]

    def __str__(self):
        return f"{self.spelling} → {self.sig_slug or 'no SIG'}"

    def natural_key(self):
        return (self.spelling,)
