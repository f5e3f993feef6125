// The transport's public types (limits, timeouts, proxies, retries, metrics, its errors) are
// part of the manager's API: whoever imports the session module gets them.
@_exported import AFTransport
