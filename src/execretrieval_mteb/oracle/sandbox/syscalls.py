"""The one libc handle the sandbox-side modules share, with errno turned into ``OSError``.

Sandbox-side module: stdlib only and no package imports, because its source text is concatenated
(first) into the sandbox program (see ``program.py``). Names starting with ``sys_`` are its
interface.
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
