#include "TestServerTLSBridge.h"
#include "OpenSSLBridge.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static struct {
    const void *(*server_method)(void);
    void *(*ctx_new)(const void *);
    void (*ctx_free)(void *);
    int (*ctx_use_certificate)(void *, void *);
    int (*ctx_use_private_key)(void *, void *);
    long (*ctx_ctrl)(void *, int, long, void *);
    int (*ctx_check_private_key)(const void *);
    void *(*ctx_get_cert_store)(const void *);
    int (*store_add_cert)(void *, void *);
    int (*ctx_add_client_ca)(void *, void *);
    void (*ctx_set_verify)(void *, int, void *);
    void *(*d2i_x509)(void **, const unsigned char **, long);
    int (*i2d_x509)(void *, unsigned char **);
    void *(*ssl_peer_certificate)(const void *);
    void (*crypto_free)(void *, const char *, int);
    void *(*ssl_new)(void *);
    void (*ssl_free)(void *);
    void (*ssl_set_bio)(void *, void *, void *);
    void (*ssl_set_accept_state)(void *);
    int (*ssl_do_handshake)(void *);
    int (*ssl_read)(void *, void *, int);
    int (*ssl_write)(void *, const void *, int);
    int (*ssl_get_error)(const void *, int);
    void *(*bio_new)(const void *);
    const void *(*bio_s_mem)(void);
    void *(*bio_new_mem_buf)(const void *, int);
    long (*bio_ctrl)(void *, int, long, void *);
    int (*bio_read)(void *, void *, int);
    int (*bio_write)(void *, const void *, int);
    int (*bio_free)(void *);
    void *(*pem_read_x509)(void *, void **, void *, void *);
    void *(*pem_read_private_key)(void *, void **, void *, void *);
    int (*pem_write_x509)(void *, void *);
    int (*pem_write_private_key)(void *, void *, const void *, const unsigned char *, int, void *, void *);
    void *(*keygen)(void *, const char *, const char *, ...);
    void *(*pkey_ctx_new_id)(int, void *);
    int (*pkey_keygen_init)(void *);
    int (*pkey_ctx_ctrl)(void *, int, int, int, int, void *);
    int (*pkey_keygen)(void *, void **);
    void (*pkey_ctx_free)(void *);
    void (*pkey_free)(void *);
    void *(*x509_new)(void);
    void (*x509_free)(void *);
    int (*x509_set_version)(void *, long);
    void *(*x509_get_serial)(void *);
    int (*asn1_integer_set)(void *, long);
    void *(*x509_not_before)(void *);
    void *(*x509_not_after)(void *);
    void *(*gmtime_adj)(void *, long);
    int (*x509_set_pubkey)(void *, void *);
    void *(*x509_subject)(const void *);
    int (*name_add_entry)(void *, const char *, int, const unsigned char *, int, int, int);
    int (*x509_set_issuer)(void *, const void *);
    void *(*ext_conf_nid)(void *, void *, int, const char *);
    int (*x509_add_ext)(void *, void *, int);
    void (*ext_free)(void *);
    int (*x509_sign)(void *, void *, const void *);
    const void *(*sha256)(void);
    int (*rand_bytes)(unsigned char *, int);
    unsigned long (*err_get)(void);
    void (*err_string)(unsigned long, char *, size_t);
    void (*err_clear)(void);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

#define BIND(field, name) \
    if (!(*(void **)&api.field = afn_openssl_symbol(name))) { \
        snprintf(load_error, sizeof load_error, "%s not found in OpenSSL", name); \
        return; \
    }

