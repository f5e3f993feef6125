import Foundation

/// What the `constructingBodyWith` closure of
/// `HTTPRequestSerializer.multipartFormRequest(method:urlString:parameters:constructingBodyWith:)`
/// appends parts through. Every append checks its names, filenames, MIME types and headers for
/// CR, LF and NUL and throws `RequestSerializationError` instead of building an injectable body.
/// Bodies are streamed from their sources when the request is sent, never loaded whole.
/// AFNetworking: `AFMultipartFormData`.
public protocol MultipartFormData: AnyObject {
    /// A file part named after the file's last path component, with the MIME type of its
    /// extension (`MIMEType.forPathExtension(_:)`). Throws `.notAFileURL` or `.fileNotReachable`.
    func appendPart(withFileURL fileURL: URL, name: String) throws

    /// A file part with an explicit filename and MIME type.
    func appendPart(withFileURL fileURL: URL, name: String, fileName: String, mimeType: String) throws

    /// A file part read from `inputStream`, which must deliver exactly `length` bytes; a stream
    /// that ends early or fails makes the body stream fail with a typed error.
    func appendPart(with inputStream: InputStream, name: String, fileName: String, length: UInt64, mimeType: String) throws

    /// A file part whose contents are `data`.
    func appendPart(withFileData data: Data, name: String, fileName: String, mimeType: String) throws

    /// A form field: `Content-Disposition: form-data; name="<name>"` and `data` as its value.
    func appendPart(withForm data: Data, name: String) throws

    /// A part with raw headers (written `Content-Disposition` first, then by name) and `body`.
    func appendPart(withHeaders headers: [String: String], body: Data) throws

    /// Limits each read of the body stream to `packetSize` bytes and waits `delay` seconds
    /// between reads. AFNetworking suggests 16384 bytes and 0.2 s for 3G.
    /// AFNetworking: `throttleBandwidthWithPacketSize:delay:`.
    func throttleBandwidth(withPacketSize packetSize: Int, delay: TimeInterval)
}

extension MultipartFormData {
    /// A form field whose value is `value` as UTF-8.
    public func appendPart(withForm value: String, name: String) throws {
        try appendPart(withForm: Data(value.utf8), name: name)
    }
}
