#include "PublicSuffixBridge.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// libpsl, which Debian's libcurl links for its own cookie engine: the public
// suffix list decides which Domain attributes a cookie may have.
static struct {
    const void *list;
    int (*acceptable)(const void *, const char *, const char *);
} psl;
static pthread_once_t psl_once = PTHREAD_ONCE_INIT;

static void load_psl(void) {
    void *library = dlopen("libpsl.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    const void *(*latest)(const char *) = (const void *(*)(const char *))dlsym(library, "psl_latest");
    const void *(*builtin)(void) = (const void *(*)(void))dlsym(library, "psl_builtin");
    int (*acceptable)(const void *, const char *, const char *) =
        (int (*)(const void *, const char *, const char *))dlsym(library, "psl_is_cookie_domain_acceptable");
    if (!acceptable) return;
    const void *list = latest ? latest(NULL) : NULL; // the system's list, else the built-in one
    if (!list && builtin) list = builtin();
    if (!list) return;
    psl.list = list;
    psl.acceptable = acceptable;
}

int afn_psl_cookie_domain_acceptable(const char *host, const char *domain) {
    pthread_once(&psl_once, load_psl);
    if (!psl.acceptable) return -1;
    return psl.acceptable(psl.list, host, domain) ? 1 : 0;
}
