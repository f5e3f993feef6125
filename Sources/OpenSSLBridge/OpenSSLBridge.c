#define _GNU_SOURCE // dladdr
#include "OpenSSLBridge.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    int (*init_ssl)(uint64_t, const void *);
    void (*ctx_set_cert_verify_callback)(void *, int (*)(void *, void *), void *);
    uint64_t (*ctx_set_options)(void *, uint64_t);
    void *(*store_ctx_get0_untrusted)(void *);
    void *(*store_ctx_get0_cert)(void *);
    void (*store_ctx_set_error)(void *, int);
    int (*store_ctx_get_error)(void *);
    void *(*store_ctx_get0_chain)(void *);
    void *(*store_ctx_new)(void);
    void (*store_ctx_free)(void *);
    int (*store_ctx_init)(void *, void *, void *, void *);
    void *(*store_new)(void);
    void (*store_free)(void *);
    int (*store_add_cert)(void *, void *);
    int (*store_set_default_paths)(void *);
    int (*store_set_flags)(void *, unsigned long);
    int (*verify_cert)(void *);
    int (*store_ctx_set_default)(void *, const char *);
    void *(*store_ctx_get0_param)(void *);
    void (*param_set_auth_level)(void *, int);
    const void *(*tls_client_method)(void);
    void *(*ssl_ctx_new)(const void *);
    void (*ssl_ctx_free)(void *);
    int (*ssl_ctx_get_security_level)(const void *);
    const char *(*verify_error_string)(long);
    void *(*d2i_x509)(void **, const unsigned char **, long);
    int (*i2d_x509)(void *, unsigned char **);
    void (*x509_free)(void *);
    int (*sk_num)(const void *);
    void *(*sk_value)(const void *, int);
    void *(*sk_new_null)(void);
    int (*sk_push)(void *, const void *);
    void (*sk_free)(void *);
    void (*crypto_free)(void *, const char *, int);
    void (*ctx_set_client_cert_cb)(void *, int (*)(void *, void **, void **));
    void *(*get_ssl_ctx)(const void *);
    int (*get_ex_new_index)(int, long, void *, void *, void *, void *);
    int (*ctx_set_ex_data)(void *, int, void *);
    void *(*ctx_get_ex_data)(const void *, int);
    void *(*bio_new_mem_buf)(const void *, int);
    void *(*bio_new)(const void *);
    const void *(*bio_s_mem)(void);
    long (*bio_ctrl)(void *, int, long, void *);
    int (*bio_free)(void *);
    void *(*pem_read_x509)(void *, void **, int (*)(char *, int, int, void *), void *);
    void *(*pem_read_private_key)(void *, void **, int (*)(char *, int, int, void *), void *);
    int (*pem_write_x509)(void *, void *);
    int (*pem_write_private_key)(void *, void *, const void *, const unsigned char *, int, void *, void *);
    void *(*d2i_pkcs12_bio)(void *, void **);
    int (*pkcs12_parse)(void *, const char *, void **, void **, void **);
    void (*pkcs12_free)(void *);
    int (*check_private_key)(const void *, const void *);
    void (*pkey_free)(void *);
    void (*err_clear)(void);
    const char *(*ssl_get_version)(const void *);
    const void *(*ssl_get_current_cipher)(const void *);
    const char *(*cipher_get_name)(const void *);
    unsigned long (*version_number)(void);
    const char *(*version_text)(int);
    void *(*store_ctx_get_ex_data)(const void *, int);
    int (*store_ctx_ssl_index)(void);
    int (*ssl_set_ex_data)(void *, int, void *);
    void *(*ssl_get_ex_data)(const void *, int);
    int (*purpose_by_sname)(const char *);
    void *(*purpose_get0)(int);
    int (*purpose_get_id)(const void *);
} api;

