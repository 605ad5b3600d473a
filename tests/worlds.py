"""A world of rows for the page tests: everything the KEP, meeting and release pages list, made in bulk at any
size, so that query counts can be compared at 10 and 1,000 rows. Shared by the KEP and meeting page tests."""

import datetime

from community.models import Person, Sig
from keps.models import DesignGroup, FeatureGate, Kep, PrrApproval
from meetings.models import AgendaItem, Meeting
from releases.models import EnhancementStatusChange, Release, TrackedEnhancement, status_writer

#: 16 since the KEP page shows its plan history (kep.yaml on master): one query of its own; 17 since every page's
#: footer says how old the upstream data is (one query of the upstream sources).
MAX_QUERIES = 17


def build_world(n: int, *, start: int = 0) -> dict:
    """`n` rows of everything the pages list, in bulk (so 1,000 take a second), added after `start` rows.

    KEP 1 is the focus: tracked in every release, mentioned in every meeting, in both design groups.
    """
    node, _ = Sig.objects.get_or_create(slug="sig-node")
    sched, _ = Sig.objects.get_or_create(slug="sig-scheduling")
    for minor in range(22, 29):
        Release.objects.get_or_create(version=f"1.{minor}", defaults={"state": "released"})
    current = Release.objects.get(version="1.28")
    group, _ = DesignGroup.objects.get_or_create(slug="node-runtime", defaults={"name": "Node runtime"})
    other, _ = DesignGroup.objects.get_or_create(slug="dra", defaults={"name": "DRA"})
    people = Person.objects.bulk_create(Person(github=f"person{start + i}") for i in range(n))
    keps = Kep.objects.bulk_create(
        Kep(
            number=start + i + 1,
            title=f"Enhancement {start + i + 1} perma beta",
            owning_sig=node if i % 2 == 0 else sched,
            stage="beta",
            status="implementable",
            beta_milestone="1.22",
            latest_milestone="1.28",
        )
        for i in range(n)
    )
    Kep.participating_sigs.through.objects.bulk_create(Kep.participating_sigs.through(kep=k, sig=sched) for k in keps)
    Kep.authors.through.objects.bulk_create(
        Kep.authors.through(kep=k, person=p) for k, p in zip(keps, people, strict=True)
    )
    Kep.approvers.through.objects.bulk_create(Kep.approvers.through(kep=k, person=people[0]) for k in keps)
    DesignGroup.keps.through.objects.bulk_create(DesignGroup.keps.through(designgroup=group, kep=k) for k in keps)
    FeatureGate.objects.bulk_create(FeatureGate(name=f"Gate{k.number}", kep=k, components=["kubelet"]) for k in keps)
    PrrApproval.objects.bulk_create(PrrApproval(kep=k, stage="beta", approver=people[-1]) for k in keps)
    with status_writer():  # a test world laid out directly, its history just below
        tracked = TrackedEnhancement.objects.bulk_create(
            TrackedEnhancement(release=current, kep=k, sig=k.owning_sig, target_stage="beta", status="tracked_code")
            for k in keps
        )
    EnhancementStatusChange.objects.bulk_create(
        EnhancementStatusChange(tracked_enhancement=t, to_status="tracked_code") for t in tracked
    )
    focus = Kep.objects.get(number=1)
    other.keps.add(focus)
    meetings = Meeting.objects.bulk_create(
        Meeting(
            sig=node,
            date=datetime.date(2020, 1, 7) + datetime.timedelta(days=start + i),
            open_prs=100 + i,
            prs_created=i % 7,
            prs_merged=i % 5,
        )  # fmt: skip
        for i in range(n)
    )
    items = AgendaItem.objects.bulk_create(
        AgendaItem(meeting=m, order=0, title=f"Perma beta review {start + i}", body="**notes**")
        for i, m in enumerate(meetings)
    )
    AgendaItem.keps.through.objects.bulk_create(AgendaItem.keps.through(agendaitem=a, kep=focus) for a in items)
    AgendaItem.presenters.through.objects.bulk_create(
        AgendaItem.presenters.through(agendaitem=a, person=p) for a, p in zip(items, people, strict=True)
    )
    for release in Release.objects.exclude(pk=current.pk):
        with status_writer():
            TrackedEnhancement.objects.get_or_create(
                release=release, kep=focus, defaults={"sig": node, "status": "removed_from_milestone"}
            )
    return {"focus": focus, "group": group, "meeting": Meeting.objects.order_by("date").first()}
