"""The exit statuses of the ``slingsim`` command that are not 0 or 1 (what each means: ``cli/__init__.py``)."""
import signal

EXIT_USAGE = 2
EXIT_DEADLOCK = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 128 + getattr(signal, "SIGPIPE", 13)