// The exit gate. Where OpenSSL was initialized before the bridge (see `load`, which asks for no
// clean-up at exit when it is first), OpenSSL has registered OPENSSL_cleanup with atexit, which frees its global state
// (the ex_data locks among it) while other threads may still be inside libcurl or OpenSSL:
// a manager released on a dispatch worker as the process exits ran curl_multi_cleanup ->
// SSL_CTX_free -> X509_STORE_free -> CRYPTO_free_ex_data on a freed lock and crashed (SEGV
// at 0x18 in pthread_rwlock_unlock). Every entry point here and in LibcurlBridge that can reach
// OpenSSL's state passes the gate; `close_gate_at_exit`, registered after OpenSSL's own handler
// and so run before it, closes the gate and waits for the calls already inside. Once it is closed,
// cleanups are skipped (the process is ending) and transfers make no progress.
static atomic_int gate_users;
static atomic_int gate_closed;
static _Thread_local int gate_depth;

int afn_gate_enter(void) {
    atomic_fetch_add(&gate_users, 1);
    if (atomic_load(&gate_closed)) {
        atomic_fetch_sub(&gate_users, 1);
        return 0;
    }
    gate_depth++;
    return 1;
}

void afn_gate_leave(void) {
    gate_depth--;
    atomic_fetch_sub(&gate_users, 1);
}

static void close_gate_at_exit(void) {
    atomic_store(&gate_closed, 1);
    // Calls inside the gate are short (no call blocks on the network); the bound keeps a
    // stuck thread from holding up the exit. This thread's own calls, if exit() was called
    // from inside one, are not waited for.
    for (int waited = 0; atomic_load(&gate_users) > gate_depth && waited < 5000; waited++) usleep(1000);
}

/// The SSL_CTX ex_data slot holding a connection's certificate-request watcher, freed with it.
static int certificate_request_index = -1;
static void free_watcher(void *parent, void *watcher, void *ex_data, int index, long argl, void *argp);

/// The SSL ex_data slot marking a connection whose chain the application's verification
/// accepted (`afn_store_ctx_mark_trusted`); it holds `trusted_mark`'s address, nothing to free.
static int trusted_index = -1;
static const char trusted_mark = 1;

/// The security level chains are verified at (X509_VERIFY_PARAM_set_auth_level), set by `load`.
static int authentication_level = 2;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

/// dlerror()'s message, or words saying there was none (it returns NULL then).
static const char *dynamic_loader_error(void) {
    const char *message = dlerror();
    return message ? message : "no reason given by the dynamic loader";
}

#define BIND(library, field, name) \
    if (!(*(void **)&api.field = dlsym(library, name))) { \
        snprintf(load_error, sizeof load_error, "%s (%s) lacks %s, which the bridge calls", version_text, library_path, name); \
        return; \
    }

static void *ssl_library, *crypto_library;
/// Where libssl was found, and whether it is the one libcurl's own symbols resolve to.
static char library_path[512];
static int found_through_libcurl;
/// OpenSSL_version(OPENSSL_VERSION) of the library loaded, once known.
static const char *version_text = "OpenSSL";

/// The library defining `symbol` as `scope` (a dlopen handle) resolves it, opened again by the
/// path the dynamic loader knows it by (no second copy is loaded); its path into `path`.
static void *library_defining(void *scope, const char *symbol, char *path, size_t path_length) {
    void *address = dlsym(scope, symbol);
    Dl_info info;
    if (!address || !dladdr(address, &info) || !info.dli_fname || !info.dli_fname[0]) return NULL;
    if (path) snprintf(path, path_length, "%s", info.dli_fname);
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

/// Finds the OpenSSL to bind: the one libcurl itself calls, whatever its soname (looked up
/// through libcurl's own dependencies, not guessed by name), so that the SSL_CTX libcurl
/// hands the transport's hook is one this bridge's functions understand; where libcurl has no
/// OpenSSL among its libraries (another TLS backend), OpenSSL 3 or 4 by name, for the chain
/// verifier alone (the transport then refuses, see LibcurlBridge).
static int find_libraries(void) {
    void *curl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (curl) {
        ssl_library = library_defining(curl, "SSL_CTX_new", library_path, sizeof library_path);
        crypto_library = library_defining(curl, "ERR_clear_error", NULL, 0);
        if (ssl_library && crypto_library) {
            found_through_libcurl = 1;
            return 1;
        }
    }
    static const char *const names[][2] = {{"libssl.so.3", "libcrypto.so.3"}, {"libssl.so.4", "libcrypto.so.4"}};
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        ssl_library = dlopen(names[index][0], RTLD_NOW | RTLD_GLOBAL);
        crypto_library = ssl_library ? dlopen(names[index][1], RTLD_NOW | RTLD_GLOBAL) : NULL;
        if (ssl_library && crypto_library) {
            snprintf(library_path, sizeof library_path, "%s", names[index][0]);
            return 1;
        }
    }
    snprintf(load_error, sizeof load_error, "libcurl has no OpenSSL among its libraries, and neither libssl.so.3 nor libssl.so.4 loads: %s",
             dynamic_loader_error());
    return 0;
}

