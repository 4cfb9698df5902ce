"""``python -m rsmreport`` and the ``rsmreport`` script: the command line
(the binary's own code in the extension), with its arguments, output bytes
and exit codes."""

from __future__ import annotations

import signal
import sys


def main(argv: list[str] | None = None) -> int:
    """Runs the command line on ``argv`` (default: ``sys.argv[1:]``) and
    returns its exit code (the script exits with it)."""
    from . import _rsmreport

    args = sys.argv[1:] if argv is None else list(argv)
    # Ctrl-C ends the command as it ends the binary (Python's handler
    # would wait for the run to finish).
    if argv is None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    return _rsmreport.cli_main(["rsmreport", *args])


if __name__ == "__main__":
    sys.exit(main())
