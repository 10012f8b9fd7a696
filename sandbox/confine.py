"""What confines an analysis worker, applied before and inside its process.

Before exec (`limit_process`, in the child): its own session, resource limits (CPU seconds,
address space, file size, processes, open files, no core dumps), a new network namespace
where the kernel allows it, and — when started as root and `nobody` can reach the
interpreter — the `nobody` user (otherwise the audit hook is what stops forks; the resource
limits hold either way).
Inside (`install_audit_hook`, in each job's fork): an audit hook that refuses sockets, new
processes, writes outside the job's own folder, and reads or listings outside that folder and
the interpreter's own files — never another job's folder, the server's data folder or the
embedded database's files — whatever the code tries.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import resource
import sys
import sysconfig
from typing import Any

CLONE_NEWNET = 0x40000000
MEMORY_BYTES = 1024 * 1024 * 1024
LIMITS = {
    resource.RLIMIT_CPU: 120,
    resource.RLIMIT_FSIZE: 16 * 1024 * 1024,
    resource.RLIMIT_NPROC: 64,
    resource.RLIMIT_NOFILE: 64,
    resource.RLIMIT_CORE: 0,
}


def can_drop_privileges() -> bool:
    """Root can run the worker as `nobody` only if `nobody` can reach the interpreter."""
    if os.geteuid() != 0:
        return False
    path = os.path.realpath(sys.executable)
    parts = [
        path,
        *(os.path.dirname(path[:i]) for i in range(len(path), 0, -1) if path[i - 1] == "/"),
    ]
    for part in {p for p in parts if p}:
        mode = os.stat(part).st_mode
        if not mode & 0o001:  # others may not traverse (or execute) it
            return False
    return True


def limit_process(workdir: str, memory_bytes: int = MEMORY_BYTES, drop: bool = False) -> None:
    """Runs in the forked child before exec: session, namespace, user, limits."""
    os.setsid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare(CLONE_NEWNET)  # no network at all where the kernel allows it
    except OSError:
        pass  # documented fallback: the audit hook still refuses sockets
    if drop:
        nobody = pwd.getpwnam("nobody")
        os.chown(workdir, nobody.pw_uid, nobody.pw_gid)
        os.setgroups([])
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)
    for kind, value in {**LIMITS, resource.RLIMIT_AS: memory_bytes}.items():
        resource.setrlimit(kind, (value, value))


BLOCKED_EVENTS = {
    "socket.__new__",
    "socket.connect",
    "socket.bind",
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.putenv",
    "ctypes.dlopen",
    "ctypes.cdata",
}


SYSTEM_READS = ("/usr/share/zoneinfo", "/etc/localtime", "/dev/null", "/dev/urandom")
"""Files outside the interpreter that pandas and numpy read at run time (time zones, entropy)."""
LISTING_EVENTS = {"os.listdir", "os.scandir", "glob.glob", "os.chdir"}


def readable_roots() -> tuple[str, ...]:
    """Where a job may read besides its own folder: the interpreter's libraries (lazy imports
    of pandas and numpy), the code the worker already loaded, and `SYSTEM_READS`. Worked out
    once by the template: a fork that did it would pay for it on every job."""
    paths = sysconfig.get_paths()
    roots = set(SYSTEM_READS)
    roots |= {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots |= {p for p in sys.path if p and os.path.isabs(p) and os.path.isdir(p)}
    for module in list(sys.modules.values()):
        name, file = getattr(module, "__name__", ""), getattr(module, "__file__", None)
        if name.startswith("orquestra.") and file:
            roots.add(os.path.dirname(file))  # e.g. the sandbox's own folder, never its parent
    return tuple(sorted(os.path.realpath(r) for r in roots))


def _within(target: str, roots: tuple[str, ...]) -> bool:
    return any(target == root or target.startswith(root + os.sep) for root in roots)


def install_audit_hook(workdir: str, readable: tuple[str, ...] | None = None) -> None:
    """Refuse network, processes, writes outside `workdir`, and reads or listings outside
    `workdir` and `readable` (default `readable_roots()`), for the rest of the process."""
    root = os.path.realpath(workdir)
    roots = (root, *(readable if readable is not None else readable_roots()))

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in BLOCKED_EVENTS:
            raise PermissionError(f"{event} is not allowed in the analyzer")
        if event in LISTING_EVENTS and args and isinstance(args[0], str | bytes):
            target = os.path.realpath(os.fsdecode(args[0]))
            if not _within(target, roots):
                raise PermissionError(f"{event} of {target} is not allowed in the analyzer")
        if event == "open" and len(args) >= 2:
            path, mode = args[0], args[1]
            if not isinstance(path, str | bytes):
                return  # an open file descriptor: nothing new is reached
            writing = isinstance(mode, str) and any(m in mode for m in "wax+")
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            writing = writing or bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            target = os.path.realpath(os.fsdecode(path))
            if writing and not target.startswith(root + os.sep):
                raise PermissionError(f"writing {target} is not allowed in the analyzer")
            if not _within(target, roots):
                raise PermissionError(f"reading {target} is not allowed in the analyzer")

    sys.addaudithook(hook)