int afn_openssl_version_is_supported(unsigned long number) {
    // 1.1.1b: OPENSSL_INIT_NO_ATEXIT (see `load`). 1.1.1's and 3.x's functions, and the numbers
    // the bridge passes them (verification flags, error codes, purposes, ex_data classes, BIO
    // controls), are the same; `behaves` checks those it can observe.
    return number >= 0x10101020UL;
}

/// The loaded library numbers what the bridge relies on as its headers did: the TLS server
/// purpose (X509_PURPOSE_SSL_SERVER, 2, what "ssl_server" sets) and the verification errors
/// ChainVerifier maps (by OpenSSL's own text for each code, the same in 1.1.1 and 3.x).
static int behaves(void) {
    int purpose = api.purpose_by_sname("sslserver");
    if (purpose < 0 || api.purpose_get_id(api.purpose_get0(purpose)) != 2) {
        snprintf(load_error, sizeof load_error, "%s numbers the TLS server purpose differently", version_text);
        return 0;
    }
    // Each code's text in 1.1.1 and in 3.x (where two wordings exist).
    static const struct { int code; const char *text, *other; } errors[] = {
        {2, "unable to get issuer certificate", NULL}, {9, "certificate is not yet valid", NULL}, {10, "certificate has expired", NULL},
        {20, "unable to get local issuer certificate", NULL}, {26, "unsupported certificate purpose", "unsuitable certificate purpose"},
        {50, "application verification failure", NULL},
    };
    for (size_t index = 0; index < sizeof errors / sizeof errors[0]; index++) {
        const char *text = api.verify_error_string(errors[index].code);
        if (!text || (strcmp(text, errors[index].text) != 0 && (!errors[index].other || strcmp(text, errors[index].other) != 0))) {
            snprintf(load_error, sizeof load_error, "%s names verification error %d \"%s\", not \"%s\"", version_text, errors[index].code,
                     text ? text : "", errors[index].text);
            return 0;
        }
    }
    return 1;
}

