"""What confines an analysis worker, applied before and inside its process.

Before exec (`limit_process`, in the child): its own session, resource limits (CPU seconds,
address space, file size, processes, open files, no core dumps), a new network namespace
where the kernel allows it, and — when started as root and `nobody` can reach the
interpreter — the `nobody` user (otherwise the audit hook is what stops forks; the resource
limits hold either way).
Inside (`install_audit_hook`): an audit hook that refuses sockets, new processes and writes
outside the worker's temporary folder, whatever the code tries.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import resource
import sys

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


def install_audit_hook(workdir: str) -> None:
    """Refuse network, processes and writes outside `workdir`, for the rest of the process."""
    root = os.path.realpath(workdir)

    def hook(event: str, args: tuple) -> None:
        if event in BLOCKED_EVENTS:
            raise PermissionError(f"{event} is not allowed in the analyzer")
        if event == "open" and len(args) >= 2:
            path, mode = args[0], args[1]
            writing = isinstance(mode, str) and any(m in mode for m in "wax+")
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            writing = writing or bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            if writing and isinstance(path, str | bytes):
                target = os.path.realpath(os.fsdecode(path))
                if not target.startswith(root + os.sep):
                    raise PermissionError(f"writing {target} is not allowed in the analyzer")

    sys.addaudithook(hook)
