"""Deterministic synthetic data for benchmarks: `synthetic_data_generate(scale=, seed=)`.

At scale 1 the data resembles SIG Node's history: ~130 KEPs, releases 1.20–1.35 with their full freeze
schedules, 500 weekly meetings with PR-flow figures and 3,000 agenda items, 400 tracked enhancements with
status histories spread over each cycle, and ~50 retro items. At scale N every count except the releases
(which are global) is N times larger, spread over up to ten SIGs.

Everything is drawn from `random.Random` streams seeded by strings derived from the seed, so the same
scale and seed always give the same rows (up to primary keys). Nothing depends on today's date: release
states and the status of the active release's board are set relative to `reference_instant(seed)`, a
fixed instant inside the 1.34 cycle, after its enhancements freeze and before its code freeze.

All rows are written with `bulk_create` in batches inside one transaction; `save()` is never called, so
fields that `save()` would fill (`Release.major`/`minor`) are set here.
"""

import datetime
import functools
import math
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import JSONField, OuterRef, Subquery

from keps.choices import CoverageStatus, KepStage, KepStatus, PrrStage
from keps.models import DesignGroup, FeatureGate, Kep, Person, PrrApproval, Sig
from meetings.models import AgendaItem, Meeting
from releases.choices import (
    ActionStatus,
    EnhancementStatus,
    EnhancementType,
    MilestoneKind,
    ReleaseState,
    RetroCategory,
    TargetStage,
)
from releases.models import (
    EnhancementStatusChange,
    Milestone,
    Release,
    RetroItem,
    Retrospective,
    TrackedEnhancement,
)

__all__ = ["SyntheticDataError", "reference_instant", "synthetic_data_generate"]

UTC = datetime.UTC
PT = ZoneInfo("America/Los_Angeles")
BATCH = 1000
#: From this many rows on, PostgreSQL gets the largest tables through COPY (see `_copy_values`).
COPY_THRESHOLD = 2000
MAX_SCALE = 20

#: Sizes at scale 1 (SIG Node's history); each is multiplied by the scale.
BASE_SIZES = {"keps": 130, "meetings": 500, "agenda_items": 3000, "tracked": 400, "retro_items": 50}

#: The SIGs the data is spread over, in the order they are added as the scale grows.
SIGS = [
    ("sig-node", "SIG Node", 1),
    ("sig-scheduling", "SIG Scheduling", 3),
    ("sig-autoscaling", "SIG Autoscaling", 0),
    ("sig-network", "SIG Network", 3),
    ("sig-storage", "SIG Storage", 3),
    ("sig-apps", "SIG Apps", 0),
    ("sig-auth", "SIG Auth", 2),
    ("sig-api-machinery", "SIG API Machinery", 2),
    ("sig-cli", "SIG CLI", 2),
    ("sig-instrumentation", "SIG Instrumentation", 3),
]  # (slug, name, weekday of the weekly meeting)

#: Releases 1.20–1.35: (version, name, cycle start, release day), after the sig-release schedules.
RELEASES = [
    ("1.20", "The Raddest Release", datetime.date(2020, 9, 14), datetime.date(2020, 12, 8)),
    ("1.21", "Power to the Community", datetime.date(2021, 1, 11), datetime.date(2021, 4, 8)),
    ("1.22", "Reaching New Peaks", datetime.date(2021, 4, 26), datetime.date(2021, 8, 4)),
    ("1.23", "The Next Frontier", datetime.date(2021, 8, 23), datetime.date(2021, 12, 7)),
    ("1.24", "Stargazer", datetime.date(2022, 1, 10), datetime.date(2022, 5, 3)),
    ("1.25", "Combiner", datetime.date(2022, 5, 23), datetime.date(2022, 8, 23)),
    ("1.26", "Electrifying", datetime.date(2022, 9, 5), datetime.date(2022, 12, 8)),
    ("1.27", "Chill Vibes", datetime.date(2023, 1, 9), datetime.date(2023, 4, 11)),
    ("1.28", "Planternetes", datetime.date(2023, 5, 15), datetime.date(2023, 8, 15)),
    ("1.29", "Mandala", datetime.date(2023, 9, 5), datetime.date(2023, 12, 13)),
    ("1.30", "Uwubernetes", datetime.date(2024, 1, 8), datetime.date(2024, 4, 17)),
    ("1.31", "Elli", datetime.date(2024, 5, 13), datetime.date(2024, 8, 13)),
    ("1.32", "Penelope", datetime.date(2024, 9, 9), datetime.date(2024, 12, 11)),
    ("1.33", "Octarine", datetime.date(2025, 1, 13), datetime.date(2025, 4, 23)),
    ("1.34", "Of Wind & Will", datetime.date(2025, 5, 19), datetime.date(2025, 8, 27)),
    ("1.35", "", datetime.date(2025, 9, 15), datetime.date(2025, 12, 17)),
]
FIRST_TRACKED = 2  # 1.20 and 1.21 keep only a recorded retro tally (their KEP lists are "lost")
ACTIVE = 14  # 1.34: active at the reference instant
PLANNING = 15  # 1.35: planning
TRACKED_RELEASES = range(FIRST_TRACKED, ACTIVE + 1)

#: Share of tracked KEPs shipped per release index: falls to a low at 1.24 (SIG Node shipped 6 of 23),
#: then recovers as the SIG adopted soft freezes and review schedules.
MERGE_RATE = {
    2: 0.56,
    3: 0.52,
    4: 0.27,
    5: 0.34,
    6: 0.41,
    7: 0.47,
    8: 0.53,
    9: 0.58,
    10: 0.62,
    11: 0.66,
    12: 0.69,
    13: 0.72,
}

#: KEP number -> creation date, interpolated between these points of kubernetes/enhancements' issue numbers.
KEP_NUMBER_DATES = [
    (1, datetime.date(2016, 7, 1)),
    (500, datetime.date(2017, 10, 1)),
    (1000, datetime.date(2019, 5, 1)),
    (2000, datetime.date(2020, 9, 1)),
    (3000, datetime.date(2021, 11, 1)),
    (4000, datetime.date(2023, 5, 1)),
    (5000, datetime.date(2025, 1, 1)),
    (5300, datetime.date(2025, 5, 1)),
]
#: kubernetes/kubernetes PR number by date, for realistic PR links in agenda items.
PR_NUMBER_DATES = [
    (datetime.date(2015, 6, 1), 10000),
    (datetime.date(2018, 1, 1), 58000),
    (datetime.date(2020, 11, 1), 96000),
    (datetime.date(2022, 3, 1), 108500),
    (datetime.date(2023, 7, 1), 119000),
    (datetime.date(2024, 7, 1), 126000),
    (datetime.date(2025, 7, 1), 132500),
]

#: Real SIG Node KEP numbers and titles, used first for sig-node; hints shape their journey.
SIG_NODE_KEPS = [
    (127, "Support User Namespaces in pods", "perma"),
    (277, "Ephemeral Containers", ""),
    (281, "Remove DynamicKubeletConfig", "removal"),
    (585, "RuntimeClass", ""),
    (688, "Pod Overhead", ""),
    (753, "Sidecar Containers", ""),
    (1287, "In-place Update of Pod Resources", "perma"),
    (1769, "Memory Manager", "perma"),
    (1972, "Fix exec probe timeouts", ""),
    (2000, "Graceful Node Shutdown", "perma"),
    (2008, "Forensic Container Checkpointing", ""),
    (2133, "Kubelet Credential Provider", ""),
    (2221, "Removing dockershim from kubelet", "removal"),
    (2238, "Add configurable grace period to probes", ""),
    (2254, "cgroup v2", ""),
    (2371, "cAdvisor-less, CRI-full container and pod stats", ""),
    (2400, "Node system swap support", "perma"),
    (2403, "Extend podresources API to report allocatable resources", ""),
    (2413, "Enable seccomp by default", ""),
    (2535, "Ensure secret pulled images", ""),
    (2570, "Support memory QoS with cgroups v2", "perma"),
    (2625, "CPU Manager policy option: full-pcpus-only", ""),
    (2712, "PriorityClass value based graceful node shutdown", ""),
    (2727, "Add gRPC probe to pod", ""),
    (2902, "CPUManager policy option to distribute CPUs across NUMA nodes", ""),
    (3008, "QoS-class resources", ""),
    (3063, "Dynamic resource allocation", ""),
    (3085, "Pod sandbox ready condition", ""),
    (3288, "Separate container stdout from stderr log stream", ""),
    (3310, "Kubelet OpenTelemetry tracing", ""),
    (3386, "Kubelet evented PLEG for better performance", ""),
    (3545, "Improved multi-NUMA alignment in Topology Manager", ""),
    (3570, "Graduate CPU Manager to GA", ""),
    (3573, "Graduate Topology Manager to GA", ""),
    (3619, "Fine-grained SupplementalGroups control", ""),
    (3673, "Kubelet limit of parallel image pulls", ""),
    (3857, "Recursive read-only mounts", ""),
    (3960, "Introducing sleep action for PreStop hook", ""),
    (3983, "Add support for a drop-in kubelet configuration directory", ""),
    (4033, "Discover cgroup driver from CRI", ""),
    (4191, "Split image filesystem", ""),
    (4210, "ImageMaximumGCAge in kubelet", ""),
    (4216, "Image pull per runtime class", ""),
    (4369, "Allow special characters in environment variables", ""),
    (4540, "Strict CPU reservation for system daemons", ""),
    (4639, "OCI VolumeSource", ""),
    (4680, "Add resource health status to the pod status", ""),
    (4818, "Allow zero value for sleep action of PreStop hook", ""),
    (4960, "Container stop signals", ""),
]