// OpenSSL as the library's bridge loaded it (`afn_openssl_symbol`), with its exit gate.
static void load(void) {
    if (!afn_openssl_load(load_error, sizeof load_error)) return;
    BIND(server_method, "TLS_server_method")
    BIND(ctx_new, "SSL_CTX_new")
    BIND(ctx_free, "SSL_CTX_free")
    BIND(ctx_use_certificate, "SSL_CTX_use_certificate")
    BIND(ctx_use_private_key, "SSL_CTX_use_PrivateKey")
    BIND(ctx_ctrl, "SSL_CTX_ctrl")
    BIND(ctx_check_private_key, "SSL_CTX_check_private_key")
    BIND(ctx_get_cert_store, "SSL_CTX_get_cert_store")
    BIND(store_add_cert, "X509_STORE_add_cert")
    BIND(ctx_add_client_ca, "SSL_CTX_add_client_CA")
    BIND(ctx_set_verify, "SSL_CTX_set_verify")
    BIND(d2i_x509, "d2i_X509")
    BIND(i2d_x509, "i2d_X509")
    // OpenSSL 3's name; 1.1.1's (which 3 keeps as a deprecated alias) has the same meaning:
    // the caller owns the reference returned.
    if (!(*(void **)&api.ssl_peer_certificate = afn_openssl_symbol("SSL_get1_peer_certificate"))) {
        BIND(ssl_peer_certificate, "SSL_get_peer_certificate")
    }
    BIND(crypto_free, "CRYPTO_free")
    BIND(ssl_new, "SSL_new")
    BIND(ssl_free, "SSL_free")
    BIND(ssl_set_bio, "SSL_set_bio")
    BIND(ssl_set_accept_state, "SSL_set_accept_state")
    BIND(ssl_do_handshake, "SSL_do_handshake")
    BIND(ssl_read, "SSL_read")
    BIND(ssl_write, "SSL_write")
    BIND(ssl_get_error, "SSL_get_error")
    BIND(bio_new, "BIO_new")
    BIND(bio_s_mem, "BIO_s_mem")
    BIND(bio_new_mem_buf, "BIO_new_mem_buf")
    BIND(bio_ctrl, "BIO_ctrl")
    BIND(bio_read, "BIO_read")
    BIND(bio_write, "BIO_write")
    BIND(bio_free, "BIO_free")
    BIND(pem_read_x509, "PEM_read_bio_X509")
    BIND(pem_read_private_key, "PEM_read_bio_PrivateKey")
    BIND(pem_write_x509, "PEM_write_bio_X509")
    BIND(pem_write_private_key, "PEM_write_bio_PrivateKey")
    // EVP_PKEY_Q_keygen is OpenSSL 3's; 1.1.1 generates through a key context (`generate_key`).
    *(void **)&api.keygen = afn_openssl_symbol("EVP_PKEY_Q_keygen");
    BIND(pkey_ctx_new_id, "EVP_PKEY_CTX_new_id")
    BIND(pkey_keygen_init, "EVP_PKEY_keygen_init")
    BIND(pkey_ctx_ctrl, "EVP_PKEY_CTX_ctrl")
    BIND(pkey_keygen, "EVP_PKEY_keygen")
    BIND(pkey_ctx_free, "EVP_PKEY_CTX_free")
    BIND(pkey_free, "EVP_PKEY_free")
    BIND(x509_new, "X509_new")
    BIND(x509_free, "X509_free")
    BIND(x509_set_version, "X509_set_version")
    BIND(x509_get_serial, "X509_get_serialNumber")
    BIND(asn1_integer_set, "ASN1_INTEGER_set")
    BIND(x509_not_before, "X509_getm_notBefore")
    BIND(x509_not_after, "X509_getm_notAfter")
    BIND(gmtime_adj, "X509_gmtime_adj")
    BIND(x509_set_pubkey, "X509_set_pubkey")
    BIND(x509_subject, "X509_get_subject_name")
    BIND(name_add_entry, "X509_NAME_add_entry_by_txt")
    BIND(x509_set_issuer, "X509_set_issuer_name")
    BIND(ext_conf_nid, "X509V3_EXT_conf_nid")
    BIND(x509_add_ext, "X509_add_ext")
    BIND(ext_free, "X509_EXTENSION_free")
    BIND(x509_sign, "X509_sign")
    BIND(sha256, "EVP_sha256")
    BIND(rand_bytes, "RAND_bytes")
    BIND(err_get, "ERR_get_error")
    BIND(err_string, "ERR_error_string_n")
    BIND(err_clear, "ERR_clear_error")
    loaded = 1;
}

/// Loads OpenSSL and passes the exit gate (see OpenSSLBridge): 1 to go ahead, then afn_gate_leave.
static int enter(char *error, size_t error_length) {
    pthread_once(&load_once, load);
    if (!loaded) {
        if (error && error_length) snprintf(error, error_length, "%s", load_error);
        return 0;
    }
    if (!afn_gate_enter()) {
        if (error && error_length) snprintf(error, error_length, "the process is exiting");
        return 0;
    }
    return 1;
}