static void load(void) {
    if (!find_libraries()) return;
    void *crypto = crypto_library, *ssl = ssl_library;
    // OpenSSL_version_num and OpenSSL_version exist from 1.1.0; 1.0.x names them SSLeay*.
    *(void **)&api.version_number = dlsym(crypto, "OpenSSL_version_num");
    *(void **)&api.version_text = dlsym(crypto, "OpenSSL_version");
    if (!api.version_number || !api.version_text) {
        const char *(*old_text)(int) = (const char *(*)(int))dlsym(crypto, "SSLeay_version");
        snprintf(load_error, sizeof load_error, "%s (%s) is older than OpenSSL 1.1.1b, the oldest the bridge supports",
                 old_text && old_text(0) ? old_text(0) : "OpenSSL", library_path);
        return;
    }
    version_text = api.version_text(0) ? api.version_text(0) : "OpenSSL"; // OPENSSL_VERSION
    if (!afn_openssl_version_is_supported(api.version_number())) {
        snprintf(load_error, sizeof load_error, "%s (%s) is older than OpenSSL 1.1.1b, the oldest the bridge supports", version_text,
                 library_path);
        return;
    }
    BIND(ssl, init_ssl, "OPENSSL_init_ssl")
    BIND(ssl, ctx_set_cert_verify_callback, "SSL_CTX_set_cert_verify_callback")
    BIND(ssl, ctx_set_options, "SSL_CTX_set_options")
    BIND(crypto, store_ctx_get0_untrusted, "X509_STORE_CTX_get0_untrusted")
    BIND(crypto, store_ctx_get0_cert, "X509_STORE_CTX_get0_cert")
    BIND(crypto, store_ctx_set_error, "X509_STORE_CTX_set_error")
    BIND(crypto, store_ctx_get_error, "X509_STORE_CTX_get_error")
    BIND(crypto, store_ctx_get0_chain, "X509_STORE_CTX_get0_chain")
    BIND(crypto, store_ctx_new, "X509_STORE_CTX_new")
    BIND(crypto, store_ctx_free, "X509_STORE_CTX_free")
    BIND(crypto, store_ctx_init, "X509_STORE_CTX_init")
    BIND(crypto, store_new, "X509_STORE_new")
    BIND(crypto, store_free, "X509_STORE_free")
    BIND(crypto, store_add_cert, "X509_STORE_add_cert")
    BIND(crypto, store_set_default_paths, "X509_STORE_set_default_paths")
    BIND(crypto, store_set_flags, "X509_STORE_set_flags")
    BIND(crypto, verify_cert, "X509_verify_cert")
    BIND(crypto, store_ctx_set_default, "X509_STORE_CTX_set_default")
    BIND(crypto, store_ctx_get0_param, "X509_STORE_CTX_get0_param")
    BIND(crypto, param_set_auth_level, "X509_VERIFY_PARAM_set_auth_level")
    BIND(ssl, tls_client_method, "TLS_client_method")
    BIND(ssl, ssl_ctx_new, "SSL_CTX_new")
    BIND(ssl, ssl_ctx_free, "SSL_CTX_free")
    BIND(ssl, ssl_ctx_get_security_level, "SSL_CTX_get_security_level")
    BIND(crypto, verify_error_string, "X509_verify_cert_error_string")
    BIND(crypto, d2i_x509, "d2i_X509")
    BIND(crypto, i2d_x509, "i2d_X509")
    BIND(crypto, x509_free, "X509_free")
    BIND(crypto, sk_num, "OPENSSL_sk_num")
    BIND(crypto, sk_value, "OPENSSL_sk_value")
    BIND(crypto, sk_new_null, "OPENSSL_sk_new_null")
    BIND(crypto, sk_push, "OPENSSL_sk_push")
    BIND(crypto, sk_free, "OPENSSL_sk_free")
    BIND(crypto, crypto_free, "CRYPTO_free")
    BIND(ssl, ctx_set_client_cert_cb, "SSL_CTX_set_client_cert_cb")
    BIND(ssl, get_ssl_ctx, "SSL_get_SSL_CTX")
    BIND(crypto, get_ex_new_index, "CRYPTO_get_ex_new_index")
    BIND(ssl, ctx_set_ex_data, "SSL_CTX_set_ex_data")
    BIND(ssl, ctx_get_ex_data, "SSL_CTX_get_ex_data")
    BIND(crypto, bio_new_mem_buf, "BIO_new_mem_buf")
    BIND(crypto, bio_new, "BIO_new")
    BIND(crypto, bio_s_mem, "BIO_s_mem")
    BIND(crypto, bio_ctrl, "BIO_ctrl")
    BIND(crypto, bio_free, "BIO_free")
    BIND(crypto, pem_read_x509, "PEM_read_bio_X509")
    BIND(crypto, pem_read_private_key, "PEM_read_bio_PrivateKey")
    BIND(crypto, pem_write_x509, "PEM_write_bio_X509")
    BIND(crypto, pem_write_private_key, "PEM_write_bio_PrivateKey")
    BIND(crypto, d2i_pkcs12_bio, "d2i_PKCS12_bio")
    BIND(crypto, pkcs12_parse, "PKCS12_parse")
    BIND(crypto, pkcs12_free, "PKCS12_free")
    BIND(crypto, check_private_key, "X509_check_private_key")
    BIND(crypto, pkey_free, "EVP_PKEY_free")
    BIND(crypto, err_clear, "ERR_clear_error")
    BIND(ssl, ssl_get_version, "SSL_get_version")
    BIND(ssl, ssl_get_current_cipher, "SSL_get_current_cipher")
    BIND(ssl, cipher_get_name, "SSL_CIPHER_get_name")
    BIND(crypto, store_ctx_get_ex_data, "X509_STORE_CTX_get_ex_data")
    BIND(ssl, store_ctx_ssl_index, "SSL_get_ex_data_X509_STORE_CTX_idx")
    BIND(ssl, ssl_set_ex_data, "SSL_set_ex_data")
    BIND(ssl, ssl_get_ex_data, "SSL_get_ex_data")
    BIND(crypto, purpose_by_sname, "X509_PURPOSE_get_by_sname")
    BIND(crypto, purpose_get0, "X509_PURPOSE_get0")
    BIND(crypto, purpose_get_id, "X509_PURPOSE_get_id")
    if (!behaves()) return;
    certificate_request_index = api.get_ex_new_index(1, 0, NULL, NULL, NULL, (void *)free_watcher); // CRYPTO_EX_INDEX_SSL_CTX
    trusted_index = api.get_ex_new_index(0, 0, NULL, NULL, NULL, NULL); // CRYPTO_EX_INDEX_SSL
    if (certificate_request_index < 0 || trusted_index < 0) {
        snprintf(load_error, sizeof load_error, "CRYPTO_get_ex_new_index failed");
        return;
    }
    // OpenSSL registers its atexit clean-up on its first initialization unless asked not to
    // (OPENSSL_INIT_NO_ATEXIT). Where this is the first (the managers load the bridge before
    // their URLSession initializes libcurl), there is no clean-up at exit, so nothing frees
    // OpenSSL's state under a thread still using it: not only the calls behind the gate but
    // also what no gate can cover, such as OpenSSL's own thread-exit handlers on a dispatch
    // worker retiring as the process exits (a residual SEGV in CRYPTO_THREAD_unlock under the
    // thread sanitizer). Where something initialized OpenSSL earlier, its clean-up is
    // registered already; handlers run in reverse order, so the gate closes before it runs.
    if (!api.init_ssl(0x00080000, NULL)) { // OPENSSL_INIT_NO_ATEXIT
        snprintf(load_error, sizeof load_error, "OPENSSL_init_ssl failed");
        return;
    }
    // The security level a TLS client of this system gets (openssl.cnf; Debian sets 2), which is
    // what curl's handshake enforces on the server's chain; never below 2 (RSA keys of 2048 bits
    // and more, no SHA-1 or MD5 signatures), whatever the system allows.
    void *probe = api.ssl_ctx_new(api.tls_client_method());
    if (probe) {
        int level = api.ssl_ctx_get_security_level(probe);
        if (level > authentication_level) authentication_level = level;
        api.ssl_ctx_free(probe);
    }
    if (atexit(close_gate_at_exit) != 0) {
        snprintf(load_error, sizeof load_error, "atexit failed");
        return;
    }
    loaded = 1;
}

