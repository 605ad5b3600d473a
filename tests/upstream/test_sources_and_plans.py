"""The URL rule and the mapping of changed paths to imports: pure, no database, no git."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from upstream.plans import ImportStep, import_plan
from upstream.sources import UrlRefused, public_url, url_check

SETTING = "SIGTRACKER_UPSTREAM_ENHANCEMENTS"


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/kubernetes/enhancements.git",
        "https://user:token@git.example.com:8443/mirror/enhancements",
        "ssh://git@github.com/kubernetes/enhancements.git",
        "git@github.com:kubernetes/enhancements.git",
    ],
)
def test_accepted_urls(url):
    assert url_check(url, setting=SETTING, allow_file=False) == url


@pytest.mark.parametrize(
    "url",
    [
        "--upload-pack=touch /tmp/x",
        "-oProxyCommand=x",
        "ext::sh -c touch% /tmp/x",
        "ext::touch",
        "fd::3",
        "http://github.com/kubernetes/enhancements",
        "ssh://-oProxyCommand=touch/x",
        "git@-oProxyCommand=x:path",
        "git@host:-path",
        "/srv/git/enhancements",
        "../enhancements",
        "https://github.com/a b",
        "https://github.com/a\nb",
        "file:///srv/git/enhancements",
        "",
    ],
)
def test_refused_urls_name_the_setting(url):
    with pytest.raises(UrlRefused, match=f"^{SETTING}: "):
        url_check(url, setting=SETTING, allow_file=False)


def test_file_urls_only_when_allowed():
    assert url_check("file:///srv/git/e.git", setting=SETTING, allow_file=True) == "file:///srv/git/e.git"
    with pytest.raises(UrlRefused, match="SIGTRACKER_UPSTREAM_ALLOW_FILE"):
        url_check("file:///srv/git/e.git", setting=SETTING, allow_file=False)


@given(st.text(max_size=60))
def test_nothing_option_shaped_is_ever_accepted(text):
    for url in ("-" + text, " " + text):
        with pytest.raises(UrlRefused):
            url_check(url, setting=SETTING, allow_file=True)


def test_public_url_drops_credentials():
    assert public_url("https://bot:tok@github.com/k/e.git") == "https://github.com/k/e.git"
    assert public_url("git@github.com:k/e.git") == "git@github.com:k/e.git"


def test_enhancements_paths():
    assert import_plan("enhancements", ["README.md", "keps/NNNN-kep-template/README.md"]) == []
    prr = "keps/prod-readiness/sig-node/1287.yaml"
    assert import_plan("enhancements", [prr]) == [ImportStep("keps", (prr,))]
    assert import_plan("enhancements", ["keps/sig-node/1287-x/kep.yaml"]) == [
        ImportStep("kep-history"),  # first: it reads git's objects while the working tree is checked out
        ImportStep("keps", ("keps/sig-node/1287-x/kep.yaml",)),
    ]
    assert import_plan("enhancements", ["keps/sig-node/1287-x/kep.yaml"], full=True)[1] == ImportStep("keps")


def test_sig_release_paths_in_version_order():
    paths = [
        "releases/release-1.9/README.md",
        "releases/release-1.10/exceptions.yaml",
        "releases/release-1.10/release-notes/draft.md",
        "releases/release-1.11/retro.md",
        "releases/release_phases.md",
        "release-team/role-handbooks/x.md",
    ]
    assert import_plan("sig-release", paths) == [
        ImportStep("releases", ("releases/release-1.9", "releases/release-1.10/exceptions.yaml"))
    ]
    assert import_plan("sig-release", paths, full=True) == [
        ImportStep("releases", ("releases/release-1.9", "releases/release-1.10"))
    ]


def test_only_release_files_no_other_file_reads_are_imported_alone():
    def plan(*names):
        return import_plan("sig-release", [f"releases/release-1.35/{name}" for name in names])[0].paths

    assert plan("exceptions.yaml") == ("releases/release-1.35/exceptions.yaml",)
    assert plan("release_team.md", "exception.yaml") == (
        "releases/release-1.35/exception.yaml",
        "releases/release-1.35/release_team.md",
    )
    # The schedule dates the exception requests, the feature sheet makes the rows they link to: the whole folder.
    assert (
        plan("README.md") == plan("features.csv") == plan("exceptions.yaml", "README.md") == ("releases/release-1.35",)
    )


def test_community_paths():
    paths = [
        "sigs.yaml",
        "sig-node/archive/meeting-notes-2024.md",
        "sig-node/archive/ci-subgroup-notes-2024.md",
        "sig-node/README.md",
        "sig-apps/archive/meeting-notes-2024.md",
    ]
    assert import_plan("community", paths, notes_sigs=["sig-node"]) == [
        ImportStep("sigs", ("sigs.yaml",)),
        ImportStep("notes", ("sig-node/archive/meeting-notes-2024.md",), sig="sig-node"),
    ]
