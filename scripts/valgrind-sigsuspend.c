/*
 * Lets valgrind run a Swift program that uses Swift concurrency (herald does).
 *
 * valgrind (3.19 and 3.24 alike) writes into the signal mask it is handed by sigsuspend(), to keep its own signals
 * out of it; libdispatch's signal thread passes a mask in read-only memory, and valgrind dies of a SIGSEGV of its own
 * ("VALGRIND INTERNAL ERROR ... si_code=2") as the program starts its second thread. Preloaded
 * (LD_PRELOAD=this.so valgrind ...), this sigsuspend hands the kernel a copy on the stack instead.
 * scripts/bench-gateway.sh builds and uses it for INSTRUCTIONS=1.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