/// OpenSSL's reason for the last failure, into `error`; the thread's error queue is cleared.
static void describe_failure(const char *what, char *error, size_t error_length) {
    char reason[200] = "";
    unsigned long code = api.err_get();
    if (code) api.err_string(code, reason, sizeof reason);
    if (error && error_length) snprintf(error, error_length, "%s failed%s%s", what, code ? ": " : "", reason);
    api.err_clear();
}

static int drain(void *bio, int kind, void (*sink)(int, const char *, size_t, void *), void *context) {
    char *bytes = NULL;
    long length = api.bio_ctrl(bio, 3, 0, &bytes); // BIO_CTRL_INFO: BIO_get_mem_data
    if (length > 0) sink(kind, bytes, (size_t)length, context);
    return length > 0;
}

static int add_extension(void *certificate, int nid, const char *value) {
    void *extension = api.ext_conf_nid(NULL, NULL, nid, value);
    if (!extension) return 0;
    int added = api.x509_add_ext(certificate, extension, -1);
    api.ext_free(extension);
    return added;
}

/// A new EC P-256 key, or NULL.
static void *generate_key(void) {
    if (api.keygen) return api.keygen(NULL, NULL, "EC", "P-256");
    // OpenSSL 1.1.1's EVP_PKEY_CTX_set_ec_paramgen_curve_nid: EVP_PKEY_EC (408), the
    // paramgen and keygen operations (1 << 1 | 1 << 2), EVP_PKEY_CTRL_EC_PARAMGEN_CURVE_NID
    // (0x1001), NID_X9_62_prime256v1 (415).
    void *key = NULL, *context = api.pkey_ctx_new_id(408, NULL);
    if (context && api.pkey_keygen_init(context) == 1 && api.pkey_ctx_ctrl(context, 408, 6, 0x1001, 415, NULL) == 1) {
        if (api.pkey_keygen(context, &key) != 1) key = NULL;
    }
    if (context) api.pkey_ctx_free(context);
    return key;
}

int afn_test_tls_generate(int days, int for_client, void (*sink)(int, const char *, size_t, void *), void *context,
                          char *error, size_t error_length) {
    if (!enter(error, error_length)) return -1;
    int status = -1;
    void *certificate = NULL, *certificate_output = NULL, *key_output = NULL;
    void *key = generate_key();
    if (!key || !(certificate = api.x509_new())) {
        describe_failure("key generation", error, error_length);
        goto done;
    }
    unsigned char random[8];
    long serial = 1;
    if (api.rand_bytes(random, sizeof random) == 1) {
        memcpy(&serial, random, sizeof serial);
        serial = (long)((unsigned long)serial >> 1) | 1; // positive, never zero
    }
    void *subject = api.x509_subject(certificate);
    int built = api.x509_set_version(certificate, 2) // v3
        && api.asn1_integer_set(api.x509_get_serial(certificate), serial)
        && api.gmtime_adj(api.x509_not_before(certificate), -3600)
        && api.gmtime_adj(api.x509_not_after(certificate), (long)days * 86400)
        && api.x509_set_pubkey(certificate, key)
        && api.name_add_entry(subject, "CN", 0x1001, // MBSTRING_ASC
                              (const unsigned char *)(for_client ? "AFNetworkingTesting client" : "AFNetworkingTesting loopback"), -1, -1, 0)
        && api.x509_set_issuer(certificate, subject)
        && add_extension(certificate, 87, "critical,CA:FALSE") // basicConstraints
        && add_extension(certificate, 83, "critical,digitalSignature") // keyUsage
        && add_extension(certificate, 126, for_client ? "clientAuth" : "serverAuth") // extendedKeyUsage
        && (for_client || add_extension(certificate, 85, "IP:127.0.0.1,IP:::1,DNS:localhost")) // subjectAltName
        && api.x509_sign(certificate, key, api.sha256()) > 0;
    certificate_output = api.bio_new(api.bio_s_mem());
    key_output = api.bio_new(api.bio_s_mem());
    if (!built || !certificate_output || !key_output || !api.pem_write_x509(certificate_output, certificate)
        || !api.pem_write_private_key(key_output, key, NULL, NULL, 0, NULL, NULL)) {
        describe_failure("certificate generation", error, error_length);
        goto done;
    }
    if (drain(certificate_output, 0, sink, context) && drain(key_output, 1, sink, context)) status = 0;
done:
    if (certificate_output) api.bio_free(certificate_output);
    if (key_output) api.bio_free(key_output);
    if (certificate) api.x509_free(certificate);
    if (key) api.pkey_free(key);
    api.err_clear();
    afn_gate_leave();
    return status;
}