#: Per SIG: words for generated KEP titles, and the components its feature gates are read by.
SIG_TOPICS = {
    "sig-node": (
        [
            "kubelet image garbage collection",
            "pod lifecycle events",
            "container restart policy",
            "node resource topology",
            "CRI streaming",
            "pod level resources",
            "device plugin health",
            "probe termination",
            "container log rotation",
            "kubelet checkpoint",
            "static pod",
            "node shutdown ordering",
        ],
        ["kubelet"],
    ),
    "sig-scheduling": (
        [
            "pod scheduling readiness",
            "topology spread",
            "gang scheduling",
            "queueing hints",
            "preemption",
            "node affinity",
            "scheduler plugins",
            "scheduling gates",
            "pod group",
            "score plugins",
        ],
        ["kube-scheduler"],
    ),
    "sig-autoscaling": (
        [
            "HPA container metrics",
            "HPA scale to zero",
            "configurable tolerance",
            "VPA in-place updates",
            "cluster autoscaler provisioning",
            "behavior policies",
            "external metrics",
        ],
        ["kube-controller-manager"],
    ),
    "sig-network": (
        [
            "service traffic distribution",
            "dual-stack services",
            "EndpointSlice",
            "kube-proxy nftables",
            "topology aware routing",
            "network policy",
            "service CIDR",
            "load balancer IP mode",
        ],
        ["kube-proxy", "kube-apiserver"],
    ),
    "sig-storage": (
        [
            "volume group snapshots",
            "CSI volume health",
            "read-write-once-pod access",
            "volume attributes class",
            "SELinux relabeling",
            "volume expansion recovery",
            "CSI migration",
            "volume populators",
        ],
        ["kubelet", "kube-controller-manager"],
    ),
    "sig-apps": (
        [
            "job success policy",
            "pod replacement policy",
            "StatefulSet start ordinal",
            "CronJob time zones",
            "backoff limit per index",
            "DaemonSet surge",
            "pod disruption conditions",
            "job managed-by",
        ],
        ["kube-controller-manager"],
    ),
    "sig-auth": (
        [
            "structured authentication configuration",
            "bound service account tokens",
            "ClusterTrustBundles",
            "authorization webhooks",
            "KMS v2 encryption",
            "pod certificate requests",
            "node authorizer",
        ],
        ["kube-apiserver"],
    ),
    "sig-api-machinery": (
        [
            "CEL validation rules",
            "consistent list from cache",
            "streaming list watch",
            "admission policies",
            "server-side apply",
            "storage version migration",
            "API priority and fairness",
            "watch bookmarks",
        ],
        ["kube-apiserver"],
    ),
    "sig-cli": (
        [
            "kubectl debug profiles",
            "kubectl events",
            "KUBERC user preferences",
            "kubectl explain output",
            "server-side field validation",
            "kubectl subresource",
            "interactive delete",
        ],
        ["kubectl"],
    ),
    "sig-instrumentation": (
        [
            "metrics stability framework",
            "structured logging",
            "contextual logging",
            "component health SLIs",
            "API server tracing",
            "metric cardinality enforcement",
            "component statusz",
        ],
        ["kube-apiserver", "kubelet"],
    ),
}
TITLE_PATTERNS = [
    "Support {topic}",
    "{Topic} improvements",
    "Graduate {topic} to GA",
    "Add {topic} API",
    "{Topic} for Windows nodes",
    "Configurable {topic}",
    "{Topic} v2",
    "Extend {topic} with per-pod settings",
]

FIRST_NAMES = [
    "Aiko", "Ana", "Arjun", "Beatriz", "Bilal", "Camille", "Chen", "Dario", "Deepa", "Elif", "Emeka", "Eva",
    "Farah", "Felix", "Giulia", "Hana", "Hugo", "Ines", "Ivan", "Jae", "Joon", "Kalani", "Kasia", "Kenji",
    "Lars", "Leila", "Lina", "Malik", "Marta", "Mateo", "Mei", "Nadia", "Nikhil", "Noor", "Olga", "Omar",
    "Pablo", "Priya", "Quentin", "Rafael", "Rania", "Rosa", "Sanjay", "Sofia", "Sven", "Tariq", "Tomas",
    "Uma", "Vera", "Wei", "Xavier", "Yara", "Yusuf", "Zane", "Zofia",
]  # fmt: skip
LAST_NAMES = [
    "Abara", "Bauer", "Castillo", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ishikawa", "Jensen",
    "Kovacs", "Larsen", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi", "Sato", "Tanaka",
    "Usman", "Varga", "Weber", "Xu", "Yilmaz", "Zhang", "Novak", "Silva", "Kim", "Patel", "Schmidt",
    "Costa", "Ivanova", "Horvath", "Lindqvist", "Mensah", "Oliveira", "Park", "Reyes", "Suzuki",
]  # fmt: skip

GATE_COMPONENTS_EXTRA = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet"]


class SyntheticDataError(Exception):
    """The synthetic data cannot be generated (non-empty database, bad scale)."""


@dataclass
class _Attempt:
    """One tracked enhancement to be: a KEP opted into a release aiming at a stage, and how it ended."""

    release: int
    target: str  # TargetStage value
    type: str  # EnhancementType value
    outcome: str  # "done", "removed", "deferred", or "open" (active release)


@dataclass
class _KepPlan:
    number: int
    title: str
    sig: int  # index into the run's SIGs
    created: datetime.date
    kind: str  # "", "perma", "removal"
    stage_idx: int = 0  # next stage to aim at
    done_at: dict = field(default_factory=dict)  # target stage -> release minor version (int)
    next_release: int = 99
    finished: bool = False
    abandoned: bool = False
    provisional: bool = False
    attempts: list = field(default_factory=list)


def reference_instant(seed: int) -> datetime.datetime:
    """The fixed "now" of the synthetic data: between the 1.34 enhancements freeze and code freeze.

    Derived from the seed (never from the clock), so the same seed always yields the same board.
    """
    schedule = _milestone_instants(ACTIVE)
    start = schedule[MilestoneKind.ENHANCEMENTS_FREEZE] + datetime.timedelta(days=1)
    span = (schedule[MilestoneKind.CODE_FREEZE] - datetime.timedelta(days=2) - start).days
    return (start + datetime.timedelta(days=seed % max(span, 1))).replace(hour=16, minute=0)


def _rng(seed: int, stream: str) -> random.Random:
    # String seeds are hashed with SHA-512 by `random`, independent of PYTHONHASHSEED.
    return random.Random(f"sigtracker-synthetic:{seed}:{stream}")


