#ifndef HERALD_CSCHEDULING_H
#define HERALD_CSCHEDULING_H

/// Puts the calling thread in Linux's SCHED_IDLE class, with its I/O at the lowest best-effort priority.
/// 0, or -1 with errno set (nothing changed when the I/O priority could not be set).
int cscheduling_run_when_idle(void);

/// 1 when the calling thread is in SCHED_IDLE, else 0.
int cscheduling_is_idle(void);

/// The calling thread's I/O scheduling class: 1 realtime, 2 best-effort, 3 idle, 0 when none was set (the kernel
/// then derives it from the CPU policy), -1 on error.
int cscheduling_io_class(void);

#endif
