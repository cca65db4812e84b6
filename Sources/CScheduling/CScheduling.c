// sched_setattr(2), which glibc does not wrap and Swift cannot reach through syscall(2) (a variadic function).
#define _GNU_SOURCE
#include <stdint.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CScheduling.h"

// The first version of the kernel's struct sched_attr (48 bytes), which every kernel since 3.14 accepts.
struct attributes {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
};

int cscheduling_set_fair(int nice, unsigned long long slice_nanoseconds) {
    struct attributes attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.size = sizeof attributes;
    attributes.policy = SCHED_OTHER;
    attributes.nice = nice;
    // For a fair thread, Linux 6.12 and later read the runtime as the thread's slice; earlier kernels ignore it.
    attributes.runtime = slice_nanoseconds;
    return (int)syscall(SYS_sched_setattr, 0, &attributes, 0);
}

long long cscheduling_slice(void) {
    struct attributes attributes;
    memset(&attributes, 0, sizeof attributes);
    if (syscall(SYS_sched_getattr, 0, &attributes, sizeof attributes, 0) != 0) return -1;
    return (long long)attributes.runtime;
}
