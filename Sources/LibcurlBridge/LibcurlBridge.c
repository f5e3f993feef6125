#include "LibcurlBridge.h"
#include "OpenSSLBridge.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>


typedef struct {
    int msg;
    void *easy_handle;
    union { void *whatever; int result; } data;
} curl_message;

static struct {
    int (*global_init)(long);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_setopt)(void *, int, ...);
    const char *(*easy_strerror)(int);
    int (*easy_pause)(void *, int);
    int (*easy_getinfo)(void *, int, ...);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    int (*multi_setopt)(void *, int, ...);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_socket_action)(void *, int, int, int *);
    int (*multi_timeout)(void *, long *);
    curl_message *(*multi_info_read)(void *, int *);
    void *(*version_info)(int);
} api;

/// The start of `curl_version_info_data`, the same in every age (curl/curl.h, age 0).
typedef struct {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
} curl_version_info_start;

static afn_curl_facts facts;

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
        snprintf(load_error, sizeof load_error, "libcurl.so.4 lacks %s: %s", name, dynamic_loader_error()); \
        return; \
    }

/// Whether the SSL_CTX and SSL functions the transport's hooks call on libcurl's objects are
/// the very ones libcurl's own symbols resolve to (one OpenSSL in the process for both).
static int shares_openssl(void *curl) {
    static const char *const names[] = {
        "SSL_CTX_new", "SSL_CTX_set_cert_verify_callback", "SSL_CTX_set_options", "SSL_CTX_set_client_cert_cb",
        "SSL_CTX_set_ex_data", "SSL_CTX_get_ex_data", "SSL_get_SSL_CTX", "SSL_set_ex_data", "SSL_get_ex_data",
    };
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        void *ours = afn_openssl_symbol(names[index]);
        if (!ours || dlsym(curl, names[index]) != ours) return 0;
    }
    return 1;
}

static void load(void) {
    // OpenSSL first: its exit gate must be armed before any connection exists. Whether it
    // loaded is one of the facts the transport decides on (afn_curl_facts).
    facts.openssl_loaded = afn_openssl_load(facts.openssl_error, sizeof facts.openssl_error);
    void *curl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (!curl) {
        snprintf(load_error, sizeof load_error, "cannot load libcurl.so.4: %s", dynamic_loader_error());
        return;
    }
    BIND(curl, version_info, "curl_version_info")
    const curl_version_info_start *info = api.version_info(0); // CURLVERSION_FIRST: the fields above
    if (!info) {
        snprintf(load_error, sizeof load_error, "curl_version_info returned nothing");
        return;
    }
    facts.version = info->version ? info->version : "";
    facts.version_number = info->version_num;
    facts.tls_backend = info->ssl_version;
    facts.openssl_version = facts.openssl_loaded ? afn_openssl_version() : NULL;
    facts.openssl_is_libcurls = facts.openssl_loaded && afn_openssl_is_libcurls() && shares_openssl(curl);
    BIND(curl, global_init, "curl_global_init")
    BIND(curl, easy_init, "curl_easy_init")
    BIND(curl, easy_cleanup, "curl_easy_cleanup")
    BIND(curl, easy_reset, "curl_easy_reset")
    BIND(curl, easy_setopt, "curl_easy_setopt")
    BIND(curl, easy_strerror, "curl_easy_strerror")
    BIND(curl, easy_pause, "curl_easy_pause")
    BIND(curl, easy_getinfo, "curl_easy_getinfo")
    BIND(curl, slist_append, "curl_slist_append")
    BIND(curl, slist_free_all, "curl_slist_free_all")
    BIND(curl, multi_init, "curl_multi_init")
    BIND(curl, multi_cleanup, "curl_multi_cleanup")
    BIND(curl, multi_setopt, "curl_multi_setopt")
    BIND(curl, multi_add_handle, "curl_multi_add_handle")
    BIND(curl, multi_remove_handle, "curl_multi_remove_handle")
    BIND(curl, multi_socket_action, "curl_multi_socket_action")
    BIND(curl, multi_timeout, "curl_multi_timeout")
    BIND(curl, multi_info_read, "curl_multi_info_read")
    // CURL_GLOBAL_ALL; reference-counted, so harmless after FoundationNetworking's own call.
    if (api.global_init(3) != 0) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    loaded = 1;
}