int afn_openssl_load(char *error, size_t error_length) {
    pthread_once(&load_once, load);
    if (!loaded && error && error_length) snprintf(error, error_length, "%s", load_error);
    return loaded;
}

const char *afn_openssl_version(void) {
    pthread_once(&load_once, load);
    return api.version_text ? version_text : NULL;
}

const char *afn_openssl_library_path(void) {
    pthread_once(&load_once, load);
    return library_path[0] ? library_path : NULL;
}

int afn_openssl_is_libcurls(void) {
    pthread_once(&load_once, load);
    return found_through_libcurl;
}

void *afn_openssl_symbol(const char *name) {
    pthread_once(&load_once, load);
    if (!loaded) return NULL;
    void *symbol = dlsym(ssl_library, name);
    return symbol ? symbol : dlsym(crypto_library, name);
}

int afn_ssl_ctx_set_verify(void *ssl_ctx, int (*callback)(void *, void *), void *argument) {
    // SSL_OP_NO_RENEGOTIATION: the callback may run only in the first handshake, while the
    // transfer that opened the connection (its `argument`) is alive.
    api.ctx_set_options(ssl_ctx, (uint64_t)1 << 30);
    api.ctx_set_cert_verify_callback(ssl_ctx, callback, argument);
    return 0;
}

