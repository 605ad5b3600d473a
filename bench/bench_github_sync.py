"""sync_github of one release of 80 tracking issues (timelines of 1-3 pages) from the stand-in GitHub with 50 ms
added to every response, beside the floor: the time the same requests take if every slot is always busy and
nothing else costs anything (budget 1.5× the floor). Then the unchanged re-sync: every request a 304, budget 2 s
and 0 writes (INSERT/UPDATE/DELETE statements counted).

The floor, counted from the stand-in's request log: the milestone list must come first, and the issue lists
must be complete before the sync knows which timelines to read, so their pages are sequential (the two issue
lists, by milestone and by `since`, run side by side: the longer chain counts); the timeline requests then share
8 slots. floor = (milestone pages + longest issue-list chain) × 50 ms + timeline requests ÷ 8 × 50 ms.

The stand-in runs in a child process, as GitHub is another machine: its own work (building and hashing JSON
pages) is not the sync's. It answers with Nagle's algorithm off: http.server writes headers and body apart, and
with Nagle on every keep-alive answer waited ~40 ms for a delayed ACK on top of the 50 ms asked for (measured: one
request at a time took 97 ms each; 55 ms without the stall).

Data, in a scratch database: release 1.40 with its freezes; 80 issues in milestone v1.40, opted in, most tracked,
some removed and demilestoned, with 100-250 events each (comments and labels), plus 10 PRs and unrelated issues.
"""

import datetime

from django.db import connection

from bench.core import Figure, scratch_database, wall_time

LATENCY = 0.05
ISSUES = 80
IN_FLIGHT = 8
D = datetime.timedelta
CYCLE = datetime.datetime(2030, 1, 6, tzinfo=datetime.UTC)
EF = CYCLE + D(days=30)
R = CYCLE + D(days=100)


def _standin():
    from tests.github.standin import StandInGitHub, commented, demilestoned, labeled, milestoned

    server = StandInGitHub(latency=LATENCY)
    server.add_milestone("v1.39", number=1)
    server.add_milestone("v1.40", number=2, due_on=R)
    for n in range(ISSUES):
        number = 6000 + n
        opt = CYCLE + D(days=1, minutes=n)
        events = [
            labeled("sig/node", opt),
            labeled("stage/beta", opt),
            milestoned("v1.40", opt),
            labeled("lead-opted-in", opt),
        ]
        # 1-3 pages of timeline: 100-250 events.
        events += [commented(f"update {i}", opt + D(hours=i), number=number) for i in range(96 + (n % 3) * 70)]
        events.append(labeled("tracked/yes", EF - D(days=1)))
        if n % 5 == 0:
            at = EF + D(days=20)
            events += [labeled("tracked/no", at), demilestoned("v1.40", at)]
        server.add_issue(number, title=f"KEP-{number}: bench", events=events, assignees=[f"owner{n}"])
    for n in range(10):
        server.add_issue(7000 + n, pull_request=True, events=[milestoned("v1.40", CYCLE + D(days=2))])
        server.add_issue(7100 + n, events=[milestoned("v1.39", CYCLE + D(days=2))])
    return server


class _Writes:
    def __init__(self):
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            self.count += 1
        return execute(sql, params, many, context)


class _StandInProcess:
    """The stand-in GitHub served from a child process, as the real one is another machine: its own work
    (building and hashing JSON pages) does not compete with the sync for this process's interpreter lock. The
    child sends its request log when asked."""

    def __init__(self):
        import multiprocessing

        self._context = multiprocessing.get_context("fork")
        self._parent, self._child = self._context.Pipe()
        self.log: list[dict] = []
        self.max_in_flight = 0

    def _serve(self, pipe):
        server = _standin().start()
        pipe.send(server.url)
        while True:
            message = pipe.recv()
            if message == "log":
                pipe.send(([dict(entry) for entry in server.log], server.max_in_flight))
            elif message == "stop":
                server.stop()
                return

    def __enter__(self):
        self._process = self._context.Process(target=self._serve, args=(self._child,), daemon=True)
        self._process.start()
        self.url = self._parent.recv()
        return self

    def refresh(self) -> None:
        self._parent.send("log")
        self.log, self.max_in_flight = self._parent.recv()

    def __exit__(self, *exc):
        self._parent.send("stop")
        self._process.join(timeout=10)


def _floor(log: list[dict]) -> tuple[float, str]:
    milestones = sum(1 for entry in log if entry["path"].endswith("/milestones"))
    lists = [entry for entry in log if entry["path"].endswith("/issues")]
    by_milestone = sum(1 for entry in lists if "milestone=" in entry["query"])
    chain = milestones + max(by_milestone, len(lists) - by_milestone)
    rest = len(log) - milestones - len(lists)
    floor = chain * LATENCY + rest / IN_FLIGHT * LATENCY
    return floor, f"({chain} list pages in sequence + {rest} requests ÷ {IN_FLIGHT}) × {LATENCY * 1000:.0f} ms"