int afn_curl_load(char *error, size_t error_length) {
    pthread_once(&load_once, load);
    if (!loaded && error && error_length) snprintf(error, error_length, "%s", load_error);
    return loaded;
}

const afn_curl_facts *afn_curl_loaded_facts(void) {
    pthread_once(&load_once, load);
    return loaded ? &facts : NULL;
}

void *afn_easy_init(void) { return api.easy_init(); }
void afn_easy_cleanup(void *easy) {
    if (!afn_gate_enter()) return;
    api.easy_cleanup(easy);
    afn_gate_leave();
}
void afn_easy_reset(void *easy) {
    if (!afn_gate_enter()) return;
    api.easy_reset(easy);
    afn_gate_leave();
}
int afn_easy_setopt_long(void *easy, int option, long value) { return api.easy_setopt(easy, option, value); }
int afn_easy_setopt_pointer(void *easy, int option, const void *value) { return api.easy_setopt(easy, option, value); }
int afn_easy_setopt_off(void *easy, int option, int64_t value) { return api.easy_setopt(easy, option, (long long)value); }

int afn_easy_setopt_blob(void *easy, int option, const void *data, size_t length) {
    // struct curl_blob; CURL_BLOB_COPY (1): libcurl keeps its own copy.
    struct { void *data; size_t len; unsigned int flags; } blob = { (void *)data, length, 1 };
    return api.easy_setopt(easy, option, &blob);
}
// A stubbed transfer fails with libcurl's codes also where libcurl could not be loaded.
const char *afn_easy_strerror(int code) { return api.easy_strerror ? api.easy_strerror(code) : ""; }

int afn_easy_getinfo_off(void *easy, int info, int64_t *value) {
    long long result = 0;
    int code = api.easy_getinfo(easy, info, &result);
    *value = (int64_t)result;
    return code;
}
int afn_easy_getinfo_long(void *easy, int info, long *value) {
    *value = 0;
    return api.easy_getinfo(easy, info, value);
}
int afn_easy_getinfo_string(void *easy, int info, const char **value) {
    *value = NULL;
    return api.easy_getinfo(easy, info, value);
}

void *afn_easy_tls_ssl(void *easy) {
    // CURLINFO_TLS_SSL_PTR (CURLINFO_PTR + 45): a struct curl_tlssessioninfo, whose internals
    // are the connection's SSL for the OpenSSL backend (CURLSSLBACKEND_OPENSSL, 1).
    struct { int backend; void *internals; } *info = NULL;
    if (api.easy_getinfo(easy, 0x400000 + 45, &info) != 0 || !info || info->backend != 1) return NULL;
    return info->internals;
}

int afn_easy_pause(void *easy, int bitmask) {
    // Resuming delivers buffered data and may read from the connection.
    if (!afn_gate_enter()) return -1;
    int result = api.easy_pause(easy, bitmask);
    afn_gate_leave();
    return result;
}

void *afn_slist_append(void *list, const char *string) { return api.slist_append(list, string); }
void afn_slist_free_all(void *list) { api.slist_free_all(list); }

void *afn_multi_init(void) { return api.multi_init(); }
void afn_multi_cleanup(void *multi) {
    if (!afn_gate_enter()) return;
    api.multi_cleanup(multi);
    afn_gate_leave();
}
int afn_multi_setopt_long(void *multi, int option, long value) { return api.multi_setopt(multi, option, value); }
int afn_multi_setopt_pointer(void *multi, int option, const void *value) { return api.multi_setopt(multi, option, value); }
int afn_multi_add_handle(void *multi, void *easy) { return api.multi_add_handle(multi, easy); }
int afn_multi_remove_handle(void *multi, void *easy) {
    // Removing an unfinished transfer closes its connection.
    if (!afn_gate_enter()) return -1;
    int result = api.multi_remove_handle(multi, easy);
    afn_gate_leave();
    return result;
}

int afn_multi_socket_action(void *multi, int socket, int events, int *running) {
    if (!afn_gate_enter()) return -1;
    int result = api.multi_socket_action(multi, socket, events, running);
    afn_gate_leave();
    return result;
}

int afn_multi_timeout(void *multi, long *milliseconds) { return api.multi_timeout(multi, milliseconds); }

int afn_multi_next_done(void *multi, void **easy, int *result) {
    int queued = 0;
    curl_message *message;
    while ((message = api.multi_info_read(multi, &queued))) {
        if (message->msg == 1) { // CURLMSG_DONE
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}
