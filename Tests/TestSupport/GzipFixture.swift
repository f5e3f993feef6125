import Foundation

/// A gzip-coded JSON body for the tests of content-coded responses, as httpbin's `/gzip`
/// serves one: `{"gzipped": true}` and a line feed, compressed by Python's `gzip.compress`
/// (modification time 0).
public enum GzipFixture {
    /// The coded bytes, sent with `Content-Encoding: gzip` and their own `Content-Length`.
    public static let coded = Data(base64Encoded: "H4sIAAAAAAACA6tWSq/KLChITVGyUigpKk2t5QIAw9zFRRIAAAA=")!
    /// The decoded body.
    public static let decoded = Data("{\"gzipped\": true}\n".utf8)
}
