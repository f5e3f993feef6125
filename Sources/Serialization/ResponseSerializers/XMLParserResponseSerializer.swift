import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A validated XML body. `XMLParser` is not `Sendable`, so the serializer hands over the body
/// and the consumer makes its parser where it parses.
public struct XMLResponse: Sendable {
    /// The response body.
    public let data: Data

    /// A new parser over `data`; set its delegate and call `parse()`.
    public func makeParser() -> XMLParser { XMLParser(data: data) }
}

/// Validates an XML response. An empty body gives `nil`.
/// AFNetworking: `AFXMLParserResponseSerializer` (whose result is an `NSXMLParser`; here
/// `XMLResponse.makeParser()` gives one).
public struct XMLParserResponseSerializer: URLResponseSerialization, ResponseValidation {
    /// Accepted status codes (`nil`: all); see `ResponseValidation`.
    public var acceptableStatusCodes: IndexSet?
    /// Accepted MIME types (`nil`: all); see `ResponseValidation`.
    public var acceptableContentTypes: Set<String>?

    /// Accepts 200-299 and `application/xml`, `text/xml`.
    public init(
        acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/xml", "text/xml"]
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The validated body, `nil` when empty.
    public func responseObject(for response: URLResponse?, data: Data?) throws -> XMLResponse? {
        try validate(response, data: data)
        guard let data, !data.isEmpty else { return nil }
        return XMLResponse(data: data)
    }
}
