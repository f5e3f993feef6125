import Foundation

/// Collects multipart parts and lays them out as a `multipart/form-data` body:
/// `--B\r\n` before the first part, `\r\n--B\r\n` before each later one, `\r\n--B--\r\n` at the
/// end, each part's headers as `Name: value\r\n` followed by `\r\n`. Bodies stay references to
/// their sources until the stream reads them. AFNetworking: `AFStreamingMultipartFormData`.
public final class StreamingMultipartFormData: MultipartFormData {
    /// `Boundary+` and 16 random uppercase hex digits, as AFNetworking makes it.
    public let boundary: String

    private var parts: [(headers: [(name: String, value: String)], body: BodySegment)] = []
    private var throttle: MultipartBodyStream.Throttle?

    /// A builder with a fresh random boundary, or `boundary` when given (for reproducible bodies).
    public init(boundary: String = StreamingMultipartFormData.makeBoundary()) {
        self.boundary = boundary
    }

    /// A new random boundary.
    public static func makeBoundary() -> String {
        "Boundary+" + String(format: "%08X%08X", UInt32.random(in: .min ... .max), UInt32.random(in: .min ... .max))
    }

    /// Whether no part has been appended.
    public var isEmpty: Bool { parts.isEmpty }

    /// `multipart/form-data; boundary=<boundary>`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// See `MultipartFormData.appendPart(withFileURL:name:)`.
    public func appendPart(withFileURL fileURL: URL, name: String) throws {
        try appendPart(withFileURL: fileURL, name: name, fileName: fileURL.lastPathComponent,
                       mimeType: MIMEType.forPathExtension(fileURL.pathExtension))
    }

    /// The file's size is read now; the bytes when the body stream reaches the part.
    public func appendPart(withFileURL fileURL: URL, name: String, fileName: String, mimeType: String) throws {
        guard fileURL.isFileURL else { throw RequestSerializationError.notAFileURL(fileURL) }
        guard let size = FileSize.ofRegularFile(atPath: fileURL.path), FileManager.default.isReadableFile(atPath: fileURL.path) else {
            throw RequestSerializationError.fileNotReachable(fileURL)
        }
        append(try fileHeaders(name: name, fileName: fileName, mimeType: mimeType), .file(fileURL, length: size))
    }

    /// See `MultipartFormData.appendPart(with:name:fileName:length:mimeType:)`.
    public func appendPart(with inputStream: InputStream, name: String, fileName: String, length: UInt64, mimeType: String) throws {
        append(try fileHeaders(name: name, fileName: fileName, mimeType: mimeType), .stream(inputStream, length: length))
    }

    /// See `MultipartFormData.appendPart(withFileData:name:fileName:mimeType:)`.
    public func appendPart(withFileData data: Data, name: String, fileName: String, mimeType: String) throws {
        append(try fileHeaders(name: name, fileName: fileName, mimeType: mimeType), .bytes(data))
    }

    /// See `MultipartFormData.appendPart(withForm:name:)`.
    public func appendPart(withForm data: Data, name: String) throws {
        try HTTPHeaderValidation.validate(field: name)
        append([(name: "Content-Disposition", value: "form-data; name=\"\(Self.quoted(name))\"")], .bytes(data))
    }

    /// See `MultipartFormData.appendPart(withHeaders:body:)`.
    public func appendPart(withHeaders headers: [String: String], body: Data) throws {
        try HTTPHeaderValidation.validate(headers: headers)
        let ordered = headers.sorted { lhs, rhs in
            let lhsFirst = lhs.key.lowercased() == "content-disposition"
            let rhsFirst = rhs.key.lowercased() == "content-disposition"
            return lhsFirst != rhsFirst ? lhsFirst : ParameterValue.precedes(lhs.key, rhs.key)
        }
        append(ordered.map { (name: $0.key, value: $0.value) }, .bytes(body))
    }

    /// Applies to body streams made after the call.
    public func throttleBandwidth(withPacketSize packetSize: Int, delay: TimeInterval) {
        throttle = MultipartBodyStream.Throttle(packetSize: max(1, packetSize), delay: max(0, delay))
    }

    /// A stream over the body as laid out now. Each call gives an independent stream; parts
    /// appended from an `InputStream` can be read by only one of them.
    public func makeBodyStream() -> MultipartBodyStream {
        var segments: [BodySegment] = []
        for (index, part) in parts.enumerated() {
            var head = index == 0 ? "--\(boundary)\r\n" : "\r\n--\(boundary)\r\n"
            for header in part.headers { head += "\(header.name): \(header.value)\r\n" }
            head += "\r\n"
            segments.append(.bytes(Data(head.utf8)))
            segments.append(part.body)
        }
        if !parts.isEmpty { segments.append(.bytes(Data("\r\n--\(boundary)--\r\n".utf8))) }
        return MultipartBodyStream(segments: segments, throttle: throttle)
    }

    private func append(_ headers: [(name: String, value: String)], _ body: BodySegment) {
        parts.append((headers, body))
    }

    private func fileHeaders(name: String, fileName: String, mimeType: String) throws -> [(name: String, value: String)] {
        for field in [name, fileName, mimeType] { try HTTPHeaderValidation.validate(field: field) }
        return [
            (name: "Content-Disposition", value: "form-data; name=\"\(Self.quoted(name))\"; filename=\"\(Self.quoted(fileName))\""),
            (name: "Content-Type", value: mimeType),
        ]
    }

    /// A double quote would end the quoted-string early; HTML's form encoding writes it `%22`.
    /// Every U+0022 scalar: followed by a combining mark it is one `Character` with the mark,
    /// which a search for `"\""` passes over while a server's parser still ends the value there.
    private static func quoted(_ value: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if scalar == "\"" { escaped.append(contentsOf: "%22".unicodeScalars) } else { escaped.append(scalar) }
        }
        return String(escaped)
    }
}

/// One contiguous piece of a streamed body.
enum BodySegment {
    case bytes(Data)
    case file(URL, length: UInt64)
    case stream(InputStream, length: UInt64)

    var length: UInt64 {
        switch self {
        case .bytes(let data): return UInt64(data.count)
        case .file(_, let length), .stream(_, let length): return length
        }
    }
}
