import AFSerialization
import Foundation

/// Structured input from bytes: a nested parameter dictionary (strings, numbers, booleans,
/// null, data, arrays, dictionaries) read off the fuzzer's bytes.
struct ParameterReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    private mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    mutating func string() -> String {
        let length = Int(byte() % 24)
        let taken = bytes.prefix(length)
        bytes = bytes.dropFirst(length)
        return String(decoding: taken, as: UTF8.self)
    }

    mutating func value(depth: Int = 0) -> Any {
        switch byte() % (depth < 4 ? 8 : 5) {
        case 0: return string()
        case 1: return Int(Int8(bitPattern: byte())) * Int(byte())
        case 2: return byte() & 1 == 0
        case 3: return NSNull()
        case 4: return Data(string().utf8)
        case 5: return (0..<Int(byte() % 4)).map { _ in value(depth: depth + 1) }
        default: return dictionary(depth: depth + 1)
        }
    }

    mutating func dictionary(depth: Int = 0) -> [String: Any] {
        var dictionary: [String: Any] = [:]
        for _ in 0..<Int(byte() % 5) { dictionary[string()] = value(depth: depth) }
        return dictionary
    }

    var isEmpty: Bool { bytes.isEmpty }
}

/// libFuzzer target: parameters built from the bytes, through the query-string encoder, the
/// form, JSON and property-list request serializers, and a multipart body built from parts
/// whose names, file names, MIME types and contents come from the bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestEncoders(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = ParameterReader(Array(UnsafeRawBufferPointer(start: start, count: count)))
    let parameters = reader.dictionary()
    _ = try? QueryStringEncoding.queryString(from: parameters)
    for serializer in [HTTPRequestSerializer(), JSONRequestSerializer(), PropertyListRequestSerializer()] {
        _ = try? serializer.request(method: "POST", urlString: "http://fuzz.example/p", parameters: parameters)
        _ = try? serializer.request(method: "GET", urlString: "http://fuzz.example/g", parameters: parameters)
    }
    let parts = (0..<3).map { _ in (reader.string(), reader.string(), reader.string(), Data(reader.string().utf8)) }
    if let request = try? HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "http://fuzz.example/u", parameters: parameters, constructingBodyWith: { form in
        for (name, fileName, mimeType, data) in parts {
            try form.appendPart(withFileData: data, name: name, fileName: fileName, mimeType: mimeType)
            try form.appendPart(withForm: data, name: name)
        }
    }), let stream = request.httpBodyStream {
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.read(&buffer, maxLength: buffer.count) > 0 {}
        stream.close()
    }
    return 0
}
