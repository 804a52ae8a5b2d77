"""Entry point of a child run: `python -m engine.run.child MODULE FUNCTION`."""

from __future__ import annotations

import sys

from engine.run.runner import CHILD_ERROR_MARK, _describe, call_module


def main(argv: list[str]) -> int:
    module, call = argv
    try:
        call_module(module, call)
    except BaseException as error:  # noqa: BLE001 - sys.exit is a failure too
        sys.stdout.flush()
        sys.stderr.write(CHILD_ERROR_MARK + _describe(error))
        sys.stderr.flush()
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
