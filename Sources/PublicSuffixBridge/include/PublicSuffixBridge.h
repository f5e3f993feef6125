// libpsl's cookie-domain check, found with dlopen/dlsym at run time (no headers or link-time
// dependency): the public suffix list the manager's cookie jar needs. Its own target, as the
// libcurl bridge is the transport's and exports libcurl only.
#ifndef AFN_PUBLIC_SUFFIX_BRIDGE_H
#define AFN_PUBLIC_SUFFIX_BRIDGE_H

/// Whether a cookie from `host` may have the Domain attribute `domain` by the public suffix
/// list (libpsl's `psl_is_cookie_domain_acceptable`, the system's list when there is one):
/// 1 yes, 0 no, -1 when libpsl cannot be loaded.
int afn_psl_cookie_domain_acceptable(const char *host, const char *domain);

#endif
