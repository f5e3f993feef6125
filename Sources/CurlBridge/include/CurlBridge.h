// Non-variadic entry points into the libcurl and OpenSSL that FoundationNetworking already
// loads, found with dlopen/dlsym at run time (no headers or link-time dependency), plus the
// two libdispatch calls the transport needs to run on URLSession's own queue.
#ifndef AFN_CURL_BRIDGE_H
#define AFN_CURL_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

/// Loads libcurl and OpenSSL once. Returns 1 when every symbol was found; otherwise 0 and a
/// message in `error`.
int afn_bridge_load(char *error, size_t error_length);

void *afn_easy_init(void);
void afn_easy_cleanup(void *easy);
int afn_easy_setopt_long(void *easy, int option, long value);
int afn_easy_setopt_pointer(void *easy, int option, const void *value);
int afn_easy_setopt_off(void *easy, int option, int64_t value);
const char *afn_easy_strerror(int code);
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
/// The next finished transfer: returns 1 and sets `easy` and `result`, or 0 when none is left.
int afn_multi_next_done(void *multi, void **easy, int *result);

/// Receives one DER certificate of a chain.
typedef void (*afn_der_sink)(const unsigned char *der, int length, void *context);

/// Installs `callback` as the SSL_CTX's whole certificate verification: OpenSSL calls it
/// during the handshake with the X509_STORE_CTX and `argument`; 1 accepts, 0 rejects.
int afn_ssl_ctx_set_verify(void *ssl_ctx, int (*callback)(void *store_ctx, void *argument), void *argument);
/// The chain the peer presented during the handshake, leaf first, to `sink`.
void afn_store_ctx_presented_chain(void *store_ctx, afn_der_sink sink, void *context);
/// Marks a handshake verification as rejected by the application.
void afn_store_ctx_reject(void *store_ctx);

/// Verifies `chain` (DER, leaf first) with OpenSSL: against `anchors` (any anchor may be an
/// intermediate or the leaf itself) or, when `anchor_count` is 0, the system's trust store.
/// Hands the verified chain (leaf to anchor) to `sink`. Returns 0 when it verifies, the
/// X509_V_ERR code otherwise, or -1 when a certificate cannot be decoded.
int afn_verify_chain(const unsigned char *const *chain, const int *chain_lengths, int chain_count,
                     const unsigned char *const *anchors, const int *anchor_lengths, int anchor_count,
                     afn_der_sink sink, void *context);
/// OpenSSL's text for an X509_V_ERR code.
const char *afn_verify_error_string(int code);

/// The queue the caller runs on, retained.
void *afn_dispatch_current_queue(void);
void afn_dispatch_release(void *queue);
/// Runs `work(context)` on `queue` and waits for it.
void afn_dispatch_sync(void *queue, void *context, void (*work)(void *context));

#endif