static void each_der(const void *stack, afn_der_sink sink, void *context) {
    int count = stack ? api.sk_num(stack) : 0;
    for (int index = 0; index < count; index++) {
        unsigned char *der = NULL;
        int length = api.i2d_x509(api.sk_value(stack, index), &der);
        if (length > 0) sink(der, length, context);
        api.crypto_free(der, __FILE__, __LINE__);
    }
}

void afn_store_ctx_presented_chain(void *store_ctx, afn_der_sink sink, void *context) {
    void *untrusted = api.store_ctx_get0_untrusted(store_ctx);
    if (untrusted && api.sk_num(untrusted) > 0) {
        each_der(untrusted, sink, context);
        return;
    }
    void *leaf = api.store_ctx_get0_cert(store_ctx);
    if (!leaf) return;
    unsigned char *der = NULL;
    int length = api.i2d_x509(leaf, &der);
    if (length > 0) sink(der, length, context);
    api.crypto_free(der, __FILE__, __LINE__);
}

int afn_store_ctx_mark_trusted(void *store_ctx) {
    void *ssl = api.store_ctx_get_ex_data(store_ctx, api.store_ctx_ssl_index());
    return ssl && api.ssl_set_ex_data(ssl, trusted_index, (void *)&trusted_mark) == 1;
}

int afn_ssl_is_trusted(const void *ssl) {
    return ssl && api.ssl_get_ex_data(ssl, trusted_index) == &trusted_mark;
}

void afn_store_ctx_reject(void *store_ctx) {
    api.store_ctx_set_error(store_ctx, 50); // X509_V_ERR_APPLICATION_VERIFICATION
}

static void *decode(const unsigned char *der, int length) {
    const unsigned char *cursor = der;
    return api.d2i_x509(NULL, &cursor, length);
}