void *afn_test_tls_context(const char *chain, size_t chain_length, const char *key, size_t key_length,
                           char *error, size_t error_length) {
    if (chain_length > INT32_MAX || key_length > INT32_MAX) {
        if (error && error_length) snprintf(error, error_length, "the PEM data is too large");
        return NULL;
    }
    if (!enter(error, error_length)) return NULL;
    void *context = api.ctx_new(api.server_method());
    void *chain_input = api.bio_new_mem_buf(chain, (int)chain_length);
    void *key_input = api.bio_new_mem_buf(key, (int)key_length);
    void *leaf = chain_input ? api.pem_read_x509(chain_input, NULL, NULL, NULL) : NULL;
    void *private_key = key_input ? api.pem_read_private_key(key_input, NULL, NULL, NULL) : NULL;
    int ready = context && leaf && private_key && api.ctx_use_certificate(context, leaf) == 1
        && api.ctx_use_private_key(context, private_key) == 1 && api.ctx_check_private_key(context) == 1;
    for (void *next; ready && (next = api.pem_read_x509(chain_input, NULL, NULL, NULL));) {
        // SSL_CTRL_EXTRA_CHAIN_CERT: the context takes the certificate.
        if (api.ctx_ctrl(context, 14, 0, next) != 1) {
            api.x509_free(next);
            ready = 0;
        }
    }
    if (!ready) {
        describe_failure(!leaf ? "reading the certificate" : !private_key ? "reading the key" : "setting up the context", error, error_length);
        if (context) api.ctx_free(context);
        context = NULL;
    }
    if (leaf) api.x509_free(leaf);
    if (private_key) api.pkey_free(private_key);
    if (chain_input) api.bio_free(chain_input);
    if (key_input) api.bio_free(key_input);
    api.err_clear(); // the end of the chain reads as a PEM error
    afn_gate_leave();
    return context;
}

int afn_test_tls_require_client_certificates(void *context, const unsigned char *const *anchors, const size_t *lengths, size_t count,
                                             char *error, size_t error_length) {
    if (!enter(error, error_length)) return -1;
    void *store = api.ctx_get_cert_store(context);
    int status = store ? 0 : -1;
    for (size_t index = 0; status == 0 && index < count; index++) {
        const unsigned char *cursor = anchors[index];
        void *anchor = lengths[index] <= INT32_MAX ? api.d2i_x509(NULL, &cursor, (long)lengths[index]) : NULL;
        // The store takes its own reference; the client CA list takes `anchor`.
        if (!anchor || api.store_add_cert(store, anchor) != 1 || api.ctx_add_client_ca(context, anchor) != 1) status = -1;
        if (anchor) api.x509_free(anchor);
    }
    if (status == 0) {
        api.ctx_set_verify(context, 0x01 | 0x02, NULL); // SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
    } else {
        describe_failure("reading a client certificate authority", error, error_length);
    }
    api.err_clear();
    afn_gate_leave();
    return status;
}

void afn_test_tls_context_free(void *context) {
    if (!context || !enter(NULL, 0)) return;
    api.ctx_free(context);
    afn_gate_leave();
}

// A connection keeps OpenSSL away from the socket: the handshake and records go through memory
// BIOs, so that no OpenSSL call blocks (the exit gate is held only around calls that return at
// once) and the socket is read and written here, outside the gate.
struct connection {
    void *ssl;
    void *input;  // the socket's bytes, for OpenSSL to read
    void *output; // OpenSSL's bytes, for the socket
    int fd;
};

static int send_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t sent = send(fd, bytes, length, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return 0;
        bytes += sent;
        length -= (size_t)sent;
    }
    return 1;
}

/// Inside the gate: takes what OpenSSL wrote into `*bytes` (malloc'd) and its length.
static size_t take_output(struct connection *connection, char **bytes) {
    *bytes = NULL;
    long pending = api.bio_ctrl(connection->output, 10, 0, NULL); // BIO_CTRL_PENDING
    if (pending <= 0 || !(*bytes = malloc((size_t)pending))) return 0;
    int read = api.bio_read(connection->output, *bytes, (int)pending);
    return read > 0 ? (size_t)read : 0;
}

/// Outside the gate: sends what `take_output` took and frees it.
static int flush(struct connection *connection, char *bytes, size_t length) {
    int sent = send_all(connection->fd, bytes, length);
    free(bytes);
    return sent;
}