def _split(total: int, parts: int) -> list[int]:
    """`total` split into `parts` near-equal integers that sum to it."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _spread(total: int, weights: list[float]) -> list[int]:
    """`total` shared in proportion to `weights` (largest remainder), summing exactly to `total`."""
    if not weights:
        return []
    weight_sum = sum(weights) or 1.0
    raw = [total * w / weight_sum for w in weights]
    counts = [int(x) for x in raw]
    order = sorted(range(len(raw)), key=lambda i: (raw[i] - counts[i], -i), reverse=True)
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def _interpolate(points, x):
    """Piecewise-linear interpolation over sorted (x, y) points; dates are handled as ordinals."""

    def num(v):
        return v.toordinal() if isinstance(v, datetime.date) else v

    xs = [num(p[0]) for p in points]
    ys = [num(p[1]) for p in points]
    xv = num(x)
    if xv <= xs[0]:
        i = 0
    elif xv >= xs[-1]:
        i = len(xs) - 2
    else:
        i = next(k for k in range(len(xs) - 1) if xs[k] <= xv <= xs[k + 1])
    y = ys[i] + (ys[i + 1] - ys[i]) * (xv - xs[i]) / (xs[i + 1] - xs[i])
    return y


def _kep_created(number: int) -> datetime.date:
    return datetime.date.fromordinal(round(_interpolate(KEP_NUMBER_DATES, number)))


@functools.cache
def _pr_base(day: datetime.date) -> int:
    return round(_interpolate(PR_NUMBER_DATES, day))


def _pr_number(day: datetime.date, rng: random.Random) -> int:
    """A plausible kubernetes/kubernetes PR number for a PR discussed on `day`."""
    return max(1000, _pr_base(day) + rng.randint(-900, 200))


def _release_index_at(day: datetime.date) -> int | None:
    """Index of the release whose cycle `day` falls in (the gap after a release counts towards the next)."""
    if day < RELEASES[0][2]:
        return None
    for index, (_, _, _, release) in enumerate(RELEASES):
        if day <= release:
            return index
    return None


def _minor_at(day: datetime.date) -> int:
    """Minor version developed on `day`; before 1.20 estimated at one release every 120 days."""
    index = _release_index_at(day)
    if index is not None:
        return 20 + index
    first_start = RELEASES[0][2]
    if day > RELEASES[-1][3]:
        return 20 + len(RELEASES)
    return max(1, 20 - math.ceil((first_start - day).days / 120))


def _instant(day: datetime.date, hour: int, minute: int, zone) -> datetime.datetime:
    """Wall-clock time in `zone` (PT follows PDT/PST) as an aware UTC instant."""
    return datetime.datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone).astimezone(UTC)


def _milestone_instants(index: int) -> dict:
    """Instants of one release's milestones (kind -> aware UTC datetime), shaped like the real schedules.

    Releases up to 1.25 quote freezes in UTC (enhancements freeze 02:00 UTC Friday, code freeze 01:00 UTC
    Wednesday, as 1.24 did); later ones in Pacific time (18:00 PT Thursday, 17:00 PT Tuesday), so their
    UTC instants move by an hour between PDT and PST.
    """
    _, _, start, release = RELEASES[index]
    pacific = index >= 6
    enh_day = start + datetime.timedelta(days=24 if pacific else 25)
    code_day = release - datetime.timedelta(days=35 if pacific else 34)
    if pacific:
        enh = _instant(enh_day, 18, 0, PT)
        code = _instant(code_day, 17, 0, PT)
    else:
        enh = _instant(enh_day, 2, 0, UTC)
        code = _instant(code_day, 1, 0, UTC)

    def same_time(instant, days):
        # The same wall-clock time `days` later in the zone the schedule quotes (PT keeps 17:00 across DST).
        zone = PT if pacific else UTC
        local = instant.astimezone(zone)
        return _instant(local.date() + datetime.timedelta(days=days), local.hour, local.minute, zone)

    soft_day = max(code_day - datetime.timedelta(days=26), enh_day + datetime.timedelta(days=7))
    return {
        MilestoneKind.CYCLE_START: _instant(start, 0, 0, UTC),
        MilestoneKind.PRR_FREEZE: _instant(enh_day - datetime.timedelta(days=8), 0, 0, UTC),
        MilestoneKind.ENHANCEMENTS_FREEZE: enh,
        # Four weeks before code freeze (1.24: Mar 4 for Mar 30), but never before the enhancements freeze.
        MilestoneKind.SIG_SOFT_FREEZE: _instant(soft_day, 0, 0, UTC),
        MilestoneKind.FEATURE_BLOG_FREEZE: same_time(code, -14),
        MilestoneKind.CODE_FREEZE: code,
        MilestoneKind.TEST_FREEZE: same_time(code, 7),
        MilestoneKind.DOCS_FREEZE: _instant(release - datetime.timedelta(days=14), 23, 59, PT)
        if pacific
        else _instant(release - datetime.timedelta(days=14), 0, 0, UTC),
        MilestoneKind.RELEASE: _instant(release, 0, 0, UTC),
        MilestoneKind.RETROSPECTIVE: _instant(release + datetime.timedelta(days=9), 10, 0, PT),
    }


#: Milestones quoted as dates only in the schedules (stored at midnight UTC with `all_day`).
ALL_DAY_KINDS = {
    MilestoneKind.CYCLE_START,
    MilestoneKind.PRR_FREEZE,
    MilestoneKind.SIG_SOFT_FREEZE,
    MilestoneKind.RELEASE,
}
NO_REMINDER_KINDS = {MilestoneKind.CYCLE_START, MilestoneKind.RELEASE, MilestoneKind.RETROSPECTIVE}

#: Stage ladders a KEP climbs; a removal KEP deprecates and then removes a feature.
LADDERS = {
    "": [TargetStage.ALPHA, TargetStage.BETA, TargetStage.STABLE],
    "perma": [TargetStage.ALPHA, TargetStage.BETA, TargetStage.STABLE],
    "removal": [TargetStage.DEPRECATION, TargetStage.REMOVAL],
}
KEP_STAGE_OF = {
    TargetStage.ALPHA: KepStage.ALPHA,
    TargetStage.BETA: KepStage.BETA,
    TargetStage.STABLE: KepStage.STABLE,
    TargetStage.DEPRECATION: KepStage.DEPRECATED,
    TargetStage.REMOVAL: KepStage.REMOVED,
}
PRR_STAGE_OF = {
    TargetStage.ALPHA: PrrStage.ALPHA,
    TargetStage.BETA: PrrStage.BETA,
    TargetStage.STABLE: PrrStage.STABLE,
    TargetStage.DEPRECATION: PrrStage.DEPRECATION,
}

REMOVAL_NOTES = {
    "enhancements": [
        "Missed enhancements freeze: KEP not merged as implementable.",
        "Missed enhancements freeze: PRR review incomplete.",
        "Missed enhancements freeze: test plan section missing.",
    ],
    "code": [
        "Missed code freeze: implementation PRs not merged.",
        "Missed code freeze: e2e tests not ready.",
        "Missed code freeze: API review still open.",
    ],
    "docs": ["Missed docs freeze: no docs PR ready for review."],
}
WENT_WELL = [
    "KEP reviews for v{v} were done well before enhancements freeze.",
    "The SIG soft freeze gave reviewers time to focus on at-risk KEPs.",
    "{done} KEPs shipped in v{v}, including KEP-{kep}.",
    "Weekly PR triage kept the open PR count flat through code freeze.",
    "New reviewers joined and took over approvals for KEP-{kep}.",
    "CI stayed green during the last week before code freeze.",
    "PRR questionnaires were complete at opt-in for most KEPs.",
]
TO_IMPROVE = [
    "Too many KEPs were removed from the milestone ({removed} of {tracked}).",
    "PRR review for KEP-{kep} came late; the author had to file an exception.",
    "Approver bandwidth: implementation PRs waited more than a week for approval.",
    "Docs PRs were opened only days before the docs freeze.",
    "Flaky node e2e jobs hid real failures before code freeze.",
    "KEP owners did not update the tracking board; the enhancements team chased them.",
    "Several KEPs opted in without an assigned reviewer.",
]
ACTIONS = [
    "Set up a KEP review schedule before the v{next} enhancements freeze.",
    "Ask each KEP owner for a code-freeze plan at opt-in.",
    "Review the list of perma-beta features and plan their graduation or removal.",
    "Add KEP-{kep} to the weekly meeting agenda until it merges.",
    "Keep a SIG soft freeze four weeks before code freeze in v{next}.",
    "Find a second approver for the CRI and runtime area.",
    "Write a checklist for docs PRs and link it from the KEP template.",
]
AGENDA_CI_TOPICS = [
    "flaky eviction tests", "containerd 2.0 jobs", "cgroup v1 jobs", "serial e2e timeouts", "node-e2e on arm64",
    "image pull test failures", "kubelet unit-test coverage", "swap-enabled jobs",
]  # fmt: skip


def _copy_values(model, columns: list[str], values: list[tuple]) -> list[int]:
    """PostgreSQL only: COPY plain rows into `model`'s table, primary keys drawn from its sequence first.

    JSON columns are adapted as `bulk_create` would; other values (ints, strings, dates, aware
    datetimes, None) go to psycopg as they are.
    """
    opts = model._meta
    by_attname = {f.attname: f for f in opts.concrete_fields}
    fields = [by_attname[name] for name in columns]
    db = connections[DEFAULT_DB_ALIAS]
    json_at = [i for i, f in enumerate(fields) if isinstance(f, JSONField)]
    quote = db.ops.quote_name
    with db.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [opts.db_table, opts.pk.column, len(values)],
        )
        ids = sorted(row[0] for row in cursor.fetchall())
        names = ", ".join(quote(f.column) for f in [opts.pk, *fields])
        with cursor.cursor.copy(f"COPY {quote(opts.db_table)} ({names}) FROM STDIN") as copy:
            for pk, row in zip(ids, values, strict=True):
                if json_at:
                    row = list(row)
                    for i in json_at:
                        row[i] = fields[i].get_db_prep_save(row[i], db)
                copy.write_row((pk, *row))
    return ids


class _Generator:
    """One run of the generator: holds the random streams, the plans and the created rows."""

    def __init__(self, *, scale: float, seed: int, progress: Callable[[str], None] | None):
        self.scale = scale
        self.seed = seed
        self.progress = progress or (lambda phase: None)
        self.reference = reference_instant(seed)
        self.nsigs = min(len(SIGS), max(1, round(scale)))
        self.sizes = {name: max(1, round(base * scale)) for name, base in BASE_SIZES.items()}
        self.counts: dict[str, int] = {}
        self.schedules = [_milestone_instants(index) for index in range(len(RELEASES))]
        self.source = f"synthetic (scale {scale:g}, seed {seed})"

    # -- helpers ------------------------------------------------------------------------------------
    def _create(self, model, rows: list, label: str | None = None) -> list:
        """Insert unsaved instances in batches; returns them with primary keys set."""
        created = model.objects.bulk_create(rows, batch_size=BATCH)
        name = label or model._meta.label
        self.counts[name] = self.counts.get(name, 0) + len(created)
        return created

    def _insert(self, model, columns: list[str], values: list[tuple], label: str | None = None) -> list[int]:
        """Insert plain rows (values for the `columns` attnames) without building model instances on
        PostgreSQL; returns their primary keys in order. For the largest tables."""
        if connection.vendor == "postgresql" and len(values) >= COPY_THRESHOLD:
            ids = _copy_values(model, columns, values)
        else:
            created = model.objects.bulk_create(
                [model(**dict(zip(columns, row, strict=True))) for row in values], batch_size=BATCH
            )
            ids = [obj.pk for obj in created]
        name = label or model._meta.label
        self.counts[name] = self.counts.get(name, 0) + len(ids)
        return ids

    # -- phases -------------------------------------------------------------------------------------
    def run(self) -> dict:
        phases = [
            ("people", self._sigs_and_people),
            ("releases", self._releases),
            ("keps", self._keps),
            ("tracked enhancements", self._tracked),
            ("meetings", self._meetings),
            ("retrospectives", self._retrospectives),
            ("design groups", self._design_groups),
        ]
        for name, phase in phases:
            phase()
            self.progress(name)
        return {
            "scale": self.scale,
            "seed": self.seed,
            "reference": self.reference,
            "sigs": [sig.slug for sig in self.owning_sigs],
            "counts": dict(self.counts),
        }

    def _sigs_and_people(self) -> None:
        existing = {sig.slug: sig for sig in Sig.objects.filter(slug__in=[slug for slug, _, _ in SIGS])}
        missing = [
            Sig(slug=slug, name=name, mailing_list=f"kubernetes-{slug}@googlegroups.com")
            for slug, name, _ in SIGS
            if slug not in existing
        ]
        for sig in self._create(Sig, missing):
            existing[sig.slug] = sig
        self.sigs = [existing[slug] for slug, _, _ in SIGS]
        self.owning_sigs = self.sigs[: self.nsigs]

        rng = _rng(self.seed, "people")
        known = {person.github.lower(): person for person in Person.objects.all()}
        taken = set(known)
        new_people: list[Person] = []

        def person() -> Person:
            while True:
                first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
                pattern = rng.randrange(4)
                handle = [f"{first}{last[0]}", f"{first[0]}{last}", f"{first}-{last}", f"{first}{last}"][pattern]
                handle = handle.lower() if rng.random() < 0.7 else handle
                if handle.lower() in taken:
                    handle = f"{handle}{rng.randint(2, 99)}"
                if handle.lower() in taken:
                    continue
                taken.add(handle.lower())
                row = Person(
                    github=handle,
                    name=f"{first} {last}",
                    email=f"{handle.lower()}@example.com",
                    reminders_opt_out=rng.random() < 0.05,
                )
                new_people.append(row)
                return row

        # Per owning SIG: 36 contributors, the first four its leads/approvers.
        self.sig_people = [[person() for _ in range(36)] for _ in self.owning_sigs]
        self.release_team = [person() for _ in range(12 + 2 * self.nsigs)]
        self.prr_approvers = [person() for _ in range(4 + self.nsigs // 3)]
        self._create(Person, new_people)

    def _releases(self) -> None:
        releases = []
        for index, (version, name, start, release_day) in enumerate(RELEASES):
            state = (
                ReleaseState.RELEASED
                if index < ACTIVE
                else ReleaseState.ACTIVE
                if index == ACTIVE
                else ReleaseState.PLANNING
            )
            releases.append(
                Release(
                    version=version,
                    major=1,
                    minor=int(version.split(".")[1]),
                    name=name,
                    cycle_start=start,
                    planned_release_date=release_day,
                    actual_release_date=release_day if state == ReleaseState.RELEASED else None,
                    state=state,
                    source_url=f"https://github.com/kubernetes/sig-release/tree/master/releases/release-{version}",
                )
            )
        self.releases = self._create(Release, releases)

        node = self.sigs[0]
        milestones = []
        for index, release in enumerate(self.releases):
            pacific = index >= 6
            for kind, at in self.schedules[index].items():
                all_day = kind in ALL_DAY_KINDS or (kind == MilestoneKind.DOCS_FREEZE and not pacific)
                if all_day:
                    quoted, text = "", f"{at:%A %-d %B %Y}"
                elif kind == MilestoneKind.RETROSPECTIVE or pacific:
                    local = at.astimezone(PT)
                    quoted, text = "PT", f"{local:%A %-d %B %Y}, {local:%H:%M} {local.tzname()}"
                else:
                    quoted, text = "UTC", f"{at:%A %-d %B %Y}, {at:%H:%M} UTC"
                exception = None
                if kind == MilestoneKind.ENHANCEMENTS_FREEZE:
                    exception = at + datetime.timedelta(days=4)
                elif kind == MilestoneKind.CODE_FREEZE:
                    exception = at + datetime.timedelta(days=2)
                milestones.append(
                    Milestone(
                        release=release,
                        kind=kind,
                        sig=node if kind == MilestoneKind.SIG_SOFT_FREEZE else None,
                        at=at,
                        all_day=all_day,
                        label="SIG Node soft freeze" if kind == MilestoneKind.SIG_SOFT_FREEZE else "",
                        quoted_timezone=quoted,
                        exception_deadline=exception,
                        sends_reminders=kind not in NO_REMINDER_KINDS,
                        source_text=text,
                    )
                )
        self._create(Milestone, milestones)

    # -- KEPs and their journeys through the releases ----------------------------------------------
    def _plan_keps(self) -> list[_KepPlan]:
        """Decide every KEP and simulate its way through the releases (which attempts, which outcomes)."""
        rng = _rng(self.seed, "keps")
        per_sig = _split(self.sizes["keps"], self.nsigs)
        curated = SIG_NODE_KEPS[: per_sig[0]]
        used = {number for number, _, _ in curated}
        upper = max(5300, 100 + 2 * self.sizes["keps"])
        latest_created = self.reference.date() - datetime.timedelta(days=21)
        plans: list[_KepPlan] = []
        for sig_index, count in enumerate(per_sig):
            slug = SIGS[sig_index][0]
            entries = list(curated) if sig_index == 0 else []
            topics, _ = SIG_TOPICS[slug]
            titles_seen: set[str] = set()
            while len(entries) < count:
                number = round(rng.triangular(100, upper, upper * 0.85))
                if number in used:
                    continue
                used.add(number)
                topic = rng.choice(topics)
                title = rng.choice(TITLE_PATTERNS).format(topic=topic, Topic=topic[0].upper() + topic[1:])
                if title in titles_seen:
                    title = f"{title} (phase {sum(t.startswith(title) for t in titles_seen) + 1})"
                titles_seen.add(title)
                roll = rng.random()
                kind = "perma" if roll < 0.10 else "removal" if roll < 0.14 else ""
                entries.append((number, title, kind))
            for number, title, kind in entries:
                created = min(_kep_created(number), latest_created)
                plans.append(_KepPlan(number=number, title=title, sig=sig_index, created=created, kind=kind))
        for plan in plans:
            self._plan_start(plan, rng)
        for sig_index, target in enumerate(_split(self.sizes["tracked"], self.nsigs)):
            self._simulate([p for p in plans if p.sig == sig_index], target, _rng(self.seed, f"journeys:{sig_index}"))
        return plans

    def _plan_start(self, plan: _KepPlan, rng: random.Random) -> None:
        """Where a KEP stands when tracking starts (1.22): done before, carried in, new, or never tracked."""
        ladder = LADDERS[plan.kind]
        first_tracked_start = RELEASES[FIRST_TRACKED][2]
        if plan.kind == "" and rng.random() < 0.08:
            plan.provisional = True
            return
        if plan.created < first_tracked_start:
            first = min(_minor_at(plan.created + datetime.timedelta(days=60)), 21)
            if plan.kind != "perma" and rng.random() < 0.3:
                # Finished before 1.22: all stages done at estimated older releases.
                minor = first
                for stage in ladder:
                    plan.done_at[stage] = minor
                    minor = min(minor + rng.randint(1, 3), 21)
                plan.stage_idx = len(ladder)
                plan.finished = True
                return
            # Carried in: the first stage (and for perma-betas the second) done before 1.22.
            done = 2 if plan.kind == "perma" else rng.randint(1, len(ladder) - 1)
            minor = first
            for stage in ladder[:done]:
                plan.done_at[stage] = minor
                minor = min(minor + rng.randint(1, 2), 21)
            plan.stage_idx = done
            wait = rng.randint(3, 8) if plan.kind == "perma" else rng.randint(0, 3)
            plan.next_release = FIRST_TRACKED + wait
            return
        start = next(
            (
                i
                for i in range(len(RELEASES))
                if self.schedules[i][MilestoneKind.ENHANCEMENTS_FREEZE].date() > plan.created
            ),
            PLANNING,
        )
        plan.next_release = start + rng.choice([0, 0, 1, 1, 2])

    def _eligible(self, plan: _KepPlan, release: int) -> bool:
        return (
            not plan.finished
            and not plan.provisional
            and plan.created < self.schedules[release][MilestoneKind.ENHANCEMENTS_FREEZE].date()
        )

    def _simulate(self, plans: list[_KepPlan], target: int, rng: random.Random) -> None:
        """Walk the tracked releases in order, opting KEPs in up to a per-release quota (so the total lands
        on `target`) and deciding who ships, following MERGE_RATE."""
        releases = list(TRACKED_RELEASES)
        quotas = _spread(target, [rng.uniform(0.8, 1.2) for _ in releases])
        shortfall = 0
        for release, quota in zip(releases, quotas, strict=True):
            # Early releases may lack candidates; what they could not fill moves to the next release.
            quota += shortfall
            due = [p for p in plans if self._eligible(p, release) and p.next_release <= release]
            rng.shuffle(due)
            chosen, postponed = due[:quota], due[quota:]
            for plan in postponed:
                plan.next_release = release + 1
            if len(chosen) < quota:
                # Pull in KEPs planned for later releases; perma-betas (waiting on purpose) only as a last resort.
                waiting = [p for p in plans if self._eligible(p, release) and p.next_release > release]
                waiting.sort(key=lambda p: (p.kind == "perma" and p.stage_idx == 2, p.next_release, p.number))
                chosen += waiting[: quota - len(chosen)]
            shortfall = quota - len(chosen)
            self._decide(chosen, release, rng)

    def _decide(self, chosen: list[_KepPlan], release: int, rng: random.Random) -> None:
        """Outcomes of one release's attempts (exactly MERGE_RATE of them ship) and each KEP's next step."""
        if release == ACTIVE:
            outcomes = ["removed" if rng.random() < 0.15 else "open" for _ in chosen]
        else:
            # Perma-betas aiming at stable are the last to ship.
            chosen.sort(key=lambda p: p.kind == "perma" and LADDERS[p.kind][p.stage_idx] == TargetStage.STABLE)
            n_done = round(MERGE_RATE[release] * len(chosen))
            outcomes = ["done"] * n_done + [
                "removed" if rng.random() < 0.7 else "deferred" for _ in range(len(chosen) - n_done)
            ]
        for plan, outcome in zip(chosen, outcomes, strict=True):
            ladder = LADDERS[plan.kind]
            stage = ladder[plan.stage_idx]
            if plan.kind == "removal":
                kind = EnhancementType.DEPRECATION if stage == TargetStage.DEPRECATION else EnhancementType.REMOVAL
            elif plan.stage_idx == 0 and not plan.attempts:
                kind = EnhancementType.NET_NEW
            else:
                kind = EnhancementType.MAJOR_CHANGE if rng.random() < 0.1 else EnhancementType.GRADUATING
            plan.attempts.append(_Attempt(release=release, target=stage, type=kind, outcome=outcome))
            if outcome == "done":
                plan.done_at[stage] = 20 + release
                plan.stage_idx += 1
                if plan.stage_idx == len(ladder):
                    plan.finished = True
                elif plan.kind == "perma" and stage == TargetStage.BETA:
                    plan.next_release = release + rng.randint(7, 11)
                else:
                    plan.next_release = release + rng.choice([1, 2, 2, 3] if plan.stage_idx == 1 else [2, 3, 3, 4])
            elif outcome in ("removed", "deferred"):
                plan.next_release = release + (1 if rng.random() < 0.75 else 2)
                if rng.random() < 0.08:
                    plan.finished = plan.abandoned = True

    def _keps(self) -> None:
        rng = _rng(self.seed, "kep-rows")
        self.plans = self._plan_keps()
        keps = []
        for plan in self.plans:
            keps.append(self._kep_row(plan, rng))
        self.keps = self._create(Kep, keps)
        self.kep_of = {plan.number: kep for plan, kep in zip(self.plans, self.keps, strict=True)}

        through = {
            name: getattr(Kep, name).through for name in ("participating_sigs", "authors", "reviewers", "approvers")
        }
        links: dict[str, list] = defaultdict(list)
        gates, approvals = [], []
        gate_names: set[str] = set()
        self.kep_authors: dict[int, list[Person]] = {}
        for plan, kep in zip(self.plans, self.keps, strict=True):
            pool = self.sig_people[plan.sig]
            leads, others = pool[:4], pool[4:]
            owner = self.sigs[plan.sig]
            for sig in rng.sample([s for s in self.sigs if s.pk != owner.pk], rng.choice([0, 0, 1, 1, 2])):
                links["participating_sigs"].append((kep.pk, sig.pk))
            authors = rng.sample(others, rng.randint(1, 3))
            self.kep_authors[kep.pk] = authors
            for field_name, people in (
                ("authors", authors),
                ("reviewers", rng.sample(others, rng.randint(1, 2))),
                ("approvers", rng.sample(leads, rng.randint(1, 2))),
            ):
                for person in people:
                    links[field_name].append((kep.pk, person.pk))
            if plan.provisional:
                continue
            for _ in range(0 if plan.kind == "removal" and rng.random() < 0.5 else rng.choice([1, 1, 1, 2])):
                words = [w for w in plan.title.replace("-", " ").split() if w.isalnum()][:4]
                base = "".join(w[0].upper() + w[1:] for w in words) or f"Kep{plan.number}"
                name, n = base, 2
                while name in gate_names:
                    name, n = f"{base}{n}", n + 1
                gate_names.add(name)
                components = list(SIG_TOPICS[SIGS[plan.sig][0]][1])
                if rng.random() < 0.3:
                    extra = rng.choice(GATE_COMPONENTS_EXTRA)
                    if extra not in components:
                        components.append(extra)
                gates.append(FeatureGate(name=name, kep=kep, components=components))
            stages = list(plan.done_at) + [a.target for a in plan.attempts if a.target not in plan.done_at]
            for stage in dict.fromkeys(stages):
                if stage in PRR_STAGE_OF:
                    approvals.append(
                        PrrApproval(kep=kep, stage=PRR_STAGE_OF[stage], approver=rng.choice(self.prr_approvers))
                    )
        for field_name, rows in links.items():
            target = "sig_id" if field_name == "participating_sigs" else "person_id"
            self._insert(through[field_name], ["kep_id", target], rows, label=f"keps.Kep.{field_name}")
        self._create(FeatureGate, gates)
        self._create(PrrApproval, approvals)

    def _kep_row(self, plan: _KepPlan, rng: random.Random) -> Kep:
        """The kep.yaml a KEP would have at the reference instant, derived from its journey."""
        milestones = {stage: f"1.{minor}" for stage, minor in plan.done_at.items()}
        last = plan.attempts[-1] if plan.attempts else None
        if plan.provisional:
            status = rng.choice(
                [KepStatus.PROVISIONAL] * 4 + [KepStatus.WITHDRAWN, KepStatus.REJECTED, KepStatus.REPLACED]
            )
            stage, latest = "", ""
        else:
            if last and last.outcome == "open":
                milestones[last.target] = f"1.{20 + last.release}"
                stage = KEP_STAGE_OF[last.target]
            elif plan.done_at:
                stage = KEP_STAGE_OF[max(plan.done_at, key=lambda s: LADDERS[plan.kind].index(s))]
            else:
                stage = KEP_STAGE_OF[LADDERS[plan.kind][0]]
            if last:
                latest = f"1.{20 + last.release}"
            elif plan.done_at:
                latest = f"1.{max(plan.done_at.values())}"
            else:
                # Not tracked yet: aims at the release it plans to opt into.
                latest = f"1.{20 + min(plan.next_release, PLANNING)}"
                milestones.setdefault(LADDERS[plan.kind][plan.stage_idx], latest)
            if plan.abandoned:
                status = rng.choice([KepStatus.DEFERRED, KepStatus.WITHDRAWN])
            elif plan.finished:
                status = KepStatus.IMPLEMENTED
            else:
                status = KepStatus.IMPLEMENTABLE
        if last:
            updated = self.schedules[last.release][MilestoneKind.ENHANCEMENTS_FREEZE].date() - datetime.timedelta(
                days=rng.randint(1, 20)
            )
        else:
            updated = plan.created + datetime.timedelta(days=rng.randint(0, 200))
        updated = min(max(updated, plan.created), self.reference.date())
        kep_slug = f"{plan.number}-" + "-".join(
            "".join(ch for ch in word.lower() if ch.isalnum()) for word in plan.title.split()[:6]
        )
        return Kep(
            number=plan.number,
            title=plan.title,
            slug=kep_slug.rstrip("-")[:200],
            owning_sig=self.sigs[plan.sig],
            status=status,
            stage=stage,
            latest_milestone=latest,
            alpha_milestone=milestones.get(TargetStage.ALPHA, ""),
            beta_milestone=milestones.get(TargetStage.BETA, ""),
            stable_milestone=milestones.get(TargetStage.STABLE, ""),
            deprecated_milestone=milestones.get(TargetStage.DEPRECATION, ""),
            creation_date=plan.created,
            last_updated=updated,
            disable_supported=None if plan.created.year < 2020 else rng.random() < 0.85,
            tracking_issue_url=f"https://github.com/kubernetes/enhancements/issues/{plan.number}",
        )

    # -- tracked enhancements and their status history ---------------------------------------------
    def _history(self, attempt: _Attempt, rng: random.Random) -> list[tuple[str, datetime.datetime, str]]:
        """Status changes of one tracked enhancement as (to_status, at, note), in time order.

        The path follows the board's vocabulary through the cycle: at risk → tracked for enhancements
        freeze, at risk → tracked for code freeze (or an exception), docs, and done on release day; a
        removal happens at the freeze it missed, a deferral whenever the SIG decides before code freeze.
        For the active release the path is cut at the reference instant.
        """
        ms = self.schedules[attempt.release]
        start, prr = ms[MilestoneKind.CYCLE_START], ms[MilestoneKind.PRR_FREEZE]
        enh, code = ms[MilestoneKind.ENHANCEMENTS_FREEZE], ms[MilestoneKind.CODE_FREEZE]
        docs, release = ms[MilestoneKind.DOCS_FREEZE], ms[MilestoneKind.RELEASE]
        minutes = datetime.timedelta(minutes=1)
        S = EnhancementStatus

        def between(a, b):
            return a + (b - a) * rng.uniform(0.05, 0.95)

        fail = None
        if attempt.outcome == "removed":
            fail = (
                "enhancements"
                if attempt.release == ACTIVE
                else rng.choices(["enhancements", "code", "docs"], weights=[4, 5, 1])[0]
            )
        events: list[tuple[str, datetime.datetime, str]] = []

        def add(status, at, note=""):
            if events and at <= events[-1][1]:
                at = events[-1][1] + minutes
            events.append((status, at.replace(second=0, microsecond=0), note))

        opt_in = between(start - datetime.timedelta(days=14), start + (enh - start) * 0.6)
        if opt_in < prr and rng.random() < 0.35:
            add(S.AT_RISK_PRR, opt_in, "Opted in.")
            add(S.TRACKED_PRR, between(opt_in, prr))
            add(S.TRACKED_ENHANCEMENTS if fail != "enhancements" else S.AT_RISK_ENHANCEMENTS, between(prr, enh))
        else:
            add(S.AT_RISK_ENHANCEMENTS, opt_in, "Opted in.")
            if fail != "enhancements":
                add(S.TRACKED_ENHANCEMENTS, between(opt_in, enh))
        if fail == "enhancements":
            note = rng.choice(REMOVAL_NOTES["enhancements"])
            if rng.random() < 0.3:
                add(S.EXCEPTION_PENDING, enh + minutes * rng.randint(10, 600), "Exception requested.")
                add(S.REMOVED, enh + datetime.timedelta(days=rng.randint(1, 3)), "Exception not granted. " + note)
            else:
                add(S.REMOVED, enh + minutes * rng.randint(1, 90), note)
        else:
            code_start = enh + (code - enh) * rng.uniform(0.15, 0.45)
            add(S.AT_RISK_CODE, code_start)
            if fail == "code":
                note = rng.choice(REMOVAL_NOTES["code"])
                if rng.random() < 0.3:
                    add(
                        S.EXCEPTION_PENDING, code - datetime.timedelta(hours=rng.randint(2, 48)), "Exception requested."
                    )
                    add(S.REMOVED, code + datetime.timedelta(days=rng.randint(1, 2)), "Exception not granted. " + note)
                else:
                    add(S.REMOVED, code + minutes * rng.randint(1, 120), note)
            else:
                if rng.random() < 0.12:
                    add(
                        S.EXCEPTION_PENDING, code - datetime.timedelta(hours=rng.randint(2, 30)), "Exception requested."
                    )
                    add(S.EXCEPTION_APPROVED, code + datetime.timedelta(hours=rng.randint(6, 40)), "Exception granted.")
                else:
                    add(S.TRACKED_CODE, between(code_start, code))
                docs_start = code + datetime.timedelta(hours=rng.randint(12, 96))
                add(S.AT_RISK_DOCS, docs_start)
                if fail == "docs":
                    add(S.REMOVED, docs + minutes * rng.randint(1, 120), rng.choice(REMOVAL_NOTES["docs"]))
                else:
                    add(S.TRACKED_DOCS, between(docs_start, docs))
                    # Marked done by release day (the milestone's instant), so the board as of release shows it shipped.
                    add(S.DONE, release - datetime.timedelta(hours=rng.randint(2, 30)), "Shipped.")
        if attempt.outcome == "deferred":
            deferred_at = between(opt_in, code)
            events = [event for event in events if event[1] < deferred_at]
            add(S.DEFERRED, deferred_at, f"Deferred by the SIG to v1.{20 + attempt.release + 1}.")
        if attempt.release == ACTIVE:
            events = [event for event in events if event[1] <= self.reference]
        return events

    def _tracked(self) -> None:
        rng = _rng(self.seed, "tracked")
        contacts = {
            release: rng.sample(self.release_team, min(len(self.release_team), 3 + self.nsigs))
            for release in TRACKED_RELEASES
        }
        rows, histories = [], []
        for plan in self.plans:
            kep = self.kep_of[plan.number]
            for attempt in plan.attempts:
                events = self._history(attempt, rng)
                contact = rng.choice(contacts[attempt.release])
                final = events[-1][0]
                notes = events[-1][2] if final in (EnhancementStatus.REMOVED, EnhancementStatus.DEFERRED) else ""
                rows.append(
                    TrackedEnhancement(
                        release=self.releases[attempt.release],
                        kep=kep,
                        sig=self.sigs[plan.sig],
                        type=attempt.type,
                        target_stage=attempt.target,
                        status=final,
                        enhancements_contact=contact,
                        assignee=rng.choice(self.kep_authors[kep.pk]),
                        notes=notes,
                        created_at=events[0][1],
                    )
                )
                histories.append((events, contact.github))
        rows = self._create(TrackedEnhancement, rows)
        changes = []
        for row, (events, author) in zip(rows, histories, strict=True):
            previous = ""
            for status, at, note in events:
                # Generated demo data: its instants are the synthetic board's own, so none is assumed.
                changes.append((row.pk, previous, status, at, None, author, note, "fixture", "", False))
                previous = status
        columns = [
            "tracked_enhancement_id",
            "from_status",
            "to_status",
            "changed_at",
            "changed_by_id",
            "author",
            "note",
            "source",
            "link",
            "assumed",
        ]
        self._insert(EnhancementStatusChange, columns, changes)
        # bulk_create stamps auto_now `updated_at` with the wall clock; make it the last change instead,
        # so the data does not depend on when it was generated (one UPDATE for all rows).
        last_change = EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk")).order_by("-changed_at")
        # The database held no releases before this run, so every tracked enhancement is ours.
        TrackedEnhancement.objects.update(updated_at=Subquery(last_change.values("changed_at")[:1]))
        self.tracked_by_release: dict[tuple[int, int], list[_KepPlan]] = defaultdict(list)
        for plan in self.plans:
            for attempt in plan.attempts:
                self.tracked_by_release[(plan.sig, attempt.release)].append(plan)

    # -- meetings and agenda items -------------------------------------------------------------------
    def _meeting_dates(self, weekday: int, count: int) -> list[datetime.date]:
        """`count` meeting days, newest at or before the reference date, oldest first.

        Weekly on the SIG's day; when ten years of weeks would not be enough (large scales), the SIG
        meets on the following days of the week too (a subproject meeting).
        """
        per_week = max(1, math.ceil(count / 520))
        day = self.reference.date()
        day -= datetime.timedelta(days=(day.weekday() - weekday) % 7)
        dates = []
        while len(dates) < count:
            for extra in range(per_week):
                candidate = day + datetime.timedelta(days=extra)
                if candidate <= self.reference.date() and len(dates) < count:
                    dates.append(candidate)
            day -= datetime.timedelta(days=7)
        return sorted(dates)

    def _meetings(self) -> None:
        rng = _rng(self.seed, "meetings")
        meetings, meeting_sig = [], []
        for sig_index, count in enumerate(_split(self.sizes["meetings"], self.nsigs)):
            slug, name, weekday = SIGS[sig_index]
            size = 1.0 if sig_index == 0 else rng.uniform(0.3, 0.8)
            open_prs = round(180 * size)
            meeting_days = self._meeting_dates(weekday, count)
            span_days = (meeting_days[-1] - meeting_days[0]).days
            for day in meeting_days:
                cancelled = (day.month == 12 and day.day >= 22) or (day.month == 1 and day.day <= 3)
                cancelled = cancelled or rng.random() < 0.03
                figures = {}
                if not cancelled:
                    created = max(0, round(rng.gauss(38, 9) * size))
                    # Merged + closed roughly match created, pulled back towards a backlog that grows
                    # from ~180 to ~300 open PRs over the decade (SIG Node's order of magnitude).
                    backlog = size * (180 + 120 * (day - meeting_days[0]).days / max(1, span_days))
                    outflow = max(0.0, created + 0.08 * (open_prs - backlog) + rng.gauss(0, 4 * size))
                    share = rng.uniform(0.6, 0.8)
                    merged, closed = round(outflow * share), round(outflow * (1 - share))
                    open_prs = max(0, open_prs + created - merged - closed)
                    figures = {
                        "open_prs": open_prs,
                        "prs_created": created,
                        "prs_updated": created + max(0, round(rng.gauss(90, 20) * size)),
                        "prs_closed": closed,
                        "prs_merged": merged,
                    }
                video = "".join(
                    rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") for _ in range(11)
                )
                meetings.append(
                    Meeting(
                        sig=self.sigs[sig_index],
                        date=day,
                        title=f"{name} weekly meeting" + (" (cancelled)" if cancelled else ""),
                        cancelled=cancelled,
                        recording_url="" if cancelled else f"https://www.youtube.com/watch?v={video}",
                        source=self.source,
                        **figures,
                    )
                )
                meeting_sig.append(sig_index)
        meetings = self._create(Meeting, meetings)
        self._agenda(meetings, meeting_sig)

    def _agenda(self, meetings: list[Meeting], meeting_sig: list[int]) -> None:
        rng = _rng(self.seed, "agenda")
        items, item_keps, item_people = [], [], []
        kep_plans_by_sig: dict[int, list[_KepPlan]] = defaultdict(list)
        for plan in self.plans:
            kep_plans_by_sig[plan.sig].append(plan)
        for sig_index, total in enumerate(_split(self.sizes["agenda_items"], self.nsigs)):
            held = [(m, s) for m, s in zip(meetings, meeting_sig, strict=True) if s == sig_index and not m.cancelled]
            counts = _spread(total, [rng.uniform(0.4, 1.6) for _ in held])
            pool = self.sig_people[sig_index]
            for (meeting, _), count in zip(held, counts, strict=True):
                release_index = _release_index_at(meeting.date)
                tracked = self.tracked_by_release.get((sig_index, release_index), [])
                known = [p for p in kep_plans_by_sig[sig_index] if p.created <= meeting.date]
                for order in range(1, count + 1):
                    item, keps, people = self._agenda_item(meeting, order, release_index, tracked, known, pool, rng)
                    items.append(item)
                    item_keps.append(keps)
                    item_people.append(people)
        columns = ["meeting_id", "order", "title", "presenters_text", "body", "links", "related_release_id"]
        ids = self._insert(AgendaItem, columns, items)
        self._insert(
            AgendaItem.keps.through,
            ["agendaitem_id", "kep_id"],
            [(pk, kep.pk) for pk, keps in zip(ids, item_keps, strict=True) for kep in keps],
            label="meetings.AgendaItem.keps",
        )
        self._insert(
            AgendaItem.presenters.through,
            ["agendaitem_id", "person_id"],
            [(pk, person.pk) for pk, people in zip(ids, item_people, strict=True) for person in people],
            label="meetings.AgendaItem.presenters",
        )

    def _agenda_item(self, meeting, order, release_index, tracked, known, pool, rng):
        """One agenda item: a KEP update, a PR review request, release planning, CI or triage."""
        release = self.releases[release_index] if release_index is not None else None
        version = release.version if release else ""
        kind = rng.choices(["kep", "pr", "planning", "ci", "triage"], weights=[40, 30, 10, 12, 8])[0]
        enh = self.schedules[release_index][MilestoneKind.ENHANCEMENTS_FREEZE].date() if release else None
        if kind == "planning" and not (tracked and meeting.date <= enh):
            kind = "kep"
        candidates = tracked or known
        if kind in ("kep", "pr") and not candidates:
            kind = "ci"
        prs = [_pr_number(meeting.date, rng) for _ in range(rng.randint(1, 3))]
        pr_urls = [f"https://github.com/kubernetes/kubernetes/pull/{n}" for n in prs]
        keps: list[Kep] = []
        related = None
        if kind == "kep":
            plan = rng.choice(candidates)
            kep = self.kep_of[plan.number]
            keps = [kep]
            related = release if tracked else None
            stage = next((a.target for a in plan.attempts if a.release == release_index), "")
            aim = f" — {stage} in v{version}" if stage and version else ""
            title = f"[KEP-{plan.number}] {plan.title}{aim}"
            body = (
                f"**KEP-{plan.number}** ([issue](https://github.com/kubernetes/enhancements/issues/{plan.number})): "
                f"{plan.title}.\n\n"
                f"- Implementation PR: {pr_urls[0]}\n"
                + "".join(f"- Follow-up: {url}\n" for url in pr_urls[1:])
                + rng.choice(
                    [
                        "- Needs an approver before the freeze.\n",
                        "- PRR questionnaire updated; waiting for review.\n",
                        "- Test plan discussed; e2e coverage to be added.\n",
                        "- Feedback from the last meeting addressed.\n",
                    ]
                )
            )
            people = rng.sample(self.kep_authors[kep.pk], min(len(self.kep_authors[kep.pk]), rng.randint(1, 2)))
        elif kind == "pr":
            plan = rng.choice(candidates) if rng.random() < 0.5 else None
            keps = [self.kep_of[plan.number]] if plan else []
            title = f"PR review request: {pr_urls[0].rsplit('/', 1)[1]}" + (f" (KEP-{plan.number})" if plan else "")
            body = "".join(f"- {url}\n" for url in pr_urls) + rng.choice(
                ["- Looking for a reviewer.\n", "- Needs /approve from a kubelet approver.\n", "- Rebased; ready.\n"]
            )
            people = rng.sample(pool, rng.randint(1, 2))
        elif kind == "planning":
            chosen = rng.sample(tracked, min(len(tracked), rng.randint(3, 6)))
            keps = [self.kep_of[p.number] for p in chosen]
            related = release
            title = f"v{version} planning: KEPs for the enhancements freeze"
            body = f"KEPs the SIG opts into v{version}:\n\n" + "".join(
                f"- [KEP-{p.number}](https://github.com/kubernetes/enhancements/issues/{p.number}) {p.title}\n"
                for p in chosen
            )
            people = pool[: rng.randint(1, 2)]
        elif kind == "ci":
            topic = rng.choice(AGENDA_CI_TOPICS)
            title = f"CI subproject update: {topic}"
            body = f"- Tracking issue: https://github.com/kubernetes/kubernetes/issues/{prs[0] - rng.randint(1, 400)}\n"
            body += f"- Fix in review: {pr_urls[0]}\n"
            pr_urls = [f"https://github.com/kubernetes/kubernetes/issues/{prs[0]}", *pr_urls]
            people = rng.sample(pool, 1)
        else:
            open_prs = meeting.open_prs or 0
            title = "Triage: PRs and issues waiting on the SIG"
            body = f"{open_prs} open PRs this week. Oldest first:\n\n" + "".join(f"- {url}\n" for url in pr_urls)
            people = rng.sample(pool, 1)
        presenters = ", ".join(f"@{p.github}" for p in people)
        item = (meeting.pk, order, title[:500], presenters, body, pr_urls, related.pk if related else None)
        return item, keps, people

    # -- retrospectives ------------------------------------------------------------------------------
    def _retrospectives(self) -> None:
        rng = _rng(self.seed, "retros")
        retros, retro_meta = [], []
        for sig_index, sig in enumerate(self.owning_sigs):
            for index in range(ACTIVE):
                release = self.releases[index]
                plans = self.tracked_by_release.get((sig_index, index), [])
                outcomes = [a.outcome for p in plans for a in p.attempts if a.release == index]
                tally = {}
                if index < FIRST_TRACKED:
                    tracked = rng.randint(14, 28)
                    merged = round(tracked * rng.uniform(0.5, 0.65))
                    tally = {"recorded_tracked": tracked, "recorded_merged": merged}
                    summary = f"{sig.display_name} v{release.version} retro: {merged} of {tracked} tracked KEPs merged."
                else:
                    summary = (
                        f"{sig.display_name} v{release.version} retro: {outcomes.count('done')} of {len(outcomes)} "
                        f"tracked KEPs shipped, {outcomes.count('removed')} removed, "
                        f"{outcomes.count('deferred')} deferred."
                    )
                retros.append(
                    Retrospective(
                        release=release,
                        sig=sig,
                        date=self.schedules[index][MilestoneKind.RETROSPECTIVE].date(),
                        summary=summary,
                        **tally,
                    )
                )
                retro_meta.append((sig_index, index, plans, outcomes, tally))
        retros = self._create(Retrospective, retros)

        items = []
        counts = _spread(self.sizes["retro_items"], [rng.uniform(0.5, 1.5) for _ in retros])
        for retro, (sig_index, index, plans, outcomes, tally), count in zip(retros, retro_meta, counts, strict=True):
            kep = rng.choice(plans).number if plans else rng.choice(self.plans).number
            values = {
                "v": self.releases[index].version,
                "next": self.releases[index + 1].version,
                "kep": kep,
                "done": outcomes.count("done") if outcomes else tally.get("recorded_merged", 0),
                "removed": outcomes.count("removed"),
                "tracked": len(outcomes),
            }
            for order in range(count):
                category = [RetroCategory.WENT_WELL, RetroCategory.TO_IMPROVE, RetroCategory.ACTION_ITEM][order % 3]
                status, owner, due = "", None, None
                if category == RetroCategory.WENT_WELL:
                    text = rng.choice(WENT_WELL)
                elif category == RetroCategory.TO_IMPROVE:
                    text = rng.choice(TO_IMPROVE if values["tracked"] else TO_IMPROVE[1:])
                else:
                    text = rng.choice(ACTIONS)
                    owner = rng.choice(self.sig_people[sig_index][:8])
                    due = self.releases[index + 1]
                    age = ACTIVE - index  # releases since the retro
                    if age <= 1:
                        status = rng.choice([ActionStatus.OPEN, ActionStatus.IN_PROGRESS])
                    elif age <= 3:
                        status = rng.choice([ActionStatus.OPEN, ActionStatus.IN_PROGRESS, ActionStatus.DONE])
                    else:
                        status = rng.choices(
                            [ActionStatus.DONE, ActionStatus.DROPPED, ActionStatus.IN_PROGRESS], weights=[6, 3, 1]
                        )[0]
                items.append(
                    RetroItem(
                        retrospective=retro,
                        category=category,
                        order=order,
                        text=text.format(**values),
                        owner=owner,
                        status=status,
                        due_release=due,
                    )
                )
        self._create(RetroItem, items)

    # -- design groups --------------------------------------------------------------------------------
    def _design_groups(self) -> None:
        """The coverage overview's groups, plus one roadmap group per additional SIG at larger scales."""
        rng = _rng(self.seed, "design-groups")
        groups = [
            ("Scheduler core", ["sig-scheduling"], CoverageStatus.DETAILED),
            ("Workload and gang scheduling", ["sig-scheduling", "sig-apps"], CoverageStatus.IN_PROGRESS),
            ("Dynamic resource allocation", ["sig-node", "sig-scheduling"], CoverageStatus.DETAILED),
            ("HPA and autoscaling", ["sig-autoscaling"], CoverageStatus.PLANNED),
            ("In-place pod resize", ["sig-node", "sig-autoscaling"], CoverageStatus.DETAILED),
            ("Node runtime, observability and security", ["sig-node"], CoverageStatus.SUPPLEMENTARY),
        ]
        for slug, name, _ in SIGS[4 : self.nsigs]:
            groups.append((f"{name} roadmap", [slug], rng.choice(CoverageStatus.values)))
        sig_by_slug = {sig.slug: sig for sig in self.sigs}
        rows = []
        for name, slugs, coverage in groups:
            slug = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).replace("--", "-").strip("-")
            rows.append(
                DesignGroup(
                    name=name,
                    slug=slug,
                    summary=f"KEPs of {', '.join(slugs)} that are designed and reviewed together.",
                    coverage_status=coverage,
                )
            )
        rows = self._create(DesignGroup, rows)
        sig_through, kep_through = DesignGroup.sigs.through, DesignGroup.keps.through
        sig_links, kep_links = [], []
        for group, (_, slugs, _) in zip(rows, groups, strict=True):
            for slug in slugs:
                sig_links.append(sig_through(designgroup_id=group.pk, sig_id=sig_by_slug[slug].pk))
            owners = [i for i, (s, _, _) in enumerate(SIGS[: self.nsigs]) if s in slugs]
            candidates = [p for p in self.plans if p.sig in owners and not p.provisional] or [
                p for p in self.plans if not p.provisional
            ]
            for plan in rng.sample(candidates, min(len(candidates), rng.randint(3, 8))):
                kep_links.append(kep_through(designgroup_id=group.pk, kep_id=self.kep_of[plan.number].pk))
        self._create(sig_through, sig_links, label="keps.DesignGroup.sigs")
        self._create(kep_through, kep_links, label="keps.DesignGroup.keps")


