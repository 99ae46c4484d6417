"""docker-compose.yml: the services docs/operators/workers.md promises, wired to one database and one Redis."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def services():
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_every_process_of_the_site_is_a_service(services):
    assert set(services) == {
        "postgres",
        "redis",
        "migrate",
        "web",
        "worker-cpu",
        "worker-background",
        "worker-explore",
        "worker-gpu",
        "beat",
    }


def test_long_running_services_have_healthchecks_and_wait_for_their_dependencies(services):
    for name in ("postgres", "redis", "web", "worker-cpu", "worker-background", "worker-explore", "worker-gpu"):
        assert services[name]["healthcheck"]["test"], name
    for name in ("web", "worker-cpu", "worker-background", "worker-explore", "worker-gpu", "beat"):
        depends = services[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully", name
        assert depends["postgres"]["condition"] == depends["redis"]["condition"] == "service_healthy", name
    assert services["migrate"]["restart"] == "no"
    assert "migrate --noinput" in " ".join(services["migrate"]["command"])


def test_workers_consume_their_device_queue_and_the_gpu_one_reserves_a_gpu(services):
    def queues(name):
        command = services[name]["command"]
        return command[command.index("-Q") + 1]

    assert queues("worker-cpu") == "cpu" and queues("worker-gpu") == "gpu,gpu.background"
    assert queues("worker-background") == "cpu.background"  # no learner waits behind background work
    assert queues("worker-explore") == "cpu.explore"  # and no validation or passback behind an exploration
    assert services["worker-gpu"]["profiles"] == ["gpu"] and "profiles" not in services["worker-cpu"]
    [device] = services["worker-gpu"]["deploy"]["resources"]["reservations"]["devices"]
    assert device["capabilities"] == ["gpu"] and device["driver"] == "nvidia"


def test_the_graders_run_with_what_every_sandbox_layer_needs_and_refuse_to_grade_without(services):
    for name in ("worker-cpu", "worker-background", "worker-explore", "worker-gpu"):
        grader = services[name]
        assert grader["user"] == "root" and grader["cap_add"] == ["SYS_ADMIN"], name
        assert "apparmor:unconfined" in grader["security_opt"], name
        assert grader["environment"]["JUDGE_REQUIRE_ALL_LAYERS"] == "1", name
    for name in ("web", "beat", "migrate"):  # no submitted code runs there: the image's unprivileged user
        assert "user" not in services[name] and "cap_add" not in services[name], name


def test_redis_keeps_its_queue_across_a_restart(services):
    command = services["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes" and services["redis"]["volumes"]


def test_all_app_services_share_one_database_and_one_redis(services):
    app = ("migrate", "web", "worker-cpu", "worker-background", "worker-explore", "worker-gpu", "beat")
    assert {services[n]["environment"]["DATABASE_URL"] for n in app} == {"postgres://arena:arena@postgres:5432/arena"}
    assert {services[n]["environment"]["REDIS_URL"] for n in app} == {"redis://redis:6379/0"}


def compose_commands():
    found = []
    if shutil.which("docker-compose"):
        found.append(["docker-compose"])
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        found.append(["docker", "compose"])
    return found


@pytest.mark.skipif(
    not compose_commands(),
    reason="neither docker-compose nor `docker compose` is installed (make system-deps-test installs docker-compose)",
)
@pytest.mark.parametrize("profile", [[], ["--profile", "gpu"]], ids=["default", "gpu-profile"])
def test_docker_compose_accepts_the_file(profile):
    for command in compose_commands():
        result = subprocess.run(
            [*command, "-f", str(COMPOSE), *profile, "config", "--services"], capture_output=True, text=True, cwd=ROOT
        )
        assert result.returncode == 0, result.stderr
        assert {"web", "worker-cpu", "beat", "migrate"} <= set(result.stdout.split())


def test_the_web_service_serves_the_site_under_the_asgi_worker(services):
    """Learners waiting for a verdict hold event streams, not threads: compose's web (the image's
    command) runs gunicorn's ASGI worker on the application that routes the streams, as make run's
    ``asgi`` layout does (devstack/front.py; make run's default puts nginx in front of two servers)."""
    from devstack.front import ASGI_SERVER

    assert "command" not in services["web"]  # the image's own
    command = (ROOT / "Dockerfile").read_text().split("\nCMD ", 1)[1]
    assert all(f'"{part}"' in command for part in ("gunicorn", *ASGI_SERVER))
