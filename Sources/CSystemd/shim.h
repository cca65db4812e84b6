// sd-bus (libsystemd) for HeraldDBus, and the two calls its bus thread makes around it: an eventfd to wake the
// thread when there is work for the bus, and one poll(2) on the bus and that eventfd.
#ifndef HERALD_CSYSTEMD_SHIM_H
#define HERALD_CSYSTEMD_SHIM_H

#include <systemd/sd-bus.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/// A non-blocking eventfd (close-on-exec), or -errno.
static inline int herald_wake_descriptor(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

/// Wakes the thread waiting in herald_bus_wait on `wake_fd`.
static inline void herald_wake(int wake_fd) {
    uint64_t one = 1;
    (void)write(wake_fd, &one, sizeof one);
}

/// Waits until the bus has something to process, `wake_fd` was woken, or the bus's own next timeout falls due.
/// Returns 0, or -errno when the bus cannot say what it waits for (it is closed).
static inline int herald_bus_wait(sd_bus *bus, int wake_fd) {
    int events = sd_bus_get_events(bus);
    if (events < 0) return events;
    uint64_t until = 0;
    int r = sd_bus_get_timeout(bus, &until);
    if (r < 0) return r;
    int timeout_ms = -1;
    if (until != UINT64_MAX) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t now_usec = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
        timeout_ms = until <= now_usec ? 0 : (int)((until - now_usec + 999u) / 1000u);
    }
    struct pollfd fds[2] = {
        { .fd = sd_bus_get_fd(bus), .events = (short)events, .revents = 0 },
        { .fd = wake_fd, .events = POLLIN, .revents = 0 },
    };
    if (poll(fds, 2, timeout_ms) < 0) return errno == EINTR ? 0 : -errno;
    if (fds[1].revents & POLLIN) {
        uint64_t count;
        (void)read(wake_fd, &count, sizeof count);
    }
    return 0;
}

/// Makes `error` say `name` and `message` (copied), for a method handler's error reply; returns the negative errno
/// sd-bus expects the handler to return.
static inline int herald_bus_error(sd_bus_error *error, const char *name, const char *message) {
    return sd_bus_error_set(error, name, message);
}

#endif
