"""upstream.repository: a clone fetched hour after hour keeps each fetch's pack whole (no loose file per object),
and git's own maintenance gathers the packs when they pile up."""

from upstream.repository import repository_fetch

from .remotes import Remote


def test_each_fetch_keeps_its_pack_and_the_packs_are_gathered_when_they_pile_up(tmp_path, settings):
    settings.SIGTRACKER_UPSTREAM_ALLOW_FILE = True
    remote = Remote(tmp_path / "remote")
    checkout = tmp_path / "clone"
    objects = checkout / ".git" / "objects"

    def packs() -> int:
        return len(list((objects / "pack").glob("*.pack")))

    remote.commit({"a.txt": "0\n"})
    repository_fetch(checkout=checkout, url=remote.url)
    for hour in range(1, 4):
        remote.commit({"a.txt": f"{hour}\n"})
        repository_fetch(checkout=checkout, url=remote.url)
    assert packs() == 4 and not list(objects.glob("[0-9a-f][0-9a-f]/*"))  # no loose object file

    for hour in range(4, 52):  # past git's 50 packs: its automatic maintenance repacks
        remote.commit({"a.txt": f"{hour}\n"})
        repository_fetch(checkout=checkout, url=remote.url)
    assert packs() <= 2
