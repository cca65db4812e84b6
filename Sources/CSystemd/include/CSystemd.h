// sd-bus, the D-Bus library in systemd's libsystemd.so.0, loaded at run time (herald_systemd_load) rather than linked,
// so that building Herald needs no systemd headers (Debian's libsystemd-dev) and a machine without the library still
// runs everything but desktop notifications. The declarations below are Herald's own copies of the few sd-bus types
// and functions HeraldDBus uses, as systemd's <systemd/sd-bus.h> declares them (a stable ABI since systemd 221).
//
// Each sd_bus_* function here is a static inline trampoline through the table herald_systemd_load fills: call that
// first, and the rest only after it returned 0.
//
// Also the two calls the bus thread makes around sd-bus: an eventfd to wake it when there is work for the bus, and one
// poll(2) on the bus and that eventfd.
#ifndef HERALD_CSYSTEMD_H
#define HERALD_CSYSTEMD_H

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct sd_bus_slot sd_bus_slot;

typedef struct {
    const char *name;
    const char *message;
    int _need_free;
} sd_bus_error;

typedef int (*sd_bus_message_handler_t)(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

enum { SD_BUS_MESSAGE_METHOD_CALL = 1 };

// X(return type, name, parameters, arguments): every sd-bus function Herald calls.
#define HERALD_SD_BUS_FUNCTIONS(X) \
    X(int, sd_bus_new, (sd_bus **ret), (ret)) \
    X(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address)) \
    X(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b)) \
    X(int, sd_bus_start, (sd_bus *bus), (bus)) \
    X(int, sd_bus_get_unique_name, (sd_bus *bus, const char **unique), (bus, unique)) \
    X(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus)) \
    X(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r)) \
    X(int, sd_bus_get_events, (sd_bus *bus), (bus)) \
    X(int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec)) \
    X(int, sd_bus_get_fd, (sd_bus *bus), (bus)) \
    X(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags)) \
    X(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie)) \
    X(int, sd_bus_call_async, \
      (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata, uint64_t usec), \
      (bus, slot, m, callback, userdata, usec)) \
    X(int, sd_bus_add_match, \
      (sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata), \
      (bus, slot, match, callback, userdata)) \
    X(int, sd_bus_add_object, \
      (sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_message_handler_t callback, void *userdata), \
      (bus, slot, path, callback, userdata)) \
    X(sd_bus_slot *, sd_bus_slot_unref, (sd_bus_slot *slot), (slot)) \
    X(int, sd_bus_error_set, (sd_bus_error *e, const char *name, const char *message), (e, name, message)) \
    X(int, sd_bus_message_new_method_call, \
      (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member), \
      (bus, m, destination, path, interface, member)) \
    X(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m)) \
    X(int, sd_bus_message_new_signal, \
      (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member), \
      (bus, m, path, interface, member)) \
    X(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m)) \
    X(sd_bus_message *, sd_bus_message_ref, (sd_bus_message *m), (m)) \
    X(int, sd_bus_message_new_method_error, (sd_bus_message *call, sd_bus_message **m, const sd_bus_error *e), (call, m, e)) \
    X(int, sd_bus_message_get_type, (sd_bus_message *m, uint8_t *type), (m, type)) \
    X(const char *, sd_bus_message_get_path, (sd_bus_message *m), (m)) \
    X(const char *, sd_bus_message_get_interface, (sd_bus_message *m), (m)) \
    X(const char *, sd_bus_message_get_member, (sd_bus_message *m), (m)) \
    X(const char *, sd_bus_message_get_sender, (sd_bus_message *m), (m)) \
    X(int, sd_bus_message_is_method_error, (sd_bus_message *m, const char *name), (m, name)) \
    X(const sd_bus_error *, sd_bus_message_get_error, (sd_bus_message *m), (m)) \
    X(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p)) \
    X(int, sd_bus_message_append_array, (sd_bus_message *m, char type, const void *ptr, size_t size), (m, type, ptr, size)) \
    X(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents)) \
    X(int, sd_bus_message_close_container, (sd_bus_message *m), (m)) \
    X(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents)) \
    X(int, sd_bus_message_exit_container, (sd_bus_message *m), (m)) \
    X(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents)) \
    X(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p)) \
    X(int, sd_bus_message_read_array, (sd_bus_message *m, char type, const void **ptr, size_t *size), (m, type, ptr, size))

#define HERALD_SD_BUS_FIELD(type, name, parameters, arguments) type (*name) parameters;
/// The loaded functions: filled once by herald_systemd_load, read only after it returned 0.
struct herald_sd_bus_table {
    HERALD_SD_BUS_FUNCTIONS(HERALD_SD_BUS_FIELD)
};
#undef HERALD_SD_BUS_FIELD
extern struct herald_sd_bus_table herald_sd_bus;

/// Loads `library` (a name dlopen searches for, or a path) and every sd-bus function above from it, once per process:
/// after a success, later calls return 0 at once whatever they name. Returns 0, or -1 with the reason (dlerror's words)
/// in `reason`, and then nothing is kept, so a later call may try again.
int herald_systemd_load(const char *library, char *reason, size_t reason_size);

#define HERALD_SD_BUS_TRAMPOLINE(type, name, parameters, arguments) \
    static inline type name parameters { return herald_sd_bus.name arguments; }
HERALD_SD_BUS_FUNCTIONS(HERALD_SD_BUS_TRAMPOLINE)
#undef HERALD_SD_BUS_TRAMPOLINE

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
