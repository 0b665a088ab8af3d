// Typed wrappers for libmicrohttpd's variadic calls, which Swift cannot call directly.
#ifndef TETHER_CMICROHTTPD_SHIM_H
#define TETHER_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Keeps the last message MHD logs while a daemon starts (why it could not start), then ignores messages once
/// `frozen` is set: worker threads may log while the daemon runs and nobody reads the text any more.
typedef struct tether_mhd_log {
    char text[512];
    int lock;
    int frozen;
} tether_mhd_log;

static void tether_mhd_log_message(void *cls, const char *format, va_list arguments) {
    tether_mhd_log *log = (tether_mhd_log *)cls;
    if (log == NULL || __atomic_load_n(&log->frozen, __ATOMIC_ACQUIRE)) {
        return;
    }
    while (__atomic_test_and_set(&log->lock, __ATOMIC_ACQUIRE)) {
    }
    vsnprintf(log->text, sizeof log->text, format, arguments);
    __atomic_clear(&log->lock, __ATOMIC_RELEASE);
}

/// Stops recording messages (call once the daemon runs).
static inline void tether_mhd_log_freeze(tether_mhd_log *log) {
    __atomic_store_n(&log->frozen, 1, __ATOMIC_RELEASE);
}

/// `MHD_start_daemon` with the options Tether's mock server uses: a fixed listen address (`address`, whose port is
/// used), a per-request context made by `uri_logger` and released by `completed`, MHD's messages into `log`, and a
/// worker pool when `pool_size` > 1.
static inline struct MHD_Daemon *tether_mhd_start(
    unsigned int flags, uint16_t port, const struct sockaddr *address,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    void *(*uri_logger)(void *cls, const char *uri, struct MHD_Connection *connection), void *uri_logger_cls,
    tether_mhd_log *log, unsigned int pool_size, unsigned int connection_timeout) {
    // A pool size of 0 or 1 means no pool (libmicrohttpd enables pooling only above 1), so one call serves both.
    return MHD_start_daemon(flags | MHD_USE_ERROR_LOG, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_EXTERNAL_LOGGER, tether_mhd_log_message, (void *)log,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, uri_logger_cls,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
                            MHD_OPTION_THREAD_POOL_SIZE, pool_size,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (`MHD_DAEMON_INFO_BIND_PORT`), or 0 when MHD cannot tell.
static inline uint16_t tether_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// A response holding a copy of `size` bytes at `data` (`data` may be NULL when `size` is 0).
static inline struct MHD_Response *tether_mhd_response_copying(size_t size, const void *data) {
    static char empty[1] = {0};
    return MHD_create_response_from_buffer(size, size == 0 || data == NULL ? (void *)empty : (void *)data,
                                           MHD_RESPMEM_MUST_COPY);
}

/// The socket of a connection (`MHD_CONNECTION_INFO_CONNECTION_FD`), or -1 when MHD cannot tell.
static inline int tether_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

#endif