int afn_verify_chain(const unsigned char *const *chain, const int *chain_lengths, int chain_count,
                     const unsigned char *const *anchors, const int *anchor_lengths, int anchor_count,
                     int partial_chain, afn_der_sink sink, void *context) {
    if (chain_count < 1 || !afn_gate_enter()) return -1;
    int status = -1;
    void *store = api.store_new();
    void *untrusted = api.sk_new_null();
    void *store_ctx = api.store_ctx_new();
    void *leaf = NULL;
    if (!store || !untrusted || !store_ctx) goto done;
    for (int index = 0; index < chain_count; index++) {
        void *certificate = decode(chain[index], chain_lengths[index]);
        if (!certificate) goto done;
        if (index == 0) leaf = certificate;
        api.sk_push(untrusted, certificate);
    }
    if (anchor_count > 0) {
        for (int index = 0; index < anchor_count; index++) {
            void *anchor = decode(anchors[index], anchor_lengths[index]);
            if (!anchor) goto done;
            api.store_add_cert(store, anchor); // the store takes its own reference
            api.x509_free(anchor);
        }
    } else {
        api.store_set_default_paths(store);
    }
    // curl's defaults: trusted certificates first when building the path (so that an expired
    // cross certificate the server sends does not hide a valid path) and, unless the policy
    // refuses it, a chain may end at any trusted certificate (X509_V_FLAG_PARTIAL_CHAIN).
    api.store_set_flags(store, 0x8000 | (partial_chain ? 0x80000 : 0)); // X509_V_FLAG_TRUSTED_FIRST
    if (api.store_ctx_init(store_ctx, store, leaf, untrusted) != 1) goto done;
    // What libssl sets for a client verifying a server (ssl_verify_cert_chain): the TLS server
    // purpose and trust, so that the leaf's key usage and extended key usage (and any CA's
    // extended key usage) must allow a TLS server, and the security level for keys and digests.
    if (api.store_ctx_set_default(store_ctx, "ssl_server") != 1) goto done;
    api.param_set_auth_level(api.store_ctx_get0_param(store_ctx), authentication_level);
    if (api.verify_cert(store_ctx) == 1) {
        status = 0;
        if (sink) each_der(api.store_ctx_get0_chain(store_ctx), sink, context);
    } else {
        status = api.store_ctx_get_error(store_ctx);
        if (status == 0) status = 1; // X509_V_ERR_UNSPECIFIED
    }
done:
    if (store_ctx) api.store_ctx_free(store_ctx);
    if (untrusted) {
        int count = api.sk_num(untrusted);
        for (int index = 0; index < count; index++) api.x509_free(api.sk_value(untrusted, index));
        api.sk_free(untrusted);
    }
    if (store) api.store_free(store);
    afn_gate_leave();
    return status;
}

const char *afn_verify_error_string(int code) { return api.verify_error_string(code); }

struct certificate_request_watcher {
    void (*requested)(void *argument);
    void *argument;
};

static void free_watcher(void *parent, void *watcher, void *ex_data, int index, long argl, void *argp) {
    (void)parent; (void)ex_data; (void)index; (void)argl; (void)argp;
    free(watcher);
}

// OpenSSL calls this only when the server sent a CertificateRequest and no certificate is set.
// Renegotiation is off (afn_ssl_ctx_set_verify), so it runs in the first handshake only, while
// the transfer that opened the connection is alive.
static int certificate_requested(void *ssl, void **x509, void **pkey) {
    (void)x509; (void)pkey;
    struct certificate_request_watcher *watcher = api.ctx_get_ex_data(api.get_ssl_ctx(ssl), certificate_request_index);
    if (watcher) watcher->requested(watcher->argument);
    return 0; // go on without a certificate
}

int afn_ssl_ctx_on_certificate_request(void *ssl_ctx, void (*requested)(void *), void *argument) {
    struct certificate_request_watcher *watcher = api.ctx_get_ex_data(ssl_ctx, certificate_request_index);
    if (!watcher) {
        watcher = malloc(sizeof *watcher);
        if (!watcher) return -1;
        if (!api.ctx_set_ex_data(ssl_ctx, certificate_request_index, watcher)) {
            free(watcher);
            return -1;
        }
    }
    watcher->requested = requested;
    watcher->argument = argument;
    api.ctx_set_client_cert_cb(ssl_ctx, certificate_requested);
    return 0;
}

static int passphrase_callback(char *buffer, int size, int writing, void *passphrase) {
    (void)writing;
    if (!passphrase) return -1; // never prompt on the terminal
    int length = (int)strlen(passphrase);
    if (length > size) length = size;
    memcpy(buffer, passphrase, (size_t)length);
    return length;
}

// Hands the memory BIO's contents to `sink` and frees it.
static int drain(void *bio, int kind, void (*sink)(int, const char *, size_t, void *), void *context) {
    char *bytes = NULL;
    long length = api.bio_ctrl(bio, 3, 0, &bytes); // BIO_CTRL_INFO: BIO_get_mem_data
    if (length > 0) sink(kind, bytes, (size_t)length, context);
    api.bio_free(bio);
    return length > 0;
}

