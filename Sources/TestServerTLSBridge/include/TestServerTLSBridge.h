// TLS for AFNetworkingTesting's loopback server: a self-signed certificate made at run time,
// and server-side connections on a blocking socket. OpenSSL is reached through OpenSSLBridge
// (`afn_openssl_symbol`, found with `dlopen`), so the testing product adds no link-time
// dependency.
#ifndef AFN_TEST_SERVER_TLS_BRIDGE_H
#define AFN_TEST_SERVER_TLS_BRIDGE_H

#include <stddef.h>

/// Makes a fresh P-256 key and a self-signed certificate, handing the certificate and the key to
/// `sink` as PEM (`kind` 0 for the certificate, 1 for the key), valid from an hour ago for `days`
/// days: for a server (`for_client` 0: serverAuth, for 127.0.0.1, ::1 and localhost) or for a
/// client (clientAuth, no names). 0 on success, -1 on failure with the reason in `error`.
int afn_test_tls_generate(int days, int for_client, void (*sink)(int kind, const char *pem, size_t length, void *context),
                          void *context, char *error, size_t error_length);

/// A server context serving the PEM certificate chain (leaf first) with the PEM key, or NULL with
/// the reason in `error`.
void *afn_test_tls_context(const char *chain, size_t chain_length, const char *key, size_t key_length,
                           char *error, size_t error_length);
void afn_test_tls_context_free(void *context);
/// Makes the context ask every client for a certificate, refuse the handshake without one, and
/// verify it against the `count` DER certificates in `anchors` (of `lengths` bytes). 0 on
/// success, -1 with the reason in `error`. Call before the context serves a connection.
int afn_test_tls_require_client_certificates(void *context, const unsigned char *const *anchors, const size_t *lengths, size_t count,
                                             char *error, size_t error_length);

/// Accepts TLS on the connected socket `fd` (the handshake runs here). A connection, or NULL
/// when the handshake failed.
void *afn_test_tls_accept(void *context, int fd);
/// Reads decrypted bytes: the count, 0 when the peer closed, -1 on an error.
long afn_test_tls_read(void *connection, void *buffer, size_t length);
/// Writes all of `length` bytes: 0 on success, -1 on an error.
int afn_test_tls_write(void *connection, const void *buffer, size_t length);
/// Hands the certificate the client presented to `sink` as DER: 1, or 0 when it presented none.
int afn_test_tls_peer_certificate(void *connection, void (*sink)(const unsigned char *der, size_t length, void *context), void *context);
/// Frees the connection (the socket stays open; its owner closes it).
void afn_test_tls_free(void *connection);

#endif
