"""The deploy material is checked, not just written: no cluster and no Docker engine needed.

Kubernetes manifests validate (strictly: unknown fields fail) against the Kubernetes schemas of
a pinned version with kubernetes-validate, KEDA ScaledObjects against the vendored KEDA CRD
schema, docker-compose.yml against the Compose specification's schema (check-jsonschema), the
NATS configs with `nats-server -t`, and every PP_* variable named anywhere in the material is a
real setting. What this cannot show (a real scheduler, KEDA polling a live NATS, an image build)
is listed in deploy/k8s/README.md.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from shared.actions import action_names
from shared.config import Settings
from shared.runtime.embedded import nats_server_binary
from shared.runtime.nats_cluster import ClusterNode, render_config
from tests.conftest import ROOT

K8S_VERSION = "1.35.0"
DEPLOY = ROOT / "deploy"
BASE = DEPLOY / "k8s" / "base"
OVERLAY = DEPLOY / "k8s" / "overlays" / "example"
KEDA_SCHEMA = DEPLOY / "schemas" / "keda" / "scaledobject-v1alpha1.json"
COMPOSE_SCHEMA = DEPLOY / "schemas" / "compose" / "compose-spec.json"


def documents(path: Path) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def base_documents() -> list[dict]:
    """Every resource the base kustomization lists, in order."""
    kustomization = yaml.safe_load((BASE / "kustomization.yaml").read_text())
    return [doc for name in kustomization["resources"] for doc in documents(BASE / name)]


def check_jsonschema(schema: Path, instance: Path) -> subprocess.CompletedProcess:
    cli = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(schema), str(instance)]
    return subprocess.run(cli, capture_output=True, text=True)


def validate_k8s(doc: dict) -> None:
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_base_lists_every_manifest_file() -> None:
    listed = set(yaml.safe_load((BASE / "kustomization.yaml").read_text())["resources"])
    on_disk = {str(p.relative_to(BASE)) for p in BASE.rglob("*.yaml") if p.name != "kustomization.yaml"}
    assert listed == on_disk


@pytest.mark.parametrize(
    "doc",
    [doc for doc in base_documents() if doc["kind"] != "ScaledObject"],  # KEDA's: checked against its CRD below
    ids=lambda d: f"{d['kind']}/{d['metadata']['name']}",
)
def test_builtin_resources_validate_against_kubernetes(doc: dict) -> None:
    validate_k8s(doc)


@pytest.mark.parametrize("path", sorted((BASE / "scaling").glob("*.yaml")), ids=lambda p: p.stem)
def test_scaled_objects_validate_against_the_keda_crd(path: Path) -> None:
    result = check_jsonschema(KEDA_SCHEMA, path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_keda_schema_rejects_a_misspelt_field(tmp_path: Path) -> None:
    """The check has teeth: the API server would silently prune this typo."""
    doc = documents(BASE / "scaling" / "action-inquire.yaml")[0]
    doc["spec"]["cooldownPeriods"] = doc["spec"].pop("cooldownPeriod")
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc))
    assert check_jsonschema(KEDA_SCHEMA, bad).returncode != 0


def test_kubernetes_schema_rejects_a_misspelt_field() -> None:
    doc = documents(BASE / "workers" / "ingest.yaml")[0]
    doc["spec"]["template"]["spec"]["terminationGracePeriod"] = 75
    with pytest.raises(kubernetes_validate.ValidationError):
        validate_k8s(doc)


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl (for `kubectl kustomize`) is not installed")
@pytest.mark.parametrize("directory", [BASE, OVERLAY], ids=["base", "overlay"])
def test_kustomize_renders_and_every_rendered_resource_validates(directory: Path, tmp_path: Path) -> None:
    rendered = subprocess.run(["kubectl", "kustomize", str(directory)], capture_output=True, text=True, check=True)
    docs = [doc for doc in yaml.safe_load_all(rendered.stdout) if doc]
    assert len(docs) >= 28
    for i, doc in enumerate(docs):
        if doc["kind"] == "ScaledObject":
            path = tmp_path / f"{i}.yaml"
            path.write_text(yaml.safe_dump(doc))
            result = check_jsonschema(KEDA_SCHEMA, path)
            assert result.returncode == 0, result.stdout
        else:
            validate_k8s(doc)


def by_kind(kind: str) -> dict[str, dict]:
    return {doc["metadata"]["name"]: doc for doc in base_documents() if doc["kind"] == kind}


def test_every_action_has_a_deployment_and_a_scaler_on_its_durable_consumer() -> None:
    deployments, scalers = by_kind("Deployment"), by_kind("ScaledObject")
    for action in action_names():
        name = f"policypal-action-{action}"
        assert deployments[name]["spec"]["template"]["spec"]["containers"][0]["command"][-1] == action
        trigger = scalers[name]["spec"]["triggers"][0]
        assert trigger["type"] == "nats-jetstream"
        assert trigger["metadata"]["consumer"] == f"action-{action}"
        assert trigger["metadata"]["stream"] == "PP_COMMANDS"
    consumers = {t["metadata"]["consumer"] for s in scalers.values() for t in s["spec"]["triggers"]}
    assert {"ingest", "resolver-chat", "resolver-resume"} <= consumers


def test_durable_names_in_scalers_are_the_ones_the_workers_use() -> None:
    """The ScaledObjects name consumers the code creates (the with_health hooks list them)."""
    code = "\n".join(p.read_text() for p in (ROOT / "services").rglob("worker.py"))
    used = set(re.findall(r'durable=f?"([a-z{}-]+)"', code))
    used |= {d for group in re.findall(r"durables=\[([^\]]*)\]", code) for d in re.findall(r'"([a-z-]+)"', group)}
    expanded = {d.replace("{action}", a) for d in used for a in action_names()}
    consumers = {t["metadata"]["consumer"] for s in by_kind("ScaledObject").values() for t in s["spec"]["triggers"]}
    assert consumers <= expanded


def test_grace_period_and_cool_down_cover_the_drain() -> None:
    """A worker drains for at most PP_ACK_WAIT_S (then the command is redelivered anyway)."""
    ack_wait = float(by_kind("ConfigMap")["policypal-config"]["data"]["PP_ACK_WAIT_S"])
    for name, deployment in by_kind("Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["terminationGracePeriodSeconds"] >= ack_wait, name
        container = pod["containers"][0]
        assert {"livenessProbe", "readinessProbe"} <= set(container), name
    for name, scaler in by_kind("ScaledObject").items():
        assert scaler["spec"]["cooldownPeriod"] >= ack_wait, name
        behavior = scaler["spec"]["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
        assert behavior["scaleDown"]["stabilizationWindowSeconds"] >= ack_wait, name
    assert set(by_kind("PodDisruptionBudget")) == set(by_kind("Deployment"))


def test_compose_validates_against_the_compose_specification() -> None:
    result = check_jsonschema(COMPOSE_SCHEMA, ROOT / "docker-compose.yml")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", sorted((DEPLOY / "nats").glob("*.conf")), ids=lambda p: p.stem)
def test_nats_configs_pass_nats_server_t(path: Path) -> None:
    result = subprocess.run([nats_server_binary(), "-t", "-c", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_embedded_cluster_config_passes_nats_server_t(tmp_path: Path) -> None:
    nodes = [ClusterNode(f"nats-{i}", 14220 + i, 16220 + i, 18220 + i, str(tmp_path / f"n{i}.conf")) for i in (1, 2, 3)]
    Path(nodes[0].config).write_text(render_config(nodes[0], nodes, tmp_path / "store"))
    result = subprocess.run([nats_server_binary(), "-t", "-c", nodes[0].config], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# Where a variable is set or read: a mapping key, `name:`/`key:` of env and secretKeyRef entries,
# `${PP_…}` interpolation, `ENV`/`ARG` lines. (Stream names such as PP_COMMANDS are not variables.)
VARIABLE_USES = re.compile(r"(?:^\s*(?:- )?|name: |key: |\$\{|ENV |ARG )(PP_[A-Z0-9_]+)\b", re.MULTILINE)


def pp_variables(text: str) -> set[str]:
    return set(VARIABLE_USES.findall(text))


def test_every_pp_variable_in_the_deploy_material_is_a_setting() -> None:
    files = [ROOT / "docker-compose.yml", *DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("Dockerfile*")]
    named = set().union(*(pp_variables(p.read_text()) for p in files))
    assert {"PP_NATS_URL", "PP_HEALTH_PORT", "PP_SECRET_KEY", "PP_ACK_WAIT_S"} <= named  # the scan finds them
    settings = {f"PP_{name.upper()}" for name in Settings.model_fields}
    for field in Settings.model_fields.values():
        choices = getattr(field.validation_alias, "choices", None) or []
        settings |= {c.upper() for c in choices if isinstance(c, str)}
    assert len(named) >= 10
    assert named - settings == set()


def test_app_image_services_import_without_torch_transformers_or_onnx() -> None:
    """The `app` image uninstalls them (deploy/Dockerfile): every service it runs must start without."""
    probe = (
        "import sys\n"
        "for m in ('torch', 'transformers', 'onnx'): sys.modules[m] = None\n"
        "import services.gateway.app, services.ingest.worker, services.resolver.worker\n"
        "import services.retrieval.worker, services.actions.worker, shared.db.migrate, policypal.cli\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr


def dockerfile_stages() -> dict[str, list[str]]:
    """Instruction lines of each stage of deploy/Dockerfile, by stage name."""
    stages: dict[str, list[str]] = {}
    current = None
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        match = re.match(r"FROM \S+ AS (\S+)", line)
        if match:
            current = match.group(1)
            stages[current] = [line]
        elif current and line and not line.startswith("#"):
            stages[current].append(line)
    return stages


def test_dockerfile_final_images_are_non_root_without_compilers() -> None:
    stages = dockerfile_stages()
    assert list(stages)[-1] == "app"  # the default target
    for name in ("app", "embedder"):
        body = "\n".join(stages[name] + stages["runtime"])
        assert "USER 10001:10001" in stages[name], name
        assert not re.search(r"\b(gcc|g\+\+|build-essential|clang|make)\b", body), name
        assert "FROM runtime AS" in stages[name][0]
    assert "pip uninstall -y torch transformers onnx" in "\n".join(stages["app-venv"])
    assert "COPY --from=app-venv /venv /venv" in stages["app"]
    assert "COPY --from=build /venv /venv" in stages["embedder"]


def test_kubernetes_runs_compose_images_and_settings() -> None:
    """The manifests run what docker-compose.yml runs (the images deploy/images.sh builds, tested
    by tests/e2e/test_compose.py): same image names and tags, same shared settings. Only the
    addresses differ (NATS and Postgres are services of the cluster, not of the project)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    images = {
        yaml_image["name"]: f"{yaml_image['newName']}:{yaml_image['newTag']}"
        for yaml_image in yaml.safe_load((BASE / "kustomization.yaml").read_text())["images"]
    }
    default_tag = re.compile(r"\$\{POLICYPAL_IMAGE_TAG:-([^}]+)\}")
    assert images["policypal"] == default_tag.sub(r"\1", services["gateway"]["image"])
    assert images["policypal-embedder"] == default_tag.sub(r"\1", services["embedder"]["image"])
    config = by_kind("ConfigMap")["policypal-config"]["data"]
    compose_env = compose["x-app-env"]
    shared = set(config) & set(compose_env)
    assert {"PP_STREAM_REPLICAS", "PP_DB_APP_ROLE", "PP_HEALTH_PORT", "PP_ACK_WAIT_S"} <= shared
    assert {k: config[k] for k in shared if k != "PP_NATS_URL"} == {
        k: str(compose_env[k]) for k in shared if k != "PP_NATS_URL"
    }
    assert len(config["PP_NATS_URL"].split(",")) == len(compose_env["PP_NATS_URL"].split(",")) == 3
