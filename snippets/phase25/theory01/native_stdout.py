"""Capture what C and C++ code writes to file descriptor 1, which Python's redirect_stdout cannot see."""

import ctypes
import os
import sys
import tempfile


def capture_fd1(fn, *args) -> str:
    """Run fn(*args) with fd 1 pointed at a temporary file; return the text native code wrote there."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        try:
            fn(*args)
            libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode(errors="replace")
