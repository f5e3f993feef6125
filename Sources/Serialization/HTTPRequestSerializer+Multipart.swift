import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequestSerializer {
    /// A `multipart/form-data` request whose body streams from its sources.
    ///
    /// `parameters` (a dictionary or keyed `Encodable`) become form fields first, flattened by
    /// the query-string rules (`a[b]`, `a[]`; `Data` raw, `nil` empty); then `block` appends
    /// parts. The request gets `Content-Type: multipart/form-data; boundary=...` and a
    /// `MultipartBodyStream` as `httpBodyStream`, but no `Content-Length`: URLSession on Linux
    /// sends stream bodies chunked and a `Content-Length` beside that breaks the request. The
    /// exact length is `request.multipartContentLength`; for servers that demand
    /// `Content-Length` (S3 style), use `request(withMultipartFormRequest:writingStreamContentsToFile:)`.
    /// With no parts the request has no body and no multipart headers.
    ///
    /// Throws `.multipartNotAllowed` for GET and HEAD, and any error an append throws.
    /// AFNetworking: `multipartFormRequestWithMethod:URLString:parameters:constructingBodyWithBlock:error:`.
    public func multipartFormRequest(
        method: String,
        urlString: String,
        parameters: Any? = nil,
        constructingBodyWith block: (any MultipartFormData) throws -> Void = { _ in }
    ) throws -> URLRequest {
        guard !["GET", "HEAD"].contains(method.uppercased()) else {
            throw RequestSerializationError.multipartNotAllowed(method: method)
        }
        var request = try baseRequest(method: method, urlString: urlString)
        let formData = StreamingMultipartFormData()
        if let parameters {
            let value = try ParameterValue(parameters)
            guard case .dictionary = value else { throw RequestSerializationError.invalidQueryParameters }
            for pair in QueryStringEncoding.pairs(from: value) {
                try formData.appendPart(withForm: pair.formData, name: pair.field)
            }
        }
        try block(formData)
        guard !formData.isEmpty else { return request }
        request.setValue(formData.contentType, forHTTPHeaderField: "Content-Type")
        request.httpBodyStream = formData.makeBodyStream()
        return request
    }

    /// Writes the body stream of `request` to `fileURL` (replacing the file) and returns the
    /// request without the stream and with `Content-Length` set to the bytes written, ready for
    /// an upload from that file. Blocks the calling thread while it copies.
    /// Throws `.notAFileURL`, `.missingBodyStream`, `.cannotWriteBody`, or the stream's error.
    /// AFNetworking: `requestWithMultipartFormRequest:writingStreamContentsToFile:completionHandler:`.
    public func request(withMultipartFormRequest request: URLRequest, writingStreamContentsToFile fileURL: URL) throws -> URLRequest {
        guard fileURL.isFileURL else { throw RequestSerializationError.notAFileURL(fileURL) }
        guard let stream = request.httpBodyStream else { throw RequestSerializationError.missingBodyStream }
        let written = try BodyStreamCopier.copy(stream, toFile: fileURL)
        var result = request
        result.httpBodyStream = nil
        result.setValue(String(written), forHTTPHeaderField: "Content-Length")
        return result
    }
}

extension URLRequest {
    /// The exact length of a multipart body built by `HTTPRequestSerializer`, or `nil` when the
    /// body is not such a stream.
    public var multipartContentLength: UInt64? {
        (httpBodyStream as? MultipartBodyStream)?.contentLength
    }
}
