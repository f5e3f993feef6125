import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Decodable shape to decode untrusted JSON into.
struct FuzzedDocument: Decodable, Sendable {
    let id: Int?
    let name: String?
    let tags: [String]?
    let nested: [String: Double]?
}

/// libFuzzer target: the first byte chooses a status code, the text up to the first newline is
/// the Content-Type, the rest is the body; every response serializer reads the response.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseSerializers(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let status = [200, 204, 404, 500][Int(bytes.first ?? 0) % 4]
    let rest = bytes.dropFirst()
    let newline = rest.firstIndex(of: 10) ?? rest.endIndex
    let contentType = String(decoding: rest[..<newline], as: UTF8.self)
    let body = Data(rest[newline...].dropFirst())
    guard let response = HTTPURLResponse(url: URL(string: "http://fuzz.example/")!, statusCode: status, httpVersion: "HTTP/1.1",
                                         headerFields: ["Content-Type": contentType]) else { return 0 }
    let serializers: [any URLResponseSerialization] = [
        HTTPResponseSerializer(), JSONResponseSerializer(removesKeysWithNullValues: true), PropertyListResponseSerializer(),
        XMLParserResponseSerializer(), DecodableResponseSerializer(FuzzedDocument.self),
        CompoundResponseSerializer(responseSerializers: [JSONResponseSerializer(), XMLParserResponseSerializer()]),
    ]
    for serializer in serializers {
        _ = try? serializer.responseObject(for: response, data: body)
    }
    return 0
}