int afn_identity_load(const unsigned char *certificates, size_t certificates_length,
                      const unsigned char *key, size_t key_length, int pkcs12, const char *passphrase,
                      void (*sink)(int, const char *, size_t, void *), void *context) {
    if (certificates_length > INT32_MAX || key_length > INT32_MAX || !afn_gate_enter()) return AFN_IDENTITY_FAILED;
    int status = AFN_IDENTITY_FAILED;
    void *leaf = NULL, *private_key = NULL, *extra = api.sk_new_null(), *container = NULL;
    void *input = api.bio_new_mem_buf(certificates, (int)certificates_length);
    if (!input || !extra) goto done;
    if (pkcs12) {
        void *extra_from_container = NULL;
        container = api.d2i_pkcs12_bio(input, NULL);
        if (!container || !api.pkcs12_parse(container, passphrase ? passphrase : "", &private_key, &leaf, &extra_from_container)) {
            status = AFN_IDENTITY_BAD_PKCS12;
            goto done;
        }
        if (extra_from_container) {
            api.sk_free(extra);
            extra = extra_from_container;
        }
        if (!leaf || !private_key) {
            status = AFN_IDENTITY_BAD_PKCS12;
            goto done;
        }
    } else {
        leaf = api.pem_read_x509(input, NULL, passphrase_callback, NULL);
        if (!leaf) {
            status = AFN_IDENTITY_BAD_CERTIFICATE;
            goto done;
        }
        for (void *next; (next = api.pem_read_x509(input, NULL, passphrase_callback, NULL));) api.sk_push(extra, next);
        void *key_input = key ? api.bio_new_mem_buf(key, (int)key_length) : api.bio_new_mem_buf(certificates, (int)certificates_length);
        if (!key_input) goto done;
        private_key = api.pem_read_private_key(key_input, NULL, passphrase_callback, (void *)passphrase);
        api.bio_free(key_input);
        if (!private_key) {
            status = AFN_IDENTITY_BAD_KEY;
            goto done;
        }
    }
    if (api.check_private_key(leaf, private_key) != 1) {
        status = AFN_IDENTITY_KEY_MISMATCH;
        goto done;
    }
    void *chain_output = api.bio_new(api.bio_s_mem());
    void *key_output = api.bio_new(api.bio_s_mem());
    int written = chain_output && key_output && api.pem_write_x509(chain_output, leaf)
        && api.pem_write_private_key(key_output, private_key, NULL, NULL, 0, NULL, NULL);
    for (int index = 0; written && index < api.sk_num(extra); index++) written = api.pem_write_x509(chain_output, api.sk_value(extra, index));
    if (written) {
        drain(chain_output, 0, sink, context);
        drain(key_output, 1, sink, context);
        status = AFN_IDENTITY_OK;
    } else {
        if (chain_output) api.bio_free(chain_output);
        if (key_output) api.bio_free(key_output);
    }
done:
    if (input) api.bio_free(input);
    if (container) api.pkcs12_free(container);
    if (leaf) api.x509_free(leaf);
    if (private_key) api.pkey_free(private_key);
    if (extra) {
        for (int index = 0; index < api.sk_num(extra); index++) api.x509_free(api.sk_value(extra, index));
        api.sk_free(extra);
    }
    api.err_clear(); // leave no failure in this thread's queue for libcurl to report later
    afn_gate_leave();
    return status;
}

void afn_ssl_describe(const void *ssl, char *version, size_t version_length, char *cipher, size_t cipher_length) {
    if (version_length) version[0] = 0;
    if (cipher_length) cipher[0] = 0;
    if (!ssl || !afn_gate_enter()) return;
    const char *name = api.ssl_get_version(ssl);
    if (name && version_length) snprintf(version, version_length, "%s", name);
    const void *current = api.ssl_get_current_cipher(ssl);
    const char *suite = current ? api.cipher_get_name(current) : NULL;
    if (suite && cipher_length) snprintf(cipher, cipher_length, "%s", suite);
    afn_gate_leave();
}
