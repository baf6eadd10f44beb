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


class SysCpuTimer:
    """A POSIX timer on the process CPU clock that sends ``signo`` after ``seconds`` of CPU time.

    Made ready (argument buffers, libc entry points) once in the fork server; each child creates
    its own (timers are not inherited across fork) and re-arms it per test with one call, which
    also tells how much of the previous countdown was used: the test's CPU time, with no clock
    read of its own. Not ITIMER_PROF: that timer counts CPU time in scheduler ticks, each charged
    whole to whichever process runs when it lands, so on a busy machine a test near its budget was
    charged time it never used and timed out on some runs only. CLOCK_PROCESS_CPUTIME_ID counts
    the exact run time; the tick only decides when an expiry is noticed (at most one tick late).
    """

    _CLOCK_PROCESS_CPUTIME_ID, _SIGEV_SIGNAL = 2, 0

    def __init__(self, seconds, signo):
        import struct

        whole = int(seconds)
        self.seconds = seconds
        self._id = ctypes.c_void_p()
        self._event = ctypes.create_string_buffer(struct.pack("=qii", 0, signo, self._SIGEV_SIGNAL), 64)
        value = ctypes.create_string_buffer(struct.pack("=qqqq", 0, 0, whole, int((seconds - whole) * 1e9)), 32)
        zero, self._old = ctypes.create_string_buffer(32), (ctypes.c_longlong * 4)()
        self._create, self._settime, self._delete = sys_libc.timer_create, sys_libc.timer_settime, sys_libc.timer_delete
        self._create_args = (ctypes.c_int(self._CLOCK_PROCESS_CPUTIME_ID), self._event, ctypes.byref(self._id))
        self._arm_args = (self._id, ctypes.c_int(0), value, self._old)
        self._stop_args = (self._id, ctypes.c_int(0), zero, self._old)

    def create(self):
        """In the process to be timed; raises OSError."""
        sys_check(self._create(*self._create_args))

    def delete(self):
        """Delete the timer made by ``create`` (a forked child makes its own: timers are not inherited)."""
        self._delete(self._id)

    def arm(self):
        """Start (or restart) the countdown of ``seconds`` of this process's CPU time; returns the CPU
        seconds the previous countdown used (``seconds`` if it ran out, or if there was none)."""
        self._settime(*self._arm_args)
        return self.seconds - self._old[2] - self._old[3] * 1e-9

    def stop(self):
        """Stop the countdown; returns the CPU seconds it used."""
        self._settime(*self._stop_args)
        return self.seconds - self._old[2] - self._old[3] * 1e-9
