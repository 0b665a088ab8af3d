// Typed wrappers for libmicrohttpd's variadic calls, which Swift cannot call directly.
#ifndef TETHER_CMICROHTTPD_SHIM_H
#define TETHER_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

#endif
