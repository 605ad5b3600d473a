"""What the synthetic data is made of: SIGs, releases, sizes per scale, topics, names, and the wordings of
notes, retros and agenda items."""

import datetime

from keps.choices import KepStage, PrrStage
from releases.choices import (
    MilestoneKind,
    TargetStage,
)
from releases.rules import PACIFIC

UTC = datetime.UTC
PT = PACIFIC  # the release team's Pacific time (releases.rules)
BATCH = 1000
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
