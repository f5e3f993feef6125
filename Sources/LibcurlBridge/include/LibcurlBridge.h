// Non-variadic entry points into the libcurl that FoundationNetworking already loads, found
// with dlopen/dlsym at run time (no headers or link-time dependency). Calls that can reach
// OpenSSL's state pass the exit gate of OpenSSLBridge.
#ifndef AFN_LIBCURL_BRIDGE_H
#define AFN_LIBCURL_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

/// Loads libcurl (and OpenSSL, which its TLS connections use) once. Returns 1 when every
/// libcurl symbol was found; otherwise 0 and a message in `error`. Whether the transport may
/// use them is decided from `afn_curl_loaded_facts`.
int afn_curl_load(char *error, size_t error_length);

/// What was loaded, for the transport to decide whether its policy can be enforced.
typedef struct {
    /// curl_version_info's version ("7.88.1") and version_num (0x075801).
    const char *version;
    unsigned int version_number;
    /// curl_version_info's ssl_version: the TLS library libcurl uses ("OpenSSL/3.0.17",
    /// "GnuTLS/3.7.9"), NULL without one.
    const char *tls_backend;
    /// 1 when OpenSSLBridge loaded; otherwise its message in `openssl_error`.
    int openssl_loaded;
    char openssl_error[256];
    /// OpenSSL_version(OPENSSL_VERSION) of the OpenSSL the bridge loaded, or NULL.
    const char *openssl_version;
    /// 1 when that OpenSSL is the library libcurl calls: found through libcurl's own symbols,
    /// with the same SSL_CTX and SSL functions.
    int openssl_is_libcurls;
} afn_curl_facts;

/// The facts of the libcurl loaded (loading it first), or NULL when it could not be loaded.
const afn_curl_facts *afn_curl_loaded_facts(void);

void *afn_easy_init(void);
void afn_easy_cleanup(void *easy);
/// Returns a handle to its initial state, keeping its allocations for the next transfer.
void afn_easy_reset(void *easy);
int afn_easy_setopt_long(void *easy, int option, long value);
int afn_easy_setopt_pointer(void *easy, int option, const void *value);
int afn_easy_setopt_off(void *easy, int option, int64_t value);
/// Sets a `struct curl_blob` option (`CURLOPT_*_BLOB`); libcurl copies the bytes.
int afn_easy_setopt_blob(void *easy, int option, const void *data, size_t length);
const char *afn_easy_strerror(int code);
/// curl_easy_getinfo for a `curl_off_t` value (`info` is a CURLINFO_OFF_T constant).
int afn_easy_getinfo_off(void *easy, int info, int64_t *value);
/// curl_easy_getinfo for a `long` value (`info` is a CURLINFO_LONG constant).
int afn_easy_getinfo_long(void *easy, int info, long *value);
/// curl_easy_getinfo for a string (`info` is a CURLINFO_STRING constant); NULL when unset.
int afn_easy_getinfo_string(void *easy, int info, const char **value);
/// The OpenSSL `SSL` of the transfer's TLS connection, or NULL (no TLS, another backend).
void *afn_easy_tls_ssl(void *easy);
/// curl_easy_pause: `bitmask` 0 resumes a transfer paused by its write callback.
int afn_easy_pause(void *easy, int bitmask);

void *afn_slist_append(void *list, const char *string);
void afn_slist_free_all(void *list);

void *afn_multi_init(void);
void afn_multi_cleanup(void *multi);
int afn_multi_setopt_long(void *multi, int option, long value);
int afn_multi_setopt_pointer(void *multi, int option, const void *value);
int afn_multi_add_handle(void *multi, void *easy);
int afn_multi_remove_handle(void *multi, void *easy);
int afn_multi_socket_action(void *multi, int socket, int events, int *running);
/// The milliseconds until libcurl's next timeout (-1: none).
int afn_multi_timeout(void *multi, long *milliseconds);
/// The next finished transfer: returns 1 and sets `easy` and `result`, or 0 when none is left.
int afn_multi_next_done(void *multi, void **easy, int *result);

#endif
