"""The one libc handle the sandbox-side modules share, with errno turned into ``OSError``.

Sandbox-side module: stdlib only and no package imports, because its source text is concatenated
(right after the pytest shim) into the sandbox programs (see ``program.py``). Names starting with
``sys_`` are its interface.
"""

import ctypes
import os

sys_libc = ctypes.CDLL(None, use_errno=True)
sys_libc.syscall.restype = ctypes.c_long
sys_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
sys_libc.prctl.restype = ctypes.c_int


def sys_check(result):
    """``result`` of a libc call, or the call's errno raised as ``OSError`` when it is negative."""
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def sys_prctl(option, arg2=0, arg3=0, arg4=0, arg5=0):
    """prctl(2); raises OSError on failure."""
    return sys_check(sys_libc.prctl(option, arg2, arg3, arg4, arg5))


def sys_prctl_args(option, arg2=0, arg3=0, arg4=0, arg5=0):
    """prctl(2) arguments as ready ctypes values, for ``sys_prctl_prepared``."""
    return (ctypes.c_int(option),) + tuple(ctypes.c_ulong(a) for a in (arg2, arg3, arg4, arg5))


def sys_prctl_prepared(args):
    """prctl(2) with arguments from ``sys_prctl_args``: in a freshly forked child, converting fresh
    Python ints would write to (and so copy) many more pages of the parent's memory."""
    return sys_check(sys_libc.prctl(*args))


def sys_syscall(number, *args):
    """syscall(2) with integer arguments widened to long (the kernel reads full registers)."""
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    return sys_check(sys_libc.syscall(ctypes.c_long(number), *args))


SYS_RLIM_INFINITY = (1 << 64) - 1
SYS_RLIMITS = {
    "CPU": 0, "FSIZE": 1, "DATA": 2, "STACK": 3, "CORE": 4, "NPROC": 6, "NOFILE": 7, "MEMLOCK": 8, "AS": 9,
    "SIGPENDING": 11, "MSGQUEUE": 12, "NICE": 13, "RTPRIO": 14,
}
"""Resource numbers of Linux's generic table (x86_64, aarch64), by the ``resource`` module's names.
That module is not imported: it is a shared library, and each one a launcher holds makes every
fork and every child's exit dearer (five memory areas to copy and tear down; measured the other
way round: two more such libraries in the launcher, about 3 % fewer suites/s)."""

_RLIMIT = ctypes.c_ulonglong * 2
sys_libc.prlimit.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]


def sys_getrlimit(resource):
    """(soft, hard) limit of this process (``SYS_RLIMITS``); unlimited is ``SYS_RLIM_INFINITY``."""
    old = _RLIMIT()
    sys_check(sys_libc.prlimit(0, resource, None, old))
    return old[0], old[1]


def sys_rlimit_args(resource, soft, hard):
    """Arguments that set this process's limit, ready for ``sys_rlimit_prepared`` (see ``sys_prctl_args``)."""
    return ctypes.c_int(0), ctypes.c_int(resource), _RLIMIT(soft, hard), None


def sys_rlimit_prepared(args):
    """prlimit(2) with arguments from ``sys_rlimit_args``; raises OSError on failure."""
    return sys_check(sys_libc.prlimit(*args))


def sys_setrlimit(resource, soft, hard):
    """Set this process's (soft, hard) limit of ``resource``; raises OSError on failure."""
    sys_rlimit_prepared(sys_rlimit_args(resource, soft, hard))


class SysLimitReader:
    """Reads a fixed set of this process's limits into one buffer: one call each, arguments made once."""

    def __init__(self, resources):
        self._buffer = (ctypes.c_ulonglong * (2 * len(resources)))()
        base, size = ctypes.addressof(self._buffer), ctypes.sizeof(_RLIMIT)
        self._prlimit = sys_libc.prlimit
        self._calls = [(ctypes.c_int(0), ctypes.c_int(res), None, ctypes.c_void_p(base + i * size))
                       for i, res in enumerate(resources)]

    def read(self):
        """The limits, as bytes: compare two reads to learn whether any changed. (Reading one's own
        limits cannot fail.)"""
        for args in self._calls:
            self._prlimit(*args)
        return bytes(self._buffer)


class SysChildrenCpu:
    """CPU time of this process's reaped children so far (``getrusage(RUSAGE_CHILDREN)``): its
    growth across one reap is that child's. Not ``os.wait4``: its usage result loads the
    ``resource`` module (see ``SYS_RLIMITS``)."""

    def __init__(self):
        self._usage = (ctypes.c_long * 18)()  # struct rusage: two timevals, then 14 counters
        self._getrusage, self._args = sys_libc.getrusage, (ctypes.c_int(-1), self._usage)  # -1: RUSAGE_CHILDREN

    def microseconds(self):
        """User plus system CPU microseconds of the children reaped so far."""
        self._getrusage(*self._args)
        usage = self._usage
        return (usage[0] + usage[2]) * 1_000_000 + usage[1] + usage[3]


_PROT_READ, _PROT_READ_WRITE, _MAP_SHARED, _MAP_ANONYMOUS = 0x1, 0x3, 0x1, 0x20
sys_libc.mmap.restype = ctypes.c_void_p
sys_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
sys_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def sys_map_shared(fd, size, read_only=False):
    """The first ``size`` bytes of file ``fd`` (-1: new anonymous memory) mapped shared, as a ctypes
    char array (slices, slice assignment and ``struct.pack_into`` work on it as on an ``mmap``):
    not the ``mmap`` module, one shared library less in every fork (see ``SYS_RLIMITS``)."""
    flags = _MAP_SHARED | (_MAP_ANONYMOUS if fd < 0 else 0)
    address = sys_libc.mmap(None, size, _PROT_READ if read_only else _PROT_READ_WRITE, flags, fd, 0)
    if address is None or address == ctypes.c_void_p(-1).value:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return (ctypes.c_char * size).from_address(address)


def sys_unmap(mapped):
    """Undo ``sys_map_shared``; ``mapped`` must not be used afterwards."""
    sys_libc.munmap(ctypes.addressof(mapped), ctypes.sizeof(mapped))
