#include "OpenSSLBridge.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
} api;

// The exit gate. OpenSSL registers OPENSSL_cleanup with atexit, which frees its global state
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

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

#define BIND(library, field, name) \
    if (!(*(void **)&api.field = dlsym(library, name))) { \
        snprintf(load_error, sizeof load_error, "%s not found: %s", name, dlerror()); \
        return; \
    }

static void load(void) {
    void *ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_GLOBAL);
    void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_GLOBAL);
    if (!ssl || !crypto) {
        snprintf(load_error, sizeof load_error, "cannot load libssl.so.3 and libcrypto.so.3: %s", dlerror());
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
    // OpenSSL registers its atexit clean-up on its first initialization (this call or an
    // earlier one); handlers run in reverse order, so the gate closes before OpenSSL cleans up.
    if (!api.init_ssl(0, NULL)) {
        snprintf(load_error, sizeof load_error, "OPENSSL_init_ssl failed");
        return;
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

void afn_store_ctx_reject(void *store_ctx) {
    api.store_ctx_set_error(store_ctx, 50); // X509_V_ERR_APPLICATION_VERIFICATION
}

static void *decode(const unsigned char *der, int length) {
    const unsigned char *cursor = der;
    return api.d2i_x509(NULL, &cursor, length);
}

int afn_verify_chain(const unsigned char *const *chain, const int *chain_lengths, int chain_count,
                     const unsigned char *const *anchors, const int *anchor_lengths, int anchor_count,
                     afn_der_sink sink, void *context) {
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
        api.store_set_flags(store, 0x80000); // X509_V_FLAG_PARTIAL_CHAIN: any anchor ends a chain
    } else {
        api.store_set_default_paths(store);
    }
    if (api.store_ctx_init(store_ctx, store, leaf, untrusted) != 1) goto done;
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
