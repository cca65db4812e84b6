// Linux scheduling calls that Swift's Glibc module hides: SCHED_IDLE needs _GNU_SOURCE, and ioprio_set has no glibc
// wrapper (only syscall(2), which Swift cannot call: it is variadic).
#define _GNU_SOURCE
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CScheduling.h"

enum { whoProcess = 1, classShift = 13, classBestEffort = 2, lowestLevel = 7 };

int cscheduling_run_when_idle(void) {
    // Explicitly best-effort, and first: a SCHED_IDLE thread with no I/O priority of its own gets the idle I/O class,
    // whose writes mq-deadline holds back for up to seconds while others queue, and an ext4 journal commit that needs
    // them then holds every other process's fdatasync too.
    if (syscall(SYS_ioprio_set, whoProcess, 0, classBestEffort << classShift | lowestLevel) != 0) return -1;
    struct sched_param parameters = {.sched_priority = 0};
    return sched_setscheduler(0, SCHED_IDLE, &parameters);
}

int cscheduling_is_idle(void) {
    return sched_getscheduler(0) == SCHED_IDLE;
}

int cscheduling_io_class(void) {
    long priority = syscall(SYS_ioprio_get, whoProcess, 0);
    return priority < 0 ? -1 : (int)(priority >> classShift);
}
