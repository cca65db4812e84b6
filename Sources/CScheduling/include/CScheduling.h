#ifndef HERALD_CSCHEDULING_H
#define HERALD_CSCHEDULING_H

/// Puts the calling thread in Linux's normal (fair) class at `nice`, with a time slice of its own: 0, or -1 with errno.
int cscheduling_set_fair(int nice, unsigned long long slice_nanoseconds);

/// The calling thread's slice in nanoseconds as the kernel reports it (0 on kernels without custom slices), -1 on error.
long long cscheduling_slice(void);

#endif
