// Non-variadic entry points into the OpenSSL that libcurl (and so FoundationNetworking) calls,
// found through libcurl's own libraries with dlopen/dlsym/dladdr at run time (no headers or
// link-time dependency; OpenSSL 1.1.1b and later, 3.x, 4.x): certificate chain verification for `SecurityPolicy`, the handshake
// hooks the libcurl transport installs, and the exit gate every caller into OpenSSL's state
// passes.
#ifndef AFN_OPENSSL_BRIDGE_H
#define AFN_OPENSSL_BRIDGE_H

#include <stddef.h>

/// Loads OpenSSL once and arms the exit gate: the libssl and libcrypto libcurl's symbols resolve
/// to, or where libcurl has none (another TLS backend) `libssl.so.3` or `libssl.so.4` by name.
/// Returns 1 when the library is 1.1.1b or later, has every function the bridge calls and
/// numbers the purposes and verification errors as the bridge expects; otherwise 0 and a
/// message naming what was found in `error`.
int afn_openssl_load(char *error, size_t error_length);
/// Whether OpenSSL_version_num() `number` is one the bridge supports: 1.1.1b (0x10101020) or later.
int afn_openssl_version_is_supported(unsigned long number);
/// OpenSSL_version(OPENSSL_VERSION) of the library loaded ("OpenSSL 3.0.17 1 Jul 2025"), or NULL
/// when none could be loaded or it is older than 1.1.0.
const char *afn_openssl_version(void);
/// The path (or soname) of the libssl loaded, or NULL when none was found.
const char *afn_openssl_library_path(void);
/// 1 when the libssl loaded is the one libcurl's own symbols resolve to.
int afn_openssl_is_libcurls(void);
/// The address of the libssl or libcrypto function `name` (loading OpenSSL first), or NULL:
/// for the package's other C targets that reach OpenSSL.
void *afn_openssl_symbol(const char *name);

/// Enters the exit gate before a call that may reach OpenSSL's global state (directly or
/// through libcurl): 1 to go ahead, then `afn_gate_leave`; 0 once the process is exiting,
/// when the call must be skipped.
int afn_gate_enter(void);
void afn_gate_leave(void);

/// Receives one DER certificate of a chain.
typedef void (*afn_der_sink)(const unsigned char *der, int length, void *context);

/// Installs `callback` as the SSL_CTX's whole certificate verification: OpenSSL calls it
/// during the handshake with the X509_STORE_CTX and `argument`; 1 accepts, 0 rejects.
int afn_ssl_ctx_set_verify(void *ssl_ctx, int (*callback)(void *store_ctx, void *argument), void *argument);
/// The chain the peer presented during the handshake, leaf first, to `sink`.
void afn_store_ctx_presented_chain(void *store_ctx, afn_der_sink sink, void *context);
/// Marks the connection of a handshake verification (its `SSL`) as trusted by the application,
/// for the transfers that reuse the connection; 1 when marked.
int afn_store_ctx_mark_trusted(void *store_ctx);
/// 1 when the connection `ssl` was marked trusted (`afn_store_ctx_mark_trusted`).
int afn_ssl_is_trusted(const void *ssl);
/// Marks a handshake verification as rejected by the application.
void afn_store_ctx_reject(void *store_ctx);

/// Verifies `chain` (DER, leaf first) as a TLS server's with OpenSSL's verifier, as libssl and
/// curl do: the "ssl_server" purpose and trust, trusted certificates first, security level 2 or
/// the system's if higher; against `anchors` or, when `anchor_count` is 0, the system's trust
/// store. With `partial_chain`, any trusted certificate (an intermediate, the leaf itself) ends
/// a chain. Hands the verified chain (leaf to anchor) to `sink`. Returns 0 when it verifies,
/// the X509_V_ERR code otherwise, or -1 when a certificate cannot be decoded.
int afn_verify_chain(const unsigned char *const *chain, const int *chain_lengths, int chain_count,
                     const unsigned char *const *anchors, const int *anchor_lengths, int anchor_count,
                     int partial_chain, afn_der_sink sink, void *context);
/// OpenSSL's text for an X509_V_ERR code.
const char *afn_verify_error_string(int code);

/// Calls `requested(argument)` when a server asks the SSL_CTX's connection for a client
/// certificate and none was configured (the handshake goes on without one).
int afn_ssl_ctx_on_certificate_request(void *ssl_ctx, void (*requested)(void *argument), void *argument);

/// The protocol version ("TLSv1.3") and cipher suite name of a connection's `SSL`, into the
/// buffers (empty when unknown).
void afn_ssl_describe(const void *ssl, char *version, size_t version_length, char *cipher, size_t cipher_length);

/// Why a client identity could not be loaded (`afn_identity_load`).
enum {
    AFN_IDENTITY_OK = 0,
    AFN_IDENTITY_BAD_CERTIFICATE = 1,
    AFN_IDENTITY_BAD_KEY = 2,
    AFN_IDENTITY_BAD_PKCS12 = 3,
    AFN_IDENTITY_KEY_MISMATCH = 4,
    AFN_IDENTITY_FAILED = 5,
};

/// Loads a client identity: a PEM certificate chain (leaf first) and a PEM private key, which
/// may be in the same data (`key` NULL), or, when `pkcs12` is 1, PKCS#12 data in `certificates`.
/// `passphrase` (or NULL) decrypts the key or the PKCS#12 data. Checks that the key belongs to
/// the leaf. On success returns AFN_IDENTITY_OK and hands the chain (leaf first) and the
/// unencrypted key to `sink` as PEM, each once (`kind` 0 for the chain, 1 for the key).
int afn_identity_load(const unsigned char *certificates, size_t certificates_length,
                      const unsigned char *key, size_t key_length, int pkcs12, const char *passphrase,
                      void (*sink)(int kind, const char *pem, size_t length, void *context), void *context);

#endif