/// Outside the gate: reads the socket and hands the bytes to OpenSSL. 1, or 0 at the end.
static int feed(struct connection *connection) {
    char buffer[16 * 1024];
    ssize_t received;
    do received = recv(connection->fd, buffer, sizeof buffer, 0);
    while (received < 0 && errno == EINTR);
    if (received <= 0 || !enter(NULL, 0)) return 0;
    int written = api.bio_write(connection->input, buffer, (int)received);
    afn_gate_leave();
    return written == received;
}

void *afn_test_tls_accept(void *context, int fd) {
    struct connection *connection = calloc(1, sizeof *connection);
    if (!connection) return NULL;
    connection->fd = fd;
    if (!enter(NULL, 0)) {
        free(connection);
        return NULL;
    }
    connection->ssl = api.ssl_new(context);
    connection->input = api.bio_new(api.bio_s_mem());
    connection->output = api.bio_new(api.bio_s_mem());
    int ready = connection->ssl && connection->input && connection->output;
    if (ready) {
        api.ssl_set_bio(connection->ssl, connection->input, connection->output); // the SSL takes both
        api.ssl_set_accept_state(connection->ssl);
    } else {
        if (connection->input) api.bio_free(connection->input);
        if (connection->output) api.bio_free(connection->output);
        connection->input = connection->output = NULL;
    }
    afn_gate_leave();
    while (ready) {
        if (!enter(NULL, 0)) break;
        int result = api.ssl_do_handshake(connection->ssl);
        int reason = result == 1 ? 0 : api.ssl_get_error(connection->ssl, result);
        char *bytes;
        size_t length = take_output(connection, &bytes);
        api.err_clear();
        afn_gate_leave();
        if (!flush(connection, bytes, length)) break;
        if (result == 1) return connection;
        if (reason != 2 || !feed(connection)) break; // SSL_ERROR_WANT_READ
    }
    afn_test_tls_free(connection);
    return NULL;
}

long afn_test_tls_read(void *opaque, void *buffer, size_t length) {
    struct connection *connection = opaque;
    int wanted = length > INT32_MAX ? INT32_MAX : (int)length;
    while (1) {
        if (!enter(NULL, 0)) return -1;
        int result = api.ssl_read(connection->ssl, buffer, wanted);
        int reason = result > 0 ? 0 : api.ssl_get_error(connection->ssl, result);
        char *bytes;
        size_t pending = take_output(connection, &bytes);
        api.err_clear();
        afn_gate_leave();
        if (!flush(connection, bytes, pending)) return -1;
        if (result > 0) return result;
        if (reason == 6) return 0; // SSL_ERROR_ZERO_RETURN: close_notify
        if (reason != 2) return -1;
        if (!feed(connection)) return 0;
    }
}

int afn_test_tls_write(void *opaque, const void *buffer, size_t length) {
    struct connection *connection = opaque;
    const char *cursor = buffer;
    while (length > 0) {
        // In pieces, so that the encrypted copy OpenSSL keeps stays small.
        int piece = length > 64 * 1024 ? 64 * 1024 : (int)length;
        if (!enter(NULL, 0)) return -1;
        int written = api.ssl_write(connection->ssl, cursor, piece);
        char *bytes;
        size_t pending = take_output(connection, &bytes);
        api.err_clear();
        afn_gate_leave();
        if (!flush(connection, bytes, pending) || written != piece) return -1;
        cursor += piece;
        length -= (size_t)piece;
    }
    return 0;
}

int afn_test_tls_peer_certificate(void *opaque, void (*sink)(const unsigned char *der, size_t length, void *context), void *context) {
    struct connection *connection = opaque;
    if (!connection || !enter(NULL, 0)) return 0;
    void *certificate = api.ssl_peer_certificate(connection->ssl);
    unsigned char *der = NULL;
    int length = certificate ? api.i2d_x509(certificate, &der) : -1;
    if (length > 0) sink(der, (size_t)length, context);
    if (der) api.crypto_free(der, __FILE__, __LINE__); // OPENSSL_free
    if (certificate) api.x509_free(certificate);
    api.err_clear();
    afn_gate_leave();
    return length > 0;
}

void afn_test_tls_free(void *opaque) {
    struct connection *connection = opaque;
    if (!connection) return;
    if (connection->ssl && enter(NULL, 0)) {
        api.ssl_free(connection->ssl);
        afn_gate_leave();
    }
    free(connection);
}
