"""`make test` installs what the machine lacks (scripts/system_packages.sh), or stops at once
with one line saying what to install: tried on a made-up machine, whatever this one holds.

Each case runs the script with a PATH holding only stand-ins: `java`, `id` (to be root or
not), `apt-get` and `sudo` that record how they were called.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.repo import LAYOUT

SCRIPT = LAYOUT.scripts / "system_packages.sh"


def _machine(tmp_path: Path, *, chromium: bool, java: bool, uid: int, apt: bool,
             sudo: bool) -> tuple[dict[str, str], Path]:
    """The environment of a made-up machine, and the file its apt-get logs calls to."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    tools = {"id": f"echo {uid}", "env": 'exec /usr/bin/env "$@"'}
    if java:
        tools["java"] = "true"
    if apt:
        tools["apt-get"] = f'echo "apt-get $*" >> {log}'
    if sudo:
        tools["sudo"] = f'[ "$1" = -n ] && shift; [ "$*" = true ] || echo "sudo" >> {log}; "$@"'
    for name, body in tools.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/bash\n{body}\n")
        tool.chmod(0o755)
    browser = tmp_path / "chromium"
    if chromium:
        browser.write_text("#!/bin/sh\n")
        browser.chmod(0o755)
    environment = {"PATH": str(bin_dir), "RIDGEPOINT_CHROMIUM": str(browser),
                   "HOME": os.environ.get("HOME", "/root")}
    return environment, log


def _run(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/bash", str(SCRIPT)], env=environment, capture_output=True,
                          text=True, check=False)


def test_a_machine_that_has_both_is_left_alone_in_silence(tmp_path: Path) -> None:
    environment, log = _machine(tmp_path, chromium=True, java=True, uid=1000, apt=True,
                                sudo=False)
    done = _run(environment)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not log.exists()


def test_as_root_the_missing_packages_are_installed_with_apt(tmp_path: Path) -> None:
    environment, log = _machine(tmp_path, chromium=False, java=False, uid=0, apt=True,
                                sudo=False)
    done = _run(environment)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == [
        "apt-get update -qq", "apt-get install -y -qq chromium default-jre-headless"]


def test_through_password_less_sudo_only_what_is_missing_is_installed(tmp_path: Path) -> None:
    environment, log = _machine(tmp_path, chromium=False, java=True, uid=1000, apt=True,
                                sudo=True)
    done = _run(environment)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == [
        "sudo", "apt-get update -qq", "sudo", "apt-get install -y -qq chromium"]


def test_without_a_way_to_install_it_says_what_to_install_in_one_line(tmp_path: Path) -> None:
    for apt, expected in ((True, "run 'sudo apt-get install chromium default-jre-headless'"),
                          (False, "this machine has no apt-get")):
        case = tmp_path / str(apt)
        case.mkdir()
        environment, log = _machine(case, chromium=False, java=False, uid=1000, apt=apt,
                                    sudo=False)
        done = _run(environment)
        assert done.returncode == 1 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and expected in done.stderr
        assert not log.exists()
