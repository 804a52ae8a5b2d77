"""The site builds the website tests read, started as the test session begins and shared by its processes.

A cold build of the site takes minutes; started in the background at the session's start it runs while
the other tests do. With pytest-xdist every worker asks for it and the first one starts it: the build
runs in `python -m tests.website.background_build STATUS CWD -- COMMAND...`, which writes the command's
exit status and output to STATUS when it ends; any worker that needs the site waits for that file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.base.atomic import write_text

POLL_S = 0.5
ROOT = Path(__file__).resolve().parents[2]


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class SharedBuild:
    """One build into `folder / "site"`, whichever test process starts it, awaited by any of them."""

    def __init__(self, folder: Path, command: list[str], cwd: Path, env: dict[str, str]):
        self.folder, self.command, self.cwd, self.env = folder, command, cwd, env
        self.site = folder / "site"
        self.status = folder / "status.json"
        self.pid_file = folder / "pid"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the build, unless another process of this session already has."""
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            os.close(os.open(self.folder / "started", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        command = [sys.executable, "-m", "tests.website.background_build", str(self.status), str(self.cwd), "--",
                   *self.command]
        self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, start_new_session=True,
                                        stdin=subprocess.DEVNULL)
        write_text(self.pid_file, str(self.process.pid))

    def wait(self) -> Path:
        """The built site; an AssertionError with the build's output when it failed or died."""
        while not self.status.exists():
            if self.pid_file.exists() and not running(int(self.pid_file.read_text())) and not self.status.exists():
                raise AssertionError(f"the build of {self.site} ended without a status: {' '.join(self.command[:4])}")
            time.sleep(POLL_S)
        done = json.loads(self.status.read_text(encoding="utf-8"))
        if done["returncode"] != 0:
            raise AssertionError(f"{' '.join(self.command[:4])} failed ({done['returncode']}):\n"
                                 f"{done['stdout']}\n{done['stderr']}")
        return self.site

    def stop(self) -> None:
        """In the process that started it: let it finish (another worker may wait on it); killed on Ctrl-C."""
        if self.process is None:
            return
        try:
            self.process.wait()
        except BaseException:
            os.killpg(self.process.pid, signal.SIGKILL)
            raise


def main(argv: list[str]) -> int:
    """`STATUS CWD -- COMMAND...`: run COMMAND in CWD, then write its exit status and output to STATUS."""
    status, cwd, separator, *command = argv
    if separator != "--" or not command:
        raise SystemExit("usage: python -m tests.website.background_build STATUS CWD -- COMMAND...")
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    write_text(Path(status), json.dumps({"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
