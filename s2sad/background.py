"""Compiling a derivative off the caller's path.

With jit="auto" (the default) the first calls of a derivative run its
generated source as Python, which exists milliseconds after the call,
while a forked process compiles the same source with numba into the
on-disk cache; the calls switch to the compiled code when it is loaded
from there. The numbers are the same either way: both run one source.

A process, not a thread: numba's compiler holds the GIL for most of its
seconds, so a compiling thread would slow the caller's Python. The child
is a fork, so it has the generated module and the objects its namespace
names, and nothing has to be pickled. It is not waited for at exit: a
short script that ends before the compile does still leaves
the cache filled for its next run (numba writes its cache files atomically,
so a child killed mid-write leaves no half-written entry).

Code numba has cached already (a child compiled it, now or in an earlier
run) is loaded by a thread (`load`): importing numba and loading take a
few tenths of a second, which the first calls spend running as Python
instead of waiting. numba is not imported before a derivative is to be
compiled (a derivative run as Python needs none of it: s2sad/lazy_numba.py);
while a child compiles, a thread of the caller imports it
(backend._prefetch_numba), so that loading the child's code is all that
is left when the child is done.

Off (every compile blocks, as jit=True) where fork is not safe (not
Linux) and when S2SAD_BACKGROUND_COMPILE=0."""
import contextlib
import os
import select
import signal
import sys
import threading
import time
import warnings

_ENV = "S2SAD_BACKGROUND_COMPILE"


def enabled():
    """Whether jit="auto" derivatives compile in the background (read when
    a derivative is built, so a script or a benchmark can set it first)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    return os.environ.get(_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


class Reply:
    """What the compiling process said: ok, or numba's reason for refusing
    (`io`: it failed writing the cache, not compiling)."""

    def __init__(self, ok, reason="", io=False):
        self.ok, self.reason, self.io = ok, reason, io


class Job:
    """A compile running in a child process."""

    def __init__(self, pid, fd):
        self.pid, self._fd = pid, fd
        self.started = time.perf_counter()
        self._reply = None
        self._lock = threading.Lock()  # (entries of several derivatives may share a job)

    def done(self):
        """Whether the child has replied (never blocks)."""
        if self._reply is None:
            ready, _, _ = select.select([self._fd], [], [], 0)
            if ready:
                self.wait()
        return self._reply is not None

    def wait(self):
        """The child's reply, waiting for it."""
        with self._lock:
            if self._reply is None:
                self._read()
        return self._reply

    def _read(self):
        chunks = []
        while True:  # (the child writes its reply, then exits: EOF)
            chunk = os.read(self._fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(self._fd)
        try:
            os.waitpid(self.pid, 0)  # (no zombie left behind)
        except ChildProcessError:  # reaped already (SIGCHLD ignored)
            pass
        text = b"".join(chunks).decode("utf-8", "replace")
        kind, _, reason = text.partition("\n")
        if kind == "ok":
            self._reply = Reply(True)
        else:  # "error", "io", or nothing: the child died before replying
            self._reply = Reply(False, reason or "the compiling process ended without a reply",
                                io=kind == "io")


# Held while a thread imports numba: a fork then would leave the child
# waiting forever for the import locks that thread holds (compiling and
# loading hold numba's compiler lock, which a fork takes too)
_importing = threading.Lock()


def importing():
    """The lock a thread holds while it imports numba (start() takes it)."""
    return _importing


class Loading:
    """Code loaded from numba's cache by a thread (the Job interface):
    `before()` (importing numba), then `load_now()`."""

    def __init__(self, load_now, describe, before=None):
        self.started = time.perf_counter()
        self._reply = None
        self._before, self._load_now, self._describe = before, load_now, describe
        # (a daemon: a script that ends meanwhile does not wait for it)
        self._thread = threading.Thread(target=self._run, name="s2sad-cache-load", daemon=True)
        self._thread.start()

    def _run(self):
        try:
            if self._before is not None:
                self._before()
            self._load_now()
            self._reply = Reply(True)
        except BaseException as exc:  # noqa: BLE001 - the caller compiles again and reports it
            reason, io = self._describe(exc)
            self._reply = Reply(False, reason, io=io)

    def done(self):
        return not self._thread.is_alive()

    def wait(self):
        self._thread.join()
        return self._reply


def load(load_now, describe, before=None):
    """A Loading running `before()` then `load_now()` in a thread."""
    return Loading(load_now, describe, before)


def start(compile_now, describe, locks=()):
    """A Job running `compile_now()` in a forked child, or None when fork
    fails. `describe(exc)` -> (reason, is_io) says why it failed. `locks`
    (with numba's compiler lock) are held across the fork, so the child
    never inherits one held by another thread mid-compile, nor the import
    locks of a thread importing numba. numba need not be loaded: the child
    imports it."""
    try:
        with _importing, _compiler_lock():  # (another thread's fork must not inherit this pipe)
            read_end, write_end = os.pipe()
            _acquire(locks)
            try:
                pid = os.fork()
            except OSError:
                os.close(read_end)
                os.close(write_end)
                raise
            finally:  # (in the child too: it holds what the forking thread held)
                _release(locks)
            if pid:
                os.close(write_end)
    except OSError:
        return None
    if pid == 0:  # the child: compile, reply, exit without running the caller's exit code
        _child(read_end, write_end, compile_now, describe)
    return Job(pid, read_end)


def _compiler_lock():
    """numba's compiler lock, when numba is loaded (else nothing compiles)."""
    if "numba" not in sys.modules:
        return contextlib.nullcontext()
    from numba.core.compiler_lock import global_compiler_lock
    return global_compiler_lock


def _child(read_end, write_end, compile_now, describe):
    code = 0
    try:
        os.close(read_end)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # (Ctrl-C stops the caller, not the cache fill)
        warnings.simplefilter("ignore")
        try:
            compile_now()
            reply = "ok\n"
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the caller
            reason, io = describe(exc)
            reply = ("io\n" if io else "error\n") + reason
        os.write(write_end, reply.encode("utf-8", "replace"))
    except BaseException:  # noqa: BLE001 - never return into the caller's code
        code = 1
    finally:
        os._exit(code)


def _acquire(locks):
    for lock in locks:
        lock.acquire()


def _release(locks):
    for lock in reversed(locks):
        lock.release()
