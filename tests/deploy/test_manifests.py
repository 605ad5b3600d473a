"""The Kubernetes manifests: rendered with `kubectl kustomize` as `kubectl apply -k` would, validated offline against
the Kubernetes schemas that kubernetes-validate ships, and checked for what the deployment relies on."""

import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from tests.conftest import require_service

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
#: The oldest Kubernetes still supported upstream when this was written, and the newest the schemas know.
VERSIONS = ("1.30.0", kubernetes_validate.latest_version())
QUEUES = ("reminders", "github", "stats", "imports", "default")


def render(path: Path) -> list[dict]:
    kubectl = shutil.which("kubectl")
    if not kubectl:
        require_service(False, "kubectl (with its built-in kustomize) is not installed")
    done = subprocess.run([kubectl, "kustomize", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.fixture(scope="module", params=["base", "overlays/small"])
def rendered(request) -> list[dict]:
    return render(DEPLOY / request.param)


def by_kind(docs, kind):
    return [doc for doc in docs if doc["kind"] == kind]


def named(docs, kind, name):
    (doc,) = [d for d in by_kind(docs, kind) if d["metadata"]["name"] == name]
    return doc


def pod_specs(docs):
    for doc in docs:
        if doc["kind"] in ("Deployment", "Job"):
            yield doc["metadata"]["name"], doc["spec"]["template"]["spec"]


def test_every_resource_is_valid_against_the_kubernetes_schemas(rendered):
    for doc in rendered:
        for version in VERSIONS:
            kubernetes_validate.validate(doc, version, strict=True)


def test_the_validation_would_catch_a_mistake(rendered):
    web = yaml.safe_load(yaml.safe_dump(named(rendered, "Deployment", "sigtracker-web")))
    web["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["port"] = {"name": "http"}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(web, VERSIONS[0], strict=True)


def test_web_readiness_asks_the_database_liveness_only_the_process(rendered):
    web = named(rendered, "Deployment", "sigtracker-web")
    (container,) = web["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["web"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert web["spec"]["replicas"] >= 2
    service = named(rendered, "Service", "sigtracker-web")
    assert service["spec"]["selector"].items() <= web["spec"]["template"]["metadata"]["labels"].items()
    pdb = named(rendered, "PodDisruptionBudget", "sigtracker-web")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= web["spec"]["template"]["metadata"]["labels"].items()
    assert pdb["spec"]["minAvailable"] < web["spec"]["replicas"]  # a node can still be drained
    ingress = by_kind(rendered, "Ingress")[0]
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]


def test_one_worker_deployment_per_queue_and_one_beat(rendered):
    workers = {
        d["spec"]["template"]["spec"]["containers"][0]["args"][1]: d
        for d in by_kind(rendered, "Deployment")
        if d["spec"]["template"]["spec"]["containers"][0]["args"][0] == "worker"
    }
    assert sorted(workers) == sorted(QUEUES)
    for queue, worker in workers.items():
        assert worker["spec"]["template"]["spec"]["containers"][0]["args"] == ["worker", queue]
        # Selectors apart, so that no Deployment adopts another's pods.
        assert worker["spec"]["selector"]["matchLabels"]["sigtracker.io/queue"] == queue
    beat = named(rendered, "Deployment", "sigtracker-beat")
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"] == {"type": "Recreate"}
    job = named(rendered, "Job", "sigtracker-migrate")
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["migrate"]


def test_every_pod_is_non_root_read_only_and_bounded(rendered):
    for name, spec in pod_specs(rendered):
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["automountServiceAccountToken"] is False, name
        mounts = {}
        for container in spec["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, name
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["capabilities"]["drop"] == ["ALL"], name
            resources = container["resources"]
            assert {"cpu", "memory"} <= resources["requests"].keys(), name
            assert "memory" in resources["limits"], name
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        # /tmp holds the metrics files, beat's schedule, gunicorn's and Python's temporary files.
        assert "/tmp" in mounts, name
        volume = next(v for v in spec["volumes"] if v["name"] == mounts["/tmp"])
        assert "emptyDir" in volume, name


def settings_read_from_the_environment() -> set[str]:
    pattern = re.compile(r"""(?:os\.environ\.get\(|os\.environ\[|env_bool\(|env_list\()\s*["']([A-Z][A-Z0-9_]+)["']""")
    names = set()
    for module in ("base.py", "prod.py"):
        names |= set(pattern.findall((ROOT / "sigtracker" / "settings" / module).read_text()))
    return names


def test_every_setting_production_reads_is_in_the_config_map_or_the_secret(rendered):
    config = by_kind(rendered, "ConfigMap")
    assert len(config) == 1
    secret_keys = {
        line.split("=", 1)[0]
        for line in (DEPLOY / "base" / "secrets.env.example").read_text().splitlines()
        if line and not line.startswith("#")
    }
    provided = set(config[0]["data"]) | secret_keys
    assert not set(config[0]["data"]) & secret_keys, "a setting is both configuration and secret"
    missing = settings_read_from_the_environment() - provided
    assert not missing, f"settings read from the environment but given to no pod: {sorted(missing)}"
    for name, spec in pod_specs(rendered):
        sources = spec["containers"][0]["envFrom"]
        assert {"configMapRef": {"name": config[0]["metadata"]["name"]}} in sources, name
        assert {"secretRef": {"name": "sigtracker-secrets"}} in sources, name
    # Values that are numbers in the settings must parse as numbers.
    for key in ("EMAIL_PORT", "CONN_MAX_AGE", "SIGTRACKER_METRICS_PORT", "SIGTRACKER_REMINDER_GRACE_MINUTES"):
        int(config[0]["data"][key])


def test_the_small_overlay_changes_only_sizes_and_names():
    base, small = render(DEPLOY / "base"), render(DEPLOY / "overlays" / "small")
    # The ConfigMap's name carries a hash of its content, which the overlay changes.
    assert [d["kind"] for d in base] == [d["kind"] for d in small]
    assert {d["metadata"]["name"] for d in base if d["kind"] != "ConfigMap"} == {
        d["metadata"]["name"] for d in small if d["kind"] != "ConfigMap"
    }
    assert {d["metadata"].get("namespace") for d in small} == {"sigtracker"}
    worker = named(small, "Deployment", "sigtracker-worker-reminders")
    assert worker["spec"]["template"]["spec"]["containers"][0]["env"] == [{"name": "WORKER_CONCURRENCY", "value": "1"}]


def pinned_image(kustomization: Path) -> str:
    """The image an overlay (or the base) says its pods run: its own `images[]` pin, newName:newTag."""
    (pin,) = yaml.safe_load(kustomization.read_text())["images"]
    return f"{pin.get('newName', pin['name'])}:{pin['newTag']}"


@pytest.mark.parametrize("path", ["base", "overlays/small"])
def test_every_pod_template_runs_the_image_its_kustomization_pins(path):
    expected = pinned_image(DEPLOY / path / "kustomization.yaml")
    images = {
        (name, container["image"])
        for name, spec in pod_specs(render(DEPLOY / path))
        for container in spec["containers"] + spec.get("initContainers", [])
    }
    assert (
        len({name for name, _ in images}) == 8
    )  # web, five workers (reminders, github, stats, imports, default), beat, the migration job
    assert {image for _, image in images} == {expected}, sorted(images)


def test_the_small_overlay_pins_a_release_not_latest():
    assert not pinned_image(DEPLOY / "overlays" / "small" / "kustomization.yaml").endswith(":latest")


def test_the_alert_rules_name_metrics_that_exist():
    rules = yaml.safe_load((DEPLOY / "alerts" / "sigtracker.rules.yaml").read_text())
    alerts = {rule["alert"]: rule for group in rules["groups"] for rule in group["rules"]}
    assert {
        "SigtrackerReminderOverdue",
        "SigtrackerGitHubSyncFailing",
        "SigtrackerBeatStale",
        "SigtrackerUpstreamStale",
    } <= (alerts.keys())
    exposed = set()
    for module in (
        "core/metrics.py",
        "releases/metrics.py",
        "github_sync/metrics.py",
        "reminders/metrics.py",
        "upstream/metrics.py",
    ):
        exposed |= set(re.findall(r'"((?:django|sigtracker)_[a-z_]+)"', (ROOT / module).read_text()))
    for name, rule in alerts.items():
        used = set(re.findall(r"\b((?:django|sigtracker)_[a-z_]+?)(?:_total|_count|_sum|_bucket)?\b", rule["expr"]))
        assert used, name
        assert used <= exposed | {n.removesuffix("_total") for n in exposed}, (name, used - exposed)
        assert rule["labels"]["severity"] in {"critical", "warning", "info"}
