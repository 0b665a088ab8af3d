// libmicrohttpd's functions that Tether calls (Mock/MockServer.swift and CMicroHTTPD/shim.h), each opening
// libmicrohttpd at the first call (loader.c says why and how).
#include "loader.h"

#if defined(__linux__)
#define LIBRARY tether_libmicrohttpd
#include <stdarg.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

// Variadic: forwarded to the library's own `va_list` form.
FORWARD struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback accept,
                                            void *acceptContext, MHD_AccessHandlerCallback handler,
                                            void *handlerContext, ...) {
    REAL(LIBRARY, MHD_start_daemon_va)
    va_list options;
    va_start(options, handlerContext);
    struct MHD_Daemon *daemon =
        MHD_start_daemon_va_found(flags, port, accept, acceptContext, handler, handlerContext, options);
    va_end(options);
    return daemon;
}

FORWARD_VOID(MHD_stop_daemon, (struct MHD_Daemon *daemon), (daemon))

// Variadic in the header, but the kinds Tether asks for (MHD_DAEMON_INFO_BIND_PORT) take no further argument, and
// the library reads none for them.
FORWARD_FUNCTION(const union MHD_DaemonInfo *, MHD_get_daemon_info,
    (struct MHD_Daemon *daemon, enum MHD_DaemonInfoType kind, ...), (daemon, kind))

// As MHD_get_daemon_info: MHD_CONNECTION_INFO_CONNECTION_FD takes no further argument.
FORWARD_FUNCTION(const union MHD_ConnectionInfo *, MHD_get_connection_info,
    (struct MHD_Connection *connection, enum MHD_ConnectionInfoType kind, ...), (connection, kind))
FORWARD_FUNCTION(int, MHD_get_connection_values,
    (struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *iteratorContext),
    (connection, kind, iterator, iteratorContext))
FORWARD_VOID(MHD_suspend_connection, (struct MHD_Connection *connection), (connection))
FORWARD_VOID(MHD_resume_connection, (struct MHD_Connection *connection), (connection))
FORWARD_FUNCTION(struct MHD_Response *, MHD_create_response_from_buffer,
    (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode))

// `enum MHD_Result` from 0.9.71, `int` before: the header's own return type.
FORWARD_FUNCTION(__typeof__(MHD_add_response_header(NULL, NULL, NULL)), MHD_add_response_header,
    (struct MHD_Response *response, const char *header, const char *content), (response, header, content))
FORWARD_FUNCTION(__typeof__(MHD_queue_response(NULL, 0, NULL)), MHD_queue_response,
    (struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response),
    (connection, status, response))
FORWARD_VOID(MHD_destroy_response, (struct MHD_Response *response), (response))

#endif