def run() -> list[Figure]:
    from django.conf import settings

    from github_sync.services.github_sync import github_release_sync
    from releases.choices import MilestoneKind
    from releases.models import Milestone, Release, TrackedEnhancement
    from tests.github.standin import TOKEN

    with scratch_database(), _StandInProcess() as server:
        settings.GITHUB_TOKEN, settings.GITHUB_API_URL = TOKEN, server.url
        release = Release.objects.create(version="1.40", cycle_start=CYCLE.date())
        for kind, at in (
            (MilestoneKind.CYCLE_START, CYCLE),
            (MilestoneKind.ENHANCEMENTS_FREEZE, EF),
            (MilestoneKind.RELEASE, R),
        ):
            Milestone.objects.create(release=release, kind=kind, at=at)
        reports = []
        first = wall_time(lambda: reports.append(github_release_sync(version="1.40")))
        report = reports[0]
        assert TrackedEnhancement.objects.filter(release=release).count() == ISSUES, report.summary()
        server.refresh()
        floor, how = _floor(server.log)
        mark = len(server.log)
        writes = _Writes()
        with connection.execute_wrapper(writes):
            again = wall_time(lambda: reports.append(github_release_sync(version="1.40")))
        resync = reports[1]
        server.refresh()
        resync_floor, _ = _floor(server.log[mark:])
        assert resync.not_modified == resync.requests, resync.summary()
        return [
            Figure(
                "github sync, 80 issues, 50 ms per response",
                first,
                "s",
                floor=floor,
                max_ratio=1.5,
                note=f"{report.requests} requests, max {server.max_in_flight} in flight, {report.history_added} "
                f"rows; floor = {how}",
            ),
            Figure(
                "github re-sync, nothing changed",
                again,
                "s",
                floor=resync_floor,
                budget=2.0,
                note=f"{resync.requests} requests, all 304",
            ),
            Figure("github re-sync writes", writes.count, "statements", budget=0),
            *_board_figures(),
        ]


#: The tracking board: a release's board of 140 items (the size of v1.33-v1.36's), read through GraphQL.
BOARD_ITEMS = 140


def _board_figures() -> list[Figure]:
    """The board sync, first read and unchanged re-read, against the GraphQL stand-in with the same 50 ms a
    response. Its pages follow cursors, one after another, so the floor is requests × latency. The re-read
    writes no tracked enhancement, history or exception row: only the heartbeat that opens the next
    observation window (1 statement)."""
    from django.conf import settings

    from github_sync.services.board_sync import board_release_sync
    from releases.models import Release, TrackedEnhancement
    from tests.factories import KepFactory, SigFactory
    from tests.github.graphql_standin import StandInGraphQL
    from tests.github.standin import TOKEN

    statuses = ["Tracked for enhancements freeze", "At risk for code freeze", "Tracked for code freeze", "Deferred"]
    with scratch_database(), StandInGraphQL(latency=LATENCY) as server:
        settings.GITHUB_TOKEN, settings.GITHUB_API_URL = TOKEN, server.url
        release = Release.objects.create(version="1.41", cycle_start=CYCLE.date())
        sig = SigFactory(slug="sig-node")
        server.add_project(300, "v1.41 Enhancements Tracking")
        for n in range(BOARD_ITEMS):
            KepFactory(number=8000 + n, owning_sig=sig)
            server.add_item(
                300,
                issue=8000 + n,
                status=statuses[n % 4],
                stage="beta",
                type="Graduating",
                sig="SIG Node",
                prr_status="Approved",
                enhancements_contact=f"shadow{n % 5}",
            )
            if n % 7 == 0:
                server.status_event(8000 + n, 300, CYCLE + D(days=3), "", statuses[n % 4], "enh-lead")
        reports = []
        first = wall_time(lambda: reports.append(board_release_sync(version="1.41", project=300)))
        assert TrackedEnhancement.objects.filter(release=release).count() == BOARD_ITEMS, reports[0].summary()
        writes = _Writes()
        with connection.execute_wrapper(writes):
            again = wall_time(lambda: reports.append(board_release_sync(version="1.41")))
        one, two = reports
        return [
            Figure(
                f"board sync, {BOARD_ITEMS} items, 50 ms per response",
                first,
                "s",
                floor=one.requests * LATENCY,
                budget=1.5,  # writing 140 rows and their history dominates: 0.47 s measured (5.8 s row by row)
                note=f"{one.requests} GraphQL requests, {one.points} points; floor = requests × 50 ms",
            ),
            Figure(
                "board re-sync, nothing changed",
                again,
                "s",
                floor=two.requests * LATENCY,
                budget=2.0,
                note=f"{two.requests} GraphQL requests, {two.points} points",
            ),
            Figure("board re-sync writes", writes.count, "statements", budget=1, note="the heartbeat only"),
        ]