PHASES = (
    "people",
    "releases",
    "keps",
    "tracked enhancements",
    "meetings",
    "retrospectives",
    "design groups",
)


def _ensure_empty() -> None:
    found = [
        f"{count} {model._meta.verbose_name_plural}"
        for model in (Kep, Release, Meeting)
        if (count := model.objects.count())
    ]
    if found:
        raise SyntheticDataError(
            f"the database is not empty ({', '.join(found)}); generate synthetic data into an empty database only"
        )


@transaction.atomic
def synthetic_data_generate(
    *, scale: float, seed: int, dry_run: bool = False, progress: Callable[[str], None] | None = None
) -> dict:
    """Fill an empty database with deterministic synthetic data; returns what was created.

    `scale` multiplies every size of SIG Node's history (KEPs, meetings, agenda items, tracked
    enhancements, retro items; releases stay 16) and spreads it over `round(scale)` SIGs (1–10).
    `progress` is called with each phase's name (see PHASES) as it finishes. Raises SyntheticDataError
    (and writes nothing) when the database already holds KEPs, releases or meetings. With `dry_run`
    everything is generated and written, then rolled back: the counts say what a real run creates.

    Returns `{"scale", "seed", "reference", "sigs", "counts"}`; counts are rows created per model
    (and per many-to-many table).
    """
    if not (0 < scale <= MAX_SCALE):
        raise SyntheticDataError(f"scale must be greater than 0 and at most {MAX_SCALE}, not {scale:g}")
    _ensure_empty()
    result = _Generator(scale=scale, seed=seed, progress=progress).run()
    if dry_run:
        transaction.set_rollback(True)
    return result
