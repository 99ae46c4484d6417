"""docker-compose.yml: the services docs/operators/workers.md promises, wired to one database and one Redis."""

import os
import shutil
import subprocess
import sys
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
            [*command, "-f", str(COMPOSE), *profile, "config", "--services"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "SECRET_KEY": OWN_KEY},
        )
        assert result.returncode == 0, result.stderr
        assert {"web", "worker-cpu", "beat", "migrate"} <= set(result.stdout.split())


OWN_KEY = "k4Qz-8vNw_2LmXp7RtYs3BcDf6GhJ9oUiEaVb1Ny"  # a deployment's own, as an operator sets it


def test_every_app_service_takes_the_deployments_own_key_and_none_has_a_default(services):
    """A default key in the file is a key anyone can read: compose must not supply one."""
    app = ("migrate", "web", "worker-cpu", "worker-background", "worker-explore", "worker-gpu", "beat")
    for name in app:
        value = services[name]["environment"]["SECRET_KEY"]
        assert value.startswith("${SECRET_KEY:?") and ":-" not in value, (name, value)


@pytest.mark.skipif(not compose_commands(), reason="neither docker-compose nor `docker compose` is installed")
def test_docker_compose_refuses_to_start_without_a_secret_key():
    for command in compose_commands():
        env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
        result = subprocess.run(
            [*command, "-f", str(COMPOSE), "config"], capture_output=True, text=True, cwd=ROOT, env=env
        )
        assert result.returncode != 0 and "set SECRET_KEY to a long random string" in result.stderr, result.stderr


def test_the_sites_settings_refuse_what_compose_used_to_set_for_a_key():
    """Were an operator to copy the old placeholder in (or any other), the site does not start:
    what compose's services run is the settings with DEBUG=0."""
    for key in ("change-me-in-production", "django-insecure-" + "x1y2z3" * 8, "short-but-mine"):
        result = subprocess.run(
            [sys.executable, "-c", "import django; django.setup()"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={
                **{k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS")},
                "DJANGO_SETTINGS_MODULE": "webplatform.settings",
                "DEBUG": "0",
                "ALLOWED_HOSTS": "arena.example",
                "SECRET_KEY": key,
            },
        )
        assert result.returncode != 0 and "ImproperlyConfigured" in result.stderr, key
        assert "Set SECRET_KEY to a long random string of your own" in result.stderr, key


def test_the_web_service_serves_the_site_under_the_asgi_worker(services):
    """Learners waiting for a verdict hold event streams, not threads: compose's web (the image's
    command) runs gunicorn's ASGI worker on the application that routes the streams, as make run's
    ``asgi`` layout does (devstack/front.py; make run's default puts nginx in front of two servers)."""
    from devstack.front import ASGI_SERVER

    assert "command" not in services["web"]  # the image's own
    command = (ROOT / "Dockerfile").read_text().split("\nCMD ", 1)[1]
    assert all(f'"{part}"' in command for part in ("gunicorn", *ASGI_SERVER))
