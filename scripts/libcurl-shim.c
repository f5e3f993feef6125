// A stand-in for libcurl.so.4 that forwards to another libcurl build (by default Debian's
// libcurl-gnutls.so.4), used by scripts/libcurl-matrix.sh to run the tests against a libcurl
// that is not built on OpenSSL. FoundationNetworking links libcurl's versioned symbols
// (curl_easy_init@CURL_OPENSSL_4 and so on), which the GnuTLS build names CURL_GNUTLS_3, so the
// GnuTLS library cannot be loaded as libcurl.so.4 by itself. Built by the matrix script:
//   cc -shared -fPIC -Wl,-soname,libcurl.so.4 -Wl,--version-script=libcurl-shim.map
//      -DSHIM_TARGET='"libcurl-gnutls.so.4"' libcurl-shim.c -ldl -o libcurl.so.4
// Every function FoundationNetworking and the project's bridge call is forwarded, plus the rest
// of the easy, multi and version API a transport may query. The variadic ones take one argument
// after the option; on x86-64 and AArch64 a long, a curl_off_t, a pointer and a function pointer
// all travel in the same integer register, so it is forwarded as a pointer-sized value.
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SHIM_TARGET
#define SHIM_TARGET "libcurl-gnutls.so.4"
#endif

static void *target;

static void *resolve(const char *name) {
    if (!target) {
        target = dlopen(SHIM_TARGET, RTLD_NOW | RTLD_LOCAL);
        if (!target) {
            fprintf(stderr, "libcurl shim: cannot load %s: %s\n", SHIM_TARGET, dlerror());
            abort();
        }
    }
    void *symbol = dlsym(target, name);
    if (!symbol) {
        fprintf(stderr, "libcurl shim: %s has no %s\n", SHIM_TARGET, name);
        abort();
    }
    return symbol;
}

// Resolved on first use; a data race on the first call stores the same pointer twice.
#define FORWARD(result, name, parameters, arguments) \
    result name parameters { \
        static result (*real) parameters; \
        if (!real) *(void **)&real = resolve(#name); \
        return real arguments; \
    }
#define FORWARD_VOID(name, parameters, arguments) \
    void name parameters { \
        static void (*real) parameters; \
        if (!real) *(void **)&real = resolve(#name); \
        real arguments; \
    }
#define FORWARD_VARIADIC(name, handle) \
    int name(void *handle, int option, ...) { \
        static int (*real)(void *, int, ...); \
        if (!real) *(void **)&real = resolve(#name); \
        va_list list; \
        va_start(list, option); \
        void *value = va_arg(list, void *); \
        va_end(list); \
        return real(handle, option, value); \
    }

FORWARD(int, curl_global_init, (long flags), (flags))
FORWARD_VOID(curl_global_cleanup, (void), ())
FORWARD(int, curl_global_sslset, (int id, const char *name, void *avail), (id, name, avail))
FORWARD(char *, curl_version, (void), ())
FORWARD(void *, curl_version_info, (int age), (age))
FORWARD_VOID(curl_free, (void *pointer), (pointer))
FORWARD(void *, curl_slist_append, (void *list, const char *string), (list, string))
FORWARD_VOID(curl_slist_free_all, (void *list), (list))

FORWARD(void *, curl_easy_init, (void), ())
FORWARD_VOID(curl_easy_cleanup, (void *easy), (easy))
FORWARD_VOID(curl_easy_reset, (void *easy), (easy))
FORWARD(void *, curl_easy_duphandle, (void *easy), (easy))
FORWARD(int, curl_easy_perform, (void *easy), (easy))
FORWARD(int, curl_easy_pause, (void *easy, int mask), (easy, mask))
FORWARD(const char *, curl_easy_strerror, (int code), (code))
FORWARD(const void *, curl_easy_option_by_name, (const char *name), (name))
FORWARD(const void *, curl_easy_option_by_id, (int id), (id))
FORWARD(const void *, curl_easy_option_next, (const void *previous), (previous))
FORWARD_VARIADIC(curl_easy_setopt, easy)
FORWARD_VARIADIC(curl_easy_getinfo, easy)

FORWARD(void *, curl_multi_init, (void), ())
FORWARD(int, curl_multi_cleanup, (void *multi), (multi))
FORWARD(int, curl_multi_add_handle, (void *multi, void *easy), (multi, easy))
FORWARD(int, curl_multi_remove_handle, (void *multi, void *easy), (multi, easy))
FORWARD(int, curl_multi_assign, (void *multi, int socket, void *pointer), (multi, socket, pointer))
FORWARD(int, curl_multi_socket_action, (void *multi, int socket, int mask, int *running), (multi, socket, mask, running))
FORWARD(int, curl_multi_perform, (void *multi, int *running), (multi, running))
FORWARD(int, curl_multi_timeout, (void *multi, long *milliseconds), (multi, milliseconds))
FORWARD(void *, curl_multi_info_read, (void *multi, int *remaining), (multi, remaining))
FORWARD(const char *, curl_multi_strerror, (int code), (code))
FORWARD_VARIADIC(curl_multi_setopt, multi)

FORWARD(void *, curl_url, (void), ())
FORWARD_VOID(curl_url_cleanup, (void *url), (url))
FORWARD(int, curl_url_get, (void *url, int part, char **value, unsigned int flags), (url, part, value, flags))
FORWARD(int, curl_url_set, (void *url, int part, const char *value, unsigned int flags), (url, part, value, flags))
