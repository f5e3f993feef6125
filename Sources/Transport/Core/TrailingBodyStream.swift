import Foundation

/// A request body stream that ends with trailer fields: the transport sends such a body chunked
/// over HTTP/1.1 (the one framing libcurl 7.88 sends request trailers in; its HTTP/2 layer never
/// asks for them) and the fields after its last chunk.
package protocol TrailingBodyStream: InputStream {
    /// Whether the body ends with trailer fields; known before it is sent.
    var hasTrailers: Bool { get }
    /// The trailer fields, once the stream has ended; from any thread.
    var trailerFields: [String: String] { get }
}
