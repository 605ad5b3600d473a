import pytest

from tests.keps.git_repos import kep_yaml
from tests.upstream.remotes import Remote

KEP_A = "keps/sig-node/1287-in-place-update-pod-resources/kep.yaml"
KEP_B = "keps/sig-node/2000-swap/kep.yaml"


@pytest.fixture
def remotes(tmp_path, settings, upstream_dir):
    """The three sources as local bare repositories with a first commit each, and settings pointing at them."""
    enhancements = Remote(tmp_path / "enhancements")
    enhancements.commit(
        {
            KEP_A: kep_yaml(1287, latest="1.27", milestones={"alpha": "1.27"}),
            KEP_B: kep_yaml(2000, latest="1.28", milestones={"alpha": "1.28"}),
            "README.md": "enhancements\n",
        }
    )
    sig_release = Remote(tmp_path / "sig-release")
    sig_release.commit(
        {"releases/release-1.27/README.md": (upstream_dir / "sig-release/releases/release-1.27/README.md").read_text()}
    )
    community = Remote(tmp_path / "community")
    community.commit(
        {
            "sigs.yaml": (upstream_dir / "community/sigs.yaml").read_text(),
            "sig-node/archive/meeting-notes-2022.md": (
                upstream_dir / "community/sig-node/archive/meeting-notes-2022.md"
            ).read_text(),
            "sig-node/README.md": "sig-node\n",
        }
    )
    settings.SIGTRACKER_UPSTREAM_ALLOW_FILE = True
    settings.SIGTRACKER_UPSTREAM_DIR = str(tmp_path / "clones")
    settings.SIGTRACKER_UPSTREAM_ENHANCEMENTS = enhancements.url
    settings.SIGTRACKER_UPSTREAM_SIG_RELEASE = sig_release.url
    settings.SIGTRACKER_UPSTREAM_COMMUNITY = community.url
    settings.SIGTRACKER_UPSTREAM_NOTES_SIGS = ["sig-node"]
    return {"enhancements": enhancements, "sig-release": sig_release, "community": community}
