"""httpbin for the mutual-TLS test server: gunicorn (run with --cert-reqs 2 --ca-certs) has
verified the client's certificate in the handshake before a request reaches this app, which
names the certificate's subject in an `X-Client-Subject` response header; the server's access
log format records that header, so a test can see which identity the server accepted."""

from httpbin import app as httpbin


def subject_of(environ):
    socket = environ.get("gunicorn.socket")
    certificate = socket.getpeercert() if hasattr(socket, "getpeercert") else None
    if not certificate:
        return "-"
    return ",".join(f"{key}={value}" for rdn in certificate.get("subject", ()) for key, value in rdn)


def app(environ, start_response):
    subject = subject_of(environ)

    def start_with_subject(status, headers, exc_info=None):
        return start_response(status, headers + [("X-Client-Subject", subject)], exc_info)

    return httpbin(environ, start_with_subject)
