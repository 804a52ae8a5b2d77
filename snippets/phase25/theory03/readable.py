"""Make torch.compile's artifacts printable: paths without the machine's prefixes, logs captured as text."""

import contextlib
import logging
import re
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[3]
SITE_PACKAGES = (Path(torch.__file__).parent.parent, Path(torch.__file__).resolve().parent.parent)
OBJECT_ID = re.compile(r"(___check_(?:obj|type)_id\([^,]+, )\d+\)")


def tidy(text: str) -> str:
    """Paths relative to the project or to site-packages, object ids (addresses) replaced by <id>."""
    for prefix in (*SITE_PACKAGES, ROOT):
        text = text.replace(f"{prefix}/", "")
    return OBJECT_ID.sub(r"\1<id>)", text)


def readable(gm: torch.fx.GraphModule) -> str:
    """An FX graph as Python with shapes as comments (no strides, no devices), paths tidied."""
    return tidy(gm.print_readable(print_output=False, include_stride=False, include_device=False)).strip()


class _Collect(logging.Handler):
    def __init__(self, artifacts: tuple[str, ...], records: list[str]):
        super().__init__(logging.DEBUG)
        self.suffixes = tuple(f".__{name}" for name in artifacts)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.endswith(self.suffixes):
            self.records.append(record.getMessage())


@contextlib.contextmanager
def captured_logs(*artifacts: str):
    """Turn on torch._logging artifacts (as TORCH_LOGS would) and collect their messages in a list
    instead of printing them, without the timestamp/PID prefix each stderr line would carry."""
    records: list[str] = []
    torch._logging.set_logs(**{name: True for name in artifacts})
    loggers = [logger for name, logger in logging.root.manager.loggerDict.items()
               if isinstance(logger, logging.Logger) and name.split(".")[0] == "torch" and logger.handlers]
    saved = {logger: logger.handlers[:] for logger in loggers}
    for logger in loggers:
        logger.handlers = [_Collect(artifacts, records)]
    try:
        yield records
    finally:
        for logger, handlers in saved.items():
            logger.handlers = handlers
        torch._logging.set_logs()
