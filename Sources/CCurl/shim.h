// Typed wrappers for libcurl's variadic calls, which Swift cannot call directly.
#ifndef TETHER_CCURL_SHIM_H
#define TETHER_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode tether_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tether_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tether_curl_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tether_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tether_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*tether_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode tether_curl_setopt_write(CURL *h, CURLoption o, tether_curl_write_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tether_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tether_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tether_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tether_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tether_curl_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
/// The features libcurl was built with (`curl_version_info`'s bitmask of CURL_VERSION_*).
static inline int tether_curl_features(void) { return curl_version_info(CURLVERSION_NOW)->features; }
static inline CURLMcode tether_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

#endif
